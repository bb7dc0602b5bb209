// The text pi-tree feeds to models and stores in files, checked against literal expectations
// (test/interop/summary.test.ts checks the same functions against pi itself).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  computeFileLists,
  createFileOps,
  estimateTokens,
  extractFileOpsFromMessage,
  formatFileOperations,
  getCurrentSystemMessage,
  serializeConversation,
} from '../../../src/core/summary/index.js';

test('serializeConversation', () => {
  const text = serializeConversation([
    {
      role: 'user',
      content: [
        { type: 'text', text: 'a' },
        { type: 'image', data: '', mimeType: 'image/png' },
        { type: 'text', text: 'b' },
      ],
    },
    { role: 'user', content: '' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hidden' },
        { type: 'text', text: 'one' },
        { type: 'toolCall', id: '1', name: 'edit', arguments: { path: 'p.ts', n: 2, o: { k: [1] } } },
        { type: 'text', text: 'two' },
        { type: 'toolCall', id: '2', name: 'ls', arguments: {} },
      ],
    },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'only thinking' }] },
    { role: 'toolResult', content: [{ type: 'text', text: `${'x'.repeat(1999)}🌳tail` }] },
    { role: 'toolResult', content: [{ type: 'text', text: 'short' }] },
    { role: 'system', content: 'never' },
  ]);
  assert.equal(
    text,
    [
      '[User]: ab',
      '[Assistant]: one\ntwo',
      '[Assistant tool calls]: edit(path="p.ts", n=2, o={"k":[1]}); ls()',
      `[Tool result]: ${'x'.repeat(1999)}\n\n[... 5 more characters truncated]`,
      '[Tool result]: short',
    ].join('\n\n'),
  );
});

test('estimateTokens', () => {
  assert.equal(
    estimateTokens({
      role: 'user',
      content: [
        { type: 'text', text: 'abcde' },
        { type: 'image', data: '', mimeType: 'x' },
      ],
    }),
    Math.ceil(4805 / 4),
  );
  assert.equal(
    estimateTokens({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'abcd' },
        { type: 'toolCall', id: 'i', name: 'ab', arguments: { a: 1 } },
      ],
    }),
    Math.ceil((4 + 2 + 7) / 4),
  );
  assert.equal(estimateTokens({ role: 'bashExecution', command: 'ls', output: 'abcdef' }), 2);
  assert.equal(
    estimateTokens({ role: 'system', content: 'abcd', sections: { a: 'xy', b: null }, toolsAdded: [{ name: 'r' }] }),
    Math.ceil((4 + 2 + 14) / 4),
  );
  assert.equal(estimateTokens({ role: 'branchSummary', summary: 'abcdefghi' }), 3);
  assert.equal(estimateTokens({ role: 'mystery', content: 'abcdefgh' }), 0);
});

test('getCurrentSystemMessage replays content, sections and tools', () => {
  assert.equal(getCurrentSystemMessage([{ role: 'user', content: 'x' }]), undefined);
  assert.deepEqual(
    getCurrentSystemMessage([
      {
        role: 'system',
        content: 'base',
        sections: { a: '1', b: '2' },
        toolsAdded: [{ name: 'read' }, { name: 'bash' }],
        timestamp: 5,
      },
      { role: 'user', content: 'x' },
      {
        role: 'system',
        content: [{ type: 'text', text: 'more' }],
        sections: { a: null, c: '3' },
        toolsRemoved: [{ name: 'read' }],
        toolsAdded: [{ name: 'bash', v: 2 }],
        timestamp: 9,
      },
    ]),
    {
      role: 'system',
      content: 'base\n\nmore',
      sections: { b: '2', c: '3' },
      toolsAdded: [{ name: 'bash', v: 2 }],
      timestamp: 5,
    },
  );
});

test('file lists: read minus modified, sorted; tags exact', () => {
  const ops = createFileOps();
  extractFileOpsFromMessage(
    {
      role: 'assistant',
      content: [
        { type: 'toolCall', id: '1', name: 'read', arguments: { path: 'b.ts' } },
        { type: 'toolCall', id: '2', name: 'read', arguments: { path: 'a.ts' } },
        { type: 'toolCall', id: '3', name: 'edit', arguments: { path: 'a.ts' } },
        { type: 'toolCall', id: '4', name: 'bash', arguments: { path: 'ignored' } },
        { type: 'toolCall', id: '5', name: 'write', arguments: { path: 42 } },
      ],
    },
    ops,
  );
  extractFileOpsFromMessage(
    { role: 'toolResult', nestedCalls: { calls: [{ name: 'write', arguments: { path: 'Z.ts' } }] } },
    ops,
  );
  const lists = computeFileLists(ops);
  assert.deepEqual(lists, { readFiles: ['b.ts'], modifiedFiles: ['Z.ts', 'a.ts'] });
  assert.equal(
    formatFileOperations(lists.readFiles, lists.modifiedFiles),
    '\n\n<read-files>\nb.ts\n</read-files>\n\n<modified-files>\nZ.ts\na.ts\n</modified-files>',
  );
  assert.equal(formatFileOperations([], []), '');
});
