// pi's /tree filter (src/shared/treeFilter.ts): the rule on NodeViews as the webview applies it, and the
// CLI's view of stored entries (core/treeView isVisible) agreeing with it entry by entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeView } from '../../src/protocol';
import { FILTER_MODES, isFilterMode, nextFilter, passesFilter, type FilterMode } from '../../src/shared/treeFilter';
import { isVisible } from '../../src/cli/tree/treeText';
import { Session } from '../../src/core/session/session';
import { projectAll } from '../../src/host/projection/projection';
import { generateSession } from '../support/generate';
import { assistant, entry, sessionText, user } from '../support/tmp';

let clock = 1000;
function nv(id: string, parentId: string | null, extra: Partial<NodeView> = {}): NodeView {
  return { id, parentId, type: 'message', role: 'user', kind: 'user', text: `user: ${id}`, time: clock++, ...extra };
}
const asst = (id: string, p: string | null, extra: Partial<NodeView> = {}) =>
  nv(id, p, { role: 'assistant', kind: 'assistant', text: `assistant: ${id}`, ...extra });

test('filters follow pi 1.6.0 /tree rules', () => {
  const u = nv('u', null);
  const a = asst('a', 'u');
  const toolOnly = asst('t', 'a', { noText: true, text: '' });
  const toolOnlyErr = asst('e', 'a', { noText: true, error: true, text: '' });
  const tr = nv('r', 't', { role: 'toolResult', kind: 'toolResult', text: '[read: x]' });
  const usage: NodeView = { id: 'g', parentId: 'r', type: 'usage', kind: 'usage', text: '', time: 1 };
  const label: NodeView = { id: 'l', parentId: 'r', type: 'label', kind: 'label', text: '[label: x]', time: 1 };
  const model: NodeView = { id: 'm', parentId: 'r', type: 'model_change', kind: 'model', text: '[model: x]', time: 1 };
  const leafRec: NodeView = { id: 'j', parentId: 'r', type: 'leaf', kind: 'leaf', text: '', time: 1 };
  const comp: NodeView = {
    id: 'k',
    parentId: 'r',
    type: 'compaction',
    kind: 'compaction',
    text: '[compaction: 3k tokens]',
    time: 1,
  };
  const labelled = { ...a, id: 'L', label: 'start' };
  const show = (n: NodeView, mode: FilterMode, leaf = false) => passesFilter(n, mode, leaf);
  for (const mode of FILTER_MODES) assert.equal(show(usage, mode), false, `usage hidden in ${mode}`);
  for (const mode of FILTER_MODES) assert.equal(show(toolOnly, mode), false, `text-less assistant hidden in ${mode}`);
  assert.equal(show(toolOnly, 'default', true), true, 'unless it is the current leaf');
  assert.equal(show(toolOnlyErr, 'default'), true, 'or ended with an error');
  assert.deepEqual(
    [u, a, tr, label, model, leafRec, comp].map((n) => show(n, 'default')),
    [true, true, true, false, false, false, true],
  );
  assert.deepEqual(
    [u, a, tr, label, model, comp].map((n) => show(n, 'no-tools')),
    [true, true, false, false, false, true],
  );
  assert.deepEqual(
    [u, a, tr, label, comp].map((n) => show(n, 'user-only')),
    [true, false, false, false, false],
  );
  assert.deepEqual(
    [u, labelled, comp].map((n) => show(n, 'labeled-only')),
    [false, true, false],
  );
  assert.deepEqual(
    [u, a, tr, label, model, leafRec, comp].map((n) => show(n, 'all')),
    [true, true, true, true, true, true, true],
  );
  assert.equal(nextFilter('default', 1), 'no-tools');
  assert.equal(nextFilter('default', -1), 'all');
  assert.equal(nextFilter('all', 1), 'default');
  assert.equal(isFilterMode('labeled-only'), true);
  assert.equal(isFilterMode('labelled'), false);
  assert.equal(isFilterMode('__proto__'), false);
});

/** Every entry of `s` in every mode: the CLI's verdict on the stored entry equals the webview's on its projection. */
async function assertSameVerdicts(s: Session): Promise<number> {
  const nodes = await projectAll(s.index, s.index.live(), s);
  let checked = 0;
  for (const n of nodes) {
    const e = await s.getEntry(n.id);
    assert.ok(e, n.id);
    for (const mode of FILTER_MODES) {
      const cli = isVisible(e, mode, s.leafId, s.index.labels.get(n.id)?.label);
      assert.equal(passesFilter(n, mode, n.id === s.leafId), cli, `${n.id} (${n.type}/${n.role ?? ''}) in ${mode}`);
      checked++;
    }
  }
  return checked;
}

test('the CLI (stored entries) and the webview (projected nodes) hide the same entries', async () => {
  const toolCall = [{ type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a.ts' } }];
  const s = await Session.inMemory(
    sessionText([
      user('u1', null, 'start'),
      assistant('a1', 'u1', '', { content: toolCall, stopReason: 'toolUse' }),
      entry('message', 'r1', 'a1', {
        message: {
          role: 'toolResult',
          toolCallId: 'c1',
          toolName: 'read',
          content: [{ type: 'text', text: 'x' }],
          isError: false,
          timestamp: 2,
        },
      }),
      assistant('a2', 'r1', '', { content: toolCall, stopReason: 'error', errorMessage: 'boom' }),
      assistant('a3', 'a2', '', { content: toolCall, stopReason: 'aborted' }),
      assistant('a4', 'a3', '', { content: toolCall, stopReason: 'length' }),
      assistant('a5', 'a4', 'visible text'),
      entry('label', 'l1', 'a5', { targetId: 'a5', label: 'here' }),
      entry('model_change', 'm1', 'l1', { provider: 'anthropic', modelId: 'x' }),
      entry('thinking_level_change', 'k1', 'm1', { thinkingLevel: 'high' }),
      entry('session_info', 's1', 'k1', { name: 'named' }),
      entry('custom', 'c1', 's1', { customType: 'ext', data: {} }),
      entry('custom_message', 'cm1', 'c1', { customType: 'ext', content: 'hello', display: true }),
      entry('compaction', 'p1', 'cm1', { summary: 'sum', firstKeptEntryId: 'a5', tokensBefore: 10 }),
      user('u2', 'p1', 'next'),
      assistant('a6', 'u2', '', { content: toolCall, stopReason: 'toolUse' }),
    ]),
  );
  assert.equal(s.leafId, 'a6', 'a text-less leaf is shown as the leaf');
  assert.equal(await assertSameVerdicts(s), 16 * FILTER_MODES.length);
  const g = generateSession({ seed: 5, entries: 1500, branchRate: 0.05, compactions: 2, labels: 6 });
  assert.ok((await assertSameVerdicts(await Session.inMemory(g.text))) > 1500 * FILTER_MODES.length);
});
