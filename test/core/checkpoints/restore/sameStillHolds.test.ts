// A plan made while the user reads the preview is written later (pi plans it ahead): the files it found
// already as at the node are recorded as the agent's, so any of them changed, made or deleted since the
// planning means the plan no longer holds and the restore plans again.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sameStillHolds, type RestorePlan } from '../../../../src/core/checkpoints/index.js';
import { tempDir } from '../../../support/tmp.js';

const planOf = (sameKeys: string[]) => ({ sameKeys }) as unknown as RestorePlan;

describe('sameStillHolds', () => {
  it('holds while none of the files already as at the node changed since the planning', () => {
    const cwd = tempDir('pi-same-');
    mkdirSync(join(cwd, 'src'));
    writeFileSync(join(cwd, 'src', 'a.txt'), 'a\n');
    // planned after the files were last changed (and "gone.txt" absent then and now)
    const later = Date.now() + 1500;
    assert.equal(sameStillHolds(planOf(['src/a.txt', 'src/gone.txt']), cwd, later), true);
  });

  it('no longer holds once one is changed, made or deleted after the planning', () => {
    const cwd = tempDir('pi-same-');
    mkdirSync(join(cwd, 'src'));
    mkdirSync(join(cwd, 'lib'));
    writeFileSync(join(cwd, 'src', 'a.txt'), 'a\n');
    writeFileSync(join(cwd, 'lib', 'made.txt'), 'new\n');
    const earlier = Date.now() - 5000;
    assert.equal(sameStillHolds(planOf(['src/a.txt']), cwd, earlier), false, 'changed');
    assert.equal(sameStillHolds(planOf(['lib/made.txt']), cwd, earlier), false, 'made');
    rmSync(join(cwd, 'lib', 'made.txt'));
    assert.equal(sameStillHolds(planOf(['lib/made.txt']), cwd, earlier), false, 'deleted: its folder changed');
    assert.equal(
      sameStillHolds(planOf(['nowhere/x.txt']), cwd, earlier),
      false,
      'cannot tell (its folder is not there either): plans again',
    );
  });
});
