// The restore's decision (decideRestore) against the vscode mock: what each row of the quick pick
// resolves to, conflicts decided for all at once or file by file (merge offered only where both sides
// are files), "Preview all" for a paged preview, and the rows that only inform, which leave the pick
// open. The plans are made by hand: the decision reads only their items and notes.
import '../../support/vscode/install.js';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { PlanAction, PlanItem, RestorePlan, SideInfo } from '../../../src/core/checkpoints/restore/restorePlan.js';
import { decideRestore } from '../../../src/host/checkpoints/restoreChoice.js';
import { mock, pickInOrder, QuickPickItemKind } from '../../support/vscode/api.js';

const FILE: SideInfo = { kind: 'file', sha: 'a'.repeat(40), mode: 0o100644 };
const ABSENT: SideInfo = { kind: 'absent' };

function item(key: string, action: PlanAction, o: Partial<PlanItem> = {}): PlanItem {
  return { key, path: `/proj/${key}`, action, now: FILE, target: FILE, latest: FILE, ...o };
}

function plan(items: PlanItem[], notes: string[] = []): RestorePlan {
  return {
    targetId: 'e0000002',
    from: { entryId: 'e0000009', how: 'snapshot' },
    target: { how: 'snapshot' },
    items,
    same: 0,
    sameKeys: [],
    notes,
    fingerprint: 'f',
    sides: new Map(),
  };
}

/** The labels the last pick offered, as the user reads them (separators as "---"). */
const offered = (n = -1) => mock.picks.at(n)!.items.map((i) => (i.kind === QuickPickItemKind.Separator ? '---' : i.label.replace(/^\$\([\w-]+\)\s*/, '')));

describe('the restore decision (vscode mock)', () => {
  beforeEach(() => mock.reset());

  it('without conflicts: Restore writes with no resolutions; Cancel and dismissing write nothing', async () => {
    const p = plan([item('a.txt', 'modify'), item('b.txt', 'create', { now: ABSENT })]);
    mock.quickPick = pickInOrder('Restore');
    const d = await decideRestore(p, 'Restore the code at X', true, 0);
    assert.deepEqual(d, { restore: new Map() });
    assert.deepEqual(offered(), ['Restore', 'Cancel']);
    assert.equal(mock.picks[0].title, 'Restore the code at X? 2 files: 1 created, 1 changed');
    assert.equal(mock.picks[0].items[0].detail, '2 files: 1 created, 1 changed; the conversation moves there. Undo puts everything back');
    mock.quickPick = pickInOrder('Cancel', undefined);
    assert.equal(await decideRestore(p, 'T', false, 0), undefined);
    assert.equal(await decideRestore(p, 'T', false, 0), undefined, 'dismissed');
    assert.equal(mock.quickPicks.length, 3);
    assert.ok(
      mock.quickPicks.every((q) => q.disposed),
      'every pick is disposed',
    );
  });

  it('conflicts: one answer for all of them, or one per file with merge where both sides are files', async () => {
    const p = plan([item('a.txt', 'conflict'), item('b.txt', 'modify'), item('gone.txt', 'conflict', { target: ABSENT })]);
    mock.quickPick = pickInOrder('Restore, keep my 2 changed files');
    assert.deepEqual(await decideRestore(p, 'T', false, 0), {
      restore: new Map([
        ['a.txt', 'mine'],
        ['gone.txt', 'mine'],
      ]),
    });
    assert.deepEqual(offered(), ['Restore, keep my 2 changed files', "Restore, take the node's version of them", 'Choose per file…', 'Cancel']);
    mock.quickPick = pickInOrder("Restore, take the node's");
    assert.deepEqual(await decideRestore(p, 'T', false, 0), {
      restore: new Map([
        ['a.txt', 'theirs'],
        ['gone.txt', 'theirs'],
      ]),
    });
    mock.picks = [];
    mock.quickPick = pickInOrder('Choose per file', 'Merge', 'Take the node');
    assert.deepEqual(await decideRestore(p, 'T', false, 0), {
      restore: new Map([
        ['a.txt', 'merge'],
        ['gone.txt', 'theirs'],
      ]),
    });
    assert.deepEqual(offered(1), ['Keep mine', 'Take the node’s', 'Merge']);
    assert.deepEqual(offered(2), ['Keep mine', 'Take the node’s'], 'no merge with a file absent at the node');
    assert.equal(mock.picks[2].items[1].detail, 'Delete the file, which did not exist at the node (Undo gives yours back)', 'said as what happens to it');
    assert.equal(mock.picks[1].items[1].detail, 'Write the file as it was at the node (Undo gives yours back)');
    assert.deepEqual(
      mock.picks.slice(1).map((q) => q.placeholder),
      ['a.txt', 'gone.txt'],
    );
  });

  it('one conflict is "it", named with what taking the node does', async () => {
    const p = plan([item('gone.txt', 'conflict', { target: ABSENT }), item('b.txt', 'modify')]);
    mock.quickPick = pickInOrder('Cancel');
    await decideRestore(p, 'T', false, 0);
    assert.deepEqual(offered(), ['Restore, keep my changed file', "Restore, take the node's version of it", 'Choose per file…', 'Cancel']);
    assert.equal(mock.picks[0].items[1].detail, 'gone.txt: delete the file, which did not exist at the node; Undo gives yours back');
    assert.equal(mock.picks[0].title, 'T? 2 files: 1 changed, 1 deleted; 1 you changed since');
  });

  it('dismissing one file of "Choose per file…" restores nothing', async () => {
    const p = plan([item('a.txt', 'conflict'), item('c.txt', 'conflict')]);
    mock.quickPick = pickInOrder('Choose per file', 'Keep mine', undefined);
    assert.equal(await decideRestore(p, 'T', false, 0), undefined);
  });

  it('a paged preview offers the rest of its files', async () => {
    const p = plan([item('a.txt', 'modify'), item('b.txt', 'modify'), item('c.txt', 'modify')]);
    mock.quickPick = pickInOrder('Preview all 3 files');
    assert.equal(await decideRestore(p, 'T', false, 1), 'previewAll');
    assert.equal(mock.picks[0].items.find((i) => i.label.includes('Preview all'))!.description, 'the first 2 are shown');
  });

  it('rows that only inform (files left as they are, notes) leave the pick open', async () => {
    const p = plan([item('a.txt', 'modify'), item('made.txt', 'unrestorable', { reason: 'made by bash, no checkpoint' })], ['1 file was too large to capture']);
    mock.quickPick = pickInOrder('made.txt', '1 file was too large', 'Restore');
    assert.deepEqual(await decideRestore(p, 'T', false, 0), { restore: new Map() });
    assert.deepEqual(offered(), ['Restore', 'Cancel', '---', 'made.txt', '1 file was too large to capture']);
    assert.equal(mock.picks.length, 3, 'asked until a row with a choice was accepted');
    assert.equal(mock.picks[0].title, 'T? 1 file changed');
  });
});
