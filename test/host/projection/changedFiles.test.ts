// The projection marks what an entry's tool calls change (edit, write, files a bash command writes,
// moves or deletes), and names bash's files among `files` so that find's `file:` finds them; reads
// are files but not changes.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Session } from '../../../src/core/session/session.js';
import { projectAll } from '../../../src/host/projection/projection.js';
import { matchNode, parseQuery } from '../../../webview/model/findQuery.js';
import { assistant, entry, sessionText, user } from '../../support/tmp.js';

it('changed files: edit, write and bash-named files are changes; reads are files only; file: finds them', async () => {
  const calls = [
    { type: 'toolCall', id: 't1', name: 'read', arguments: { path: 'src/read.ts' } },
    {
      type: 'toolCall',
      id: 't2',
      name: 'edit',
      arguments: { path: 'src/a.ts', edits: [{ oldText: 'x', newText: 'y' }] },
    },
    { type: 'toolCall', id: 't3', name: 'write', arguments: { path: 'docs/new.md', content: '# new' } },
    { type: 'toolCall', id: 't4', name: 'bash', arguments: { command: 'npm run build > build.log && rm -f old.txt' } },
  ];
  const s = await Session.inMemory(
    sessionText([
      user('u1', null, 'go'),
      {
        ...assistant('a1', 'u1', ''),
        message: { role: 'assistant', content: calls, provider: 'p', model: 'm', stopReason: 'toolUse', timestamp: 1 },
      },
      {
        ...assistant('a2', 'a1', 'only reading'),
        message: {
          role: 'assistant',
          content: [calls[0]],
          provider: 'p',
          model: 'm',
          stopReason: 'toolUse',
          timestamp: 2,
        },
      },
      // the results of a1's calls (pi's default view hides a text-less assistant: the results carry the mark)
      entry('message', 'r2', 'a2', {
        message: {
          role: 'toolResult',
          toolCallId: 't2',
          toolName: 'edit',
          content: [{ type: 'text', text: 'ok' }],
          isError: false,
          timestamp: 3,
        },
      }),
      entry('message', 'r4', 'r2', {
        message: {
          role: 'toolResult',
          toolCallId: 't4',
          toolName: 'bash',
          content: [{ type: 'text', text: '' }],
          isError: false,
          timestamp: 4,
        },
      }),
      entry('message', 'r1', 'r4', {
        message: {
          role: 'toolResult',
          toolCallId: 't1',
          toolName: 'read',
          content: [{ type: 'text', text: 'x' }],
          isError: false,
          timestamp: 5,
        },
      }),
    ]),
  );
  const by = new Map((await projectAll(s.index, s.index.live(), s)).map((n) => [n.id, n]));
  assert.deepEqual(by.get('a1')!.changed, ['src/a.ts', 'docs/new.md', 'build.log', 'old.txt']);
  assert.deepEqual(by.get('a1')!.files, ['src/read.ts', 'src/a.ts', 'docs/new.md', 'build.log', 'old.txt']);
  assert.equal(by.get('a2')!.changed, undefined);
  assert.deepEqual(by.get('r2')!.changed, ['src/a.ts']);
  assert.deepEqual(by.get('r4')!.changed, ['build.log', 'old.txt']);
  assert.equal(by.get('r1')!.changed, undefined);
  assert.equal(matchNode(by.get('a1')!, parseQuery('file:build.log')), true);
  assert.equal(matchNode(by.get('a2')!, parseQuery('file:build.log')), false);
});
