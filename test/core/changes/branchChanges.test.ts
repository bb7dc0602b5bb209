// Whether a change failed is what its tool result's own "isError" says, read as JSON.parse reads the
// line: spacing, escapes, key order, repeated keys and an "isError" nested in the details do not fool it.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { changesOnPath } from '../../../src/core/changes/branchChanges.js';
import { Session } from '../../../src/core/session/session.js';
import { assistant, sessionText, tempFile, user } from '../../support/tmp.js';

const HEAD = (id: string, parentId: string) =>
  `{"type":"message","id":"${id}","parentId":"${parentId}","timestamp":"2026-01-01T00:00:01.000Z","message":`;
/** A tool result line for call `callIdJson` (its JSON text), the message's body written by hand. */
const result = (id: string, parentId: string, body: string) =>
  `${HEAD(id, parentId)}{"role":"toolResult",${body},"timestamp":3}}`;

it('failed changes: the tool result’s own isError, however the line is written', async () => {
  const cases: [string, string, boolean][] = [
    ['plain', '"toolCallId":"t","toolName":"edit","content":[{"type":"text","text":"ok"}],"isError":true', true],
    ['a space after the colon', '"toolCallId":"t","toolName":"edit","content":[],"isError": true', true],
    ['an escaped id', '"toolCallId":"\\u0074","toolName":"edit","content":[],"isError":true', true],
    ['isError first', '"isError":true,"toolCallId":"t","toolName":"edit","content":[]', true],
    [
      'false, with a nested true in its details',
      '"toolCallId":"t","toolName":"edit","content":[],"details":{"isError":true},"isError":false',
      false,
    ],
    [
      'repeated: the last one counts',
      '"toolCallId":"t","toolName":"edit","content":[],"isError":true,"isError":false',
      false,
    ],
    [
      'a long output with escaped quotes and backslashes',
      `"toolCallId":"t","toolName":"edit","content":[{"type":"text","text":${JSON.stringify(`${'x'.repeat(70)}"\\\\"${'\\'.repeat(5)}"}],"isError":false,`.repeat(20))}}],"isError":true`,
      true,
    ],
    ['an escaped key', '"toolCallId":"t","toolName":"edit","content":[],"is\\u0045rror":true', true],
    ['no isError', '"toolCallId":"t","toolName":"edit","content":[]', false],
  ];
  for (const [what, body, failed] of cases) {
    const call = { type: 'toolCall', id: 't', name: 'edit', arguments: { path: 'a.txt', oldText: 'a', newText: 'b' } };
    const a = {
      ...assistant('a1', 'u1', ''),
      message: { role: 'assistant', content: [call], provider: 'p', model: 'm', stopReason: 'toolUse', timestamp: 2 },
    };
    const line = result('r1', 'a1', body);
    assert.equal(
      (JSON.parse(line) as { message: { isError?: unknown } }).message.isError === true,
      failed,
      `${what}: the case says what JSON.parse says`,
    );
    const s = await Session.open(tempFile(`${sessionText([user('u1', null, 'go'), a])}${line}\n`));
    const changes = await changesOnPath(s, s.index.branch('r1'));
    assert.deepEqual(
      changes.map((c) => c.changes.map((x) => [x.path, x.failed ?? false])),
      [[['a.txt', failed]]],
      what,
    );
  }
});
