// How titles, the asks and the variants view name a node (describeEntry): by its text, an answer that
// only calls tools by its calls as the tree's row shows them, never by a bare id while there is
// something to say.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Session } from '../../../src/core/session/session.js';
import { describeEntry } from '../../../src/host/checkpoints/entryWords.js';
import { SessionBuilder } from '../../support/sessionBuilder.js';

it('names a node by its text, an answer without text by its tool calls', async () => {
  const b = new SessionBuilder();
  const asked = b.user('write the app');
  const calling = b.assistant({ calls: [{ name: 'write', args: { path: 'src/app.ts', content: 'x' } }] });
  b.toolResult(`call_${calling}`, 'write', 'ok');
  const answered = b.assistant({ text: 'app written' });
  const empty = b.assistant({});
  const s = await Session.open(b.write());
  assert.equal(await describeEntry(s, asked), 'the message \u201cwrite the app\u201d');
  assert.equal(await describeEntry(s, answered), 'the answer \u201capp written\u201d');
  assert.equal(await describeEntry(s, calling), 'the answer [write: src/app.ts]');
  assert.equal(await describeEntry(s, empty), `the answer ${empty}`, 'nothing else to name it by');
});
