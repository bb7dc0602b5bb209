// The one vocabulary of a restore (planWords.ts): each state's count and words, as the details pane,
// Move here, the restore's choice and the CLI all print them. A conflict counts by what taking the
// node's version does and once more as "you changed since"; what cannot be restored is kept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fateOf, planTally, planWords, takeNodeWords } from '../../../../src/core/checkpoints/restore/planWords.js';
import type { PlanAction, PlanItem, SideInfo } from '../../../../src/core/checkpoints/restore/restorePlan.js';

const FILE: SideInfo = { kind: 'file', sha: 'a'.repeat(40), mode: 0o100644 };
const ABSENT: SideInfo = { kind: 'absent' };
const item = (key: string, action: PlanAction, o: Partial<PlanItem> = {}): PlanItem => ({
  key,
  path: `/p/${key}`,
  action,
  now: FILE,
  target: FILE,
  latest: FILE,
  ...o,
});
const words = (items: PlanItem[]) => planWords(planTally({ items }));

describe('planWords: one count and one vocabulary for a restore', () => {
  it('each kind alone reads as one phrase', () => {
    assert.equal(words([item('a', 'modify')]), '1 file changed');
    assert.equal(
      words([item('a', 'create', { now: ABSENT }), item('b', 'create', { now: ABSENT })]),
      '2 files created',
    );
    assert.equal(words([item('gone', 'delete', { target: ABSENT })]), '1 file deleted', 'a deletion is not "written"');
    assert.equal(words([]), 'no file');
  });

  it('kinds together, with the conflicts among them and what is kept', () => {
    const items = [
      item('a', 'modify'),
      item('b', 'create', { now: ABSENT }),
      item('c', 'conflict'),
      item('d', 'conflict', { target: ABSENT }),
      item('e', 'unrestorable', { target: { kind: 'unknown', why: 'x' } }),
    ];
    assert.deepEqual(planTally({ items }), { files: 4, created: 1, changed: 2, deleted: 1, yours: 2, kept: 1 });
    assert.equal(
      words(items),
      '4 files: 1 created, 2 changed, 1 deleted; 2 you changed since; 1 kept as it is (not restorable)',
    );
    assert.doesNotMatch(words(items), /\(.*\(/, 'never parentheses in parentheses');
  });

  it("a file's fate and the words for taking the node's version follow its sides", () => {
    assert.equal(fateOf(item('a', 'conflict', { target: ABSENT })), 'deleted');
    assert.equal(fateOf(item('a', 'conflict', { now: ABSENT })), 'created');
    assert.equal(fateOf(item('a', 'unrestorable')), 'kept');
    assert.equal(
      takeNodeWords(item('a', 'conflict', { target: ABSENT })),
      'Delete the file, which did not exist at the node',
    );
    assert.equal(takeNodeWords(item('a', 'conflict', { now: ABSENT })), 'Create the file as it was at the node');
    assert.equal(takeNodeWords(item('a', 'conflict')), 'Write the file as it was at the node');
  });
});
