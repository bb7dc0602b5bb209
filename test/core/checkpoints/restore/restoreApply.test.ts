// A plan is written later than it is made (the editor writes the plan its preview showed, a CLI restore
// may wait for another's lock): every file the plan relies on is checked again before the first write,
// the files it found already as at the node too, since the restore records them as the agent's there.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PlanChangedError, planCode, writeCode } from '../../../../src/core/checkpoints/index.js';
import { simProject } from '../../../support/simProject.js';

/**
 * x.txt goes x1 → x2 → x1 again, y.txt y1 → y2, w.txt is made and removed again: the code at the first
 * answer finds x.txt and w.txt (absent) as they are now.
 */
async function backAndForth() {
  const p = simProject('pi-cp-apply-');
  const write = (path: string, content: string) => ({ name: 'write', args: { path, content } });
  const t1 = await p.sim.turn('one', [write('x.txt', 'x1\n'), write('y.txt', 'y1\n')], () => {
    p.put('x.txt', 'x1\n');
    p.put('y.txt', 'y1\n');
  });
  await p.sim.turn('two', [write('x.txt', 'x2\n'), write('y.txt', 'y2\n'), write('w.txt', 'w\n')], () => {
    p.put('x.txt', 'x2\n');
    p.put('y.txt', 'y2\n');
    p.put('w.txt', 'w\n');
  });
  await p.sim.turn('three', [write('x.txt', 'x1\n'), { name: 'bash', args: { command: 'rm w.txt' } }], () => {
    p.put('x.txt', 'x1\n');
    rmSync(join(p.cwd, 'w.txt'));
  });
  await p.sim.capture?.close();
  return { ...p, t1 };
}

describe('a plan written after it was made', () => {
  it('a file it found already as at the node, changed since, refuses the restore before any file is written', async () => {
    const p = await backAndForth();
    const sc = await p.code();
    const plan = await planCode(sc, p.t1.answer);
    assert.deepEqual(plan.sameKeys, ['w.txt', 'x.txt'], 'already as at the node');
    assert.deepEqual(
      plan.items.map((i) => `${i.action} ${i.key}`),
      ['modify y.txt'],
    );
    // The user edits x.txt while the preview is open.
    p.put('x.txt', 'mine\n');
    await assert.rejects(writeCode(sc, plan, {}), PlanChangedError);
    assert.equal(p.read('y.txt'), 'y2\n', 'nothing was written');
    assert.equal(p.read('x.txt'), 'mine\n');
    // Planned again, the user's line is named: a file the node has otherwise.
    const again = await planCode(sc, p.t1.answer);
    assert.ok(again.items.some((i) => i.key === 'x.txt' && i.action === 'conflict'));
  });

  it('a file absent at the node and now, made since, refuses it too', async () => {
    const p = await backAndForth();
    const sc = await p.code();
    const plan = await planCode(sc, p.t1.answer);
    p.put('w.txt', 'made meanwhile\n');
    await assert.rejects(writeCode(sc, plan, {}), PlanChangedError);
    assert.equal(p.read('y.txt'), 'y2\n', 'nothing was written');
  });

  it('files untouched since the plan: written as planned', async () => {
    const p = await backAndForth();
    const sc = await p.code();
    const plan = await planCode(sc, p.t1.answer);
    const r = await writeCode(sc, plan, {});
    assert.deepEqual(
      r.written.map((f) => f.replace(/.*\//, '')),
      ['y.txt'],
    );
    assert.equal(p.read('y.txt'), 'y1\n');
  });
});
