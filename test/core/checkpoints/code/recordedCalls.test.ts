// The calls a session recorded are read once per session: the details pane asks for the code at every
// node it shows, and at 100k entries reading the path's messages again for each ask held the extension
// host's thread for about a second. A second ask reads no line; entries appended later are read alone.
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { it } from 'node:test';
import { callsOn } from '../../../../src/core/checkpoints/code/recordedCalls.js';
import type { EntryRecord } from '../../../../src/core/index/sessionIndex.js';
import { Session } from '../../../../src/core/session/session.js';
import { SessionBuilder } from '../../../support/sessionBuilder.js';

/** Counts the lines the session reads from its file. */
function countReads(session: Session): { lines: number } {
  const n = { lines: 0 };
  const visit = session.visitLines.bind(session);
  session.visitLines = (recs, fn, signal) => {
    n.lines += recs.length;
    return visit(recs, fn, signal);
  };
  return n;
}

it('the calls that may change files, with failures; read once, appended entries read alone', async () => {
  const b = new SessionBuilder({ cwd: '/home/u/proj' });
  b.user('make the parser');
  b.toolTurn(
    [
      { name: 'read', args: { path: 'a.ts' } },
      { name: 'write', args: { path: 'a.ts', content: 'one\n' } },
    ],
    ['old', 'ok'],
  );
  b.assistant({
    calls: [{ id: 'bad', name: 'edit', args: { path: 'a.ts', edits: [{ oldText: 'x', newText: 'y' }] } }],
  });
  b.message({
    role: 'toolResult',
    toolCallId: 'bad',
    toolName: 'edit',
    content: [{ type: 'text', text: 'no match' }],
    isError: true,
  });
  const file = b.write();
  const session = await Session.open(file);
  const reads = countReads(session);
  const path = (): EntryRecord[] => session.index.branch(session.leafId!);

  const first = await callsOn(session, path());
  assert.deepEqual(
    first.map((c) => [c.name, c.failed]),
    [
      ['write', false],
      ['edit', true],
    ],
    'read-only tools left out; the failed edit marked',
  );
  assert.ok(reads.lines > 0);
  const afterFirst = reads.lines;
  assert.deepEqual(await callsOn(session, path()), first, 'the same answer');
  assert.equal(reads.lines, afterFirst, 'no line read again');

  // pi appends a turn: only its two lines are read
  const more = new SessionBuilder({ cwd: '/home/u/proj' });
  more.at(session.leafId);
  (more as unknown as { n: number }).n = 100; // ids after the first builder's
  more.toolTurn([{ name: 'bash', args: { command: 'rm a.ts' } }], ['']);
  appendFileSync(file, more.entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
  await session.refresh();
  const second = await callsOn(session, path());
  assert.deepEqual(
    second.map((c) => c.name),
    ['write', 'edit', 'bash'],
  );
  assert.equal(reads.lines - afterFirst, 2, 'the new assistant message and its result');
});
