// Lines pi 1.6.0 reads that pi-tree once failed on (found by fuzzing the CLI): each reads as pi reads
// it, or fails where pi fails, with a message that says why.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Session } from '../../src/core/session/session.js';
import { RowFacts } from '../../src/cli/tree/rowFacts.js';
import { noteRows } from '../../src/cli/tree/rowNotes.js';
import { streamTree } from '../../src/cli/tree/treeText.js';
import { piOpenCopy } from '../support/pi.js';
import { assistant, entry, sessionText, tempFile, user } from '../support/tmp.js';

/** The tree's rows as `pi-tree tree` reads them (the facts noted while the file is read). */
async function treeRows(file: string): Promise<string[]> {
  const noted = new RowFacts();
  const s = await Session.open(file, { onMessageLine: noteRows(noted) });
  const rows: string[] = [];
  await streamTree(s, 'all', (r) => rows.push(`${r.prefix}${r.marker}${r.text()}`), undefined, noted);
  return rows;
}

describe('interop with pi 1.6.0: odd lines', () => {
  it('a line that starts with whitespace (JSON.parse takes it): the same context as pi, and the tree shows it', async () => {
    const text = sessionText([user('u1', null, 'first'), assistant('a1', 'u1', 'answer'), user('u2', 'a1', 'second')])
      .split('\n')
      .map((l, k) => (k === 2 ? ` \t${l}` : k === 3 ? `  ${l}` : l))
      .join('\n');
    const file = tempFile(text);
    const ours = await Session.open(file);
    const { sm } = await piOpenCopy(file);
    assert.equal(
      JSON.stringify((await ours.buildContext(ours.leafId)).messages),
      JSON.stringify(sm.buildSessionContext().messages),
    );
    assert.equal((await ours.buildContext(ours.leafId)).messages.length, 3);
    assert.deepEqual(await treeRows(file), ['• user: first', '• assistant: answer', '• user: second  ← active']);
  });

  it('a label whose target is null or absent labels nothing, as in pi, and the tree still draws', async () => {
    const file = tempFile(
      sessionText([
        user('u1', null, 'hi'),
        entry('label', 'l1', 'u1', { targetId: null, label: 'x' }),
        entry('label', 'l2', 'l1', { label: 'y' }),
        entry('label', 'l3', 'l2', { targetId: 'u1', label: 'real' }),
      ]),
    );
    const ours = await Session.open(file);
    const { sm } = await piOpenCopy(file);
    assert.equal(sm.getLabel('u1'), 'real');
    assert.deepEqual([...ours.index.labels.keys()], ['u1']);
    assert.equal(ours.index.labels.get('u1')?.label, 'real');
    const rows = await treeRows(file);
    assert.ok(
      rows.some((r) => r.includes('[real] user: hi')),
      rows.join('\n'),
    );
  });

  it('a context edit without a replacement: pi cannot build that context, and pi-tree says why', async () => {
    const file = tempFile(sessionText([user('u1', null, 'hi'), entry('context_edit', 'e1', 'u1', { targetId: 'u1' })]));
    const { sm } = await piOpenCopy(file);
    assert.throws(() => sm.buildSessionContext(), TypeError);
    const ours = await Session.open(file);
    await assert.rejects(() => ours.buildContext(ours.leafId), /context edit e1 of entry u1 has no replacement/);
  });
});
