// The restore's decision (decideRestore) against the vscode mock: a notification beside the preview
// (never a pick over it) with the same choices in the status bar; what each resolves to, conflicts
// decided for all at once or file by file (a notification per file, as beside the preview; merge offered
// only where both sides are files), "Preview all" for a paged preview, what is left as it is said in the
// question, and a closed preview cancelling the question. The plans are made by
// hand: the decision reads only their items and notes.
import '../../support/vscode/install.js';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { until } from '../../../scripts/lib/until.js';
import type { PlanAction, PlanItem, RestorePlan, SideInfo } from '../../../src/core/checkpoints/restore/restorePlan.js';
import { decideRestore } from '../../../src/host/checkpoints/restoreChoice.js';
import { answerInOrder, commands, mock } from '../../support/vscode/api.js';

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

describe('the restore decision (vscode mock)', () => {
  beforeEach(() => mock.reset());
  const CHOICE = /^(T|Restore the code at X)\?/;
  const PER_FILE = /^File \d of \d: /;
  /** The choice as the user met it: the notification's message and buttons, and the status bar's items. */
  const asked = (n = -1) => mock.shown.filter((s) => CHOICE.test(s.message)).at(n)!;

  it('without conflicts: Restore writes with no resolutions; Cancel and closing write nothing; no pick covers the preview', async () => {
    const p = plan([item('a.txt', 'modify'), item('b.txt', 'create', { now: ABSENT })]);
    answerInOrder(CHOICE, 'Restore');
    const d = await decideRestore(p, 'Restore the code at X', true, 0);
    assert.deepEqual(d, { restore: new Map() });
    assert.deepEqual(asked().items, ['Restore', 'Cancel']);
    assert.equal(
      asked().message,
      'Restore the code at X? 2 files: 1 created, 1 changed; the conversation moves there. Undo puts everything back.',
    );
    assert.equal(asked().modal, undefined, 'a notification, not a modal dialog');
    assert.equal(mock.picks.length + mock.quickPicks.length, 0, 'no quick pick over the preview');
    answerInOrder(CHOICE, 'Cancel', undefined);
    assert.equal(await decideRestore(p, 'T', false, 0), undefined);
    assert.equal(await decideRestore(p, 'T', false, 0), undefined, 'closed');
  });

  it('the same choices wait in the status bar, and one clicked there decides; all go once decided', async () => {
    const p = plan([item('a.txt', 'modify')]);
    mock.answer = () => new Promise<never>(() => undefined) as never; // the notification folded away, never answered
    const decided = decideRestore(p, 'T', false, 0);
    await until(
      () => (mock.statusItems.filter((i) => i.shown).length === 2 ? true : undefined),
      5000,
      'the status bar choices',
    );
    const items = mock.statusItems.filter((i) => i.shown);
    assert.deepEqual(
      items.map((i) => i.text),
      ['$(check) Restore', '$(close) Cancel'],
    );
    assert.equal(items[0].accessibilityInformation?.role, 'button');
    assert.equal(mock.contexts.get('piTree.restoreChoiceOpen'), true);
    await commands.executeCommand(items[0].command!.command);
    assert.deepEqual(await decided, { restore: new Map() });
    assert.ok(mock.statusItems.every((i) => i.disposed));
    assert.equal(mock.contexts.get('piTree.restoreChoiceOpen'), false);
    assert.ok(!mock.commands.has(items[0].command!.command), 'its commands go with it');
  });

  it('conflicts: one answer for all of them, or one per file with merge where both sides are files', async () => {
    const p = plan([
      item('a.txt', 'conflict'),
      item('b.txt', 'modify'),
      item('gone.txt', 'conflict', { target: ABSENT }),
    ]);
    answerInOrder(CHOICE, 'Keep Mine', 'Take the Node’s', 'Choose per File…');
    assert.deepEqual(await decideRestore(p, 'T', false, 0), {
      restore: new Map([
        ['a.txt', 'mine'],
        ['gone.txt', 'mine'],
      ]),
    });
    assert.deepEqual(asked().items, ['Keep Mine', 'Take the Node’s', 'Choose per File…', 'Cancel']);
    assert.match(asked().message, /You changed 2 of them since: keep them, or take the node’s\?$/);
    assert.deepEqual(await decideRestore(p, 'T', false, 0), {
      restore: new Map([
        ['a.txt', 'theirs'],
        ['gone.txt', 'theirs'],
      ]),
    });
    answerInOrder(PER_FILE, 'Merge', 'Take the Node’s');
    const statusFrom = mock.statusItems.length;
    assert.deepEqual(await decideRestore(p, 'T', false, 0), {
      restore: new Map([
        ['a.txt', 'merge'],
        ['gone.txt', 'theirs'],
      ]),
    });
    const perFile = mock.shown.filter((s) => PER_FILE.test(s.message));
    assert.deepEqual(
      perFile.map((s) => s.items),
      [
        ['Keep Mine', 'Take the Node’s', 'Merge', 'Cancel'],
        ['Keep Mine', 'Take the Node’s', 'Cancel'],
      ],
      'no merge with a file absent at the node',
    );
    assert.deepEqual(
      perFile.map((s) => s.message),
      [
        'File 1 of 2: a.txt (changed since the latest checkpoint): keep yours, or take the node’s?',
        'File 2 of 2: gone.txt (changed since the latest checkpoint): keep yours, or take the node’s?',
      ],
    );
    assert.ok(
      perFile.every((s) => s.modal === undefined),
      'notifications, not modal dialogs',
    );
    assert.equal(mock.picks.length + mock.quickPicks.length, 0, 'no quick pick over the preview');
    // Each file's choices wait in the status bar too, said as what happens to that file.
    const tips = mock.statusItems
      .slice(statusFrom)
      .filter((i) => i.text.includes('Take'))
      .map((i) => i.tooltip);
    assert.deepEqual(tips.slice(-2), [
      'a.txt: write the file as it was at the node (Undo gives yours back)',
      'gone.txt: delete the file, which did not exist at the node (Undo gives yours back)',
    ]);
  });

  it(
    'closing the preview cancels the question (the whole restore or one file of it): nothing decided',
    { timeout: 30_000 },
    async () => {
      const p = plan([item('a.txt', 'conflict'), item('c.txt', 'conflict')]);
      mock.answer = () => new Promise<never>(() => undefined) as never; // the notification folded away
      for (const perFileToo of [false, true]) {
        const closed = new AbortController();
        if (perFileToo) answerInOrder(CHOICE, 'Choose per File…');
        const decided = decideRestore(p, 'T', false, 0, undefined, closed.signal);
        await until(
          () => (mock.shown.some((s) => (perFileToo ? PER_FILE : CHOICE).test(s.message)) ? true : undefined),
          5000,
          'the question',
        );
        closed.abort();
        assert.equal(await decided, undefined);
        assert.ok(
          mock.statusItems.every((i) => i.disposed),
          'its status bar choices go',
        );
        mock.shown = [];
      }
    },
  );

  it('one conflict is "it", named with what taking the node does', async () => {
    const p = plan([item('gone.txt', 'conflict', { target: ABSENT }), item('b.txt', 'modify')]);
    answerInOrder(CHOICE, 'Cancel');
    await decideRestore(p, 'T', false, 0);
    assert.equal(
      asked().message,
      'T? 2 files: 1 changed, 1 deleted; 1 you changed since. Undo puts everything back. You changed gone.txt since: keep it, or take the node’s?',
    );
    const tips = mock.statusItems.map((i) => i.tooltip);
    assert.equal(
      tips[1],
      'Restore; gone.txt: delete the file, which did not exist at the node (Undo gives yours back)',
    );
  });

  it('dismissing one file of "Choose per file…" restores nothing', async () => {
    const p = plan([item('a.txt', 'conflict'), item('c.txt', 'conflict')]);
    answerInOrder(CHOICE, 'Choose per File…');
    answerInOrder(PER_FILE, 'Keep Mine', undefined);
    assert.equal(await decideRestore(p, 'T', false, 0), undefined);
  });

  it('a paged preview offers the rest of its files', async () => {
    const p = plan([item('a.txt', 'modify'), item('b.txt', 'modify'), item('c.txt', 'modify')]);
    answerInOrder(CHOICE, 'Preview All 3 Files');
    assert.equal(await decideRestore(p, 'T', false, 1), 'previewAll');
    assert.equal(
      mock.statusItems.find((i) => i.text.includes('Preview All'))!.tooltip,
      'The preview shows the first 2',
    );
  });

  it('what is left as it is, and the notes, are said in the question', async () => {
    const p = plan(
      [item('a.txt', 'modify'), item('made.txt', 'unrestorable', { reason: 'made by bash, no checkpoint' })],
      ['1 file was too large to capture'],
    );
    answerInOrder(CHOICE, 'Restore');
    assert.deepEqual(await decideRestore(p, 'T', false, 0), { restore: new Map() });
    assert.equal(
      asked().message,
      'T? 1 file changed. Undo puts everything back. Left as they are: made.txt (made by bash, no checkpoint); 1 file was too large to capture.',
    );
  });
});
