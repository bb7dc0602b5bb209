// A small hand-made session whose shape the browser tests know exactly.
import type { NodeView } from '../../src/protocol';

let t = Date.UTC(2026, 10, 20, 9, 0, 0);
function n(
  id: string,
  parentId: string | null,
  kind: NodeView['kind'],
  text: string,
  extra: Partial<NodeView> = {},
): NodeView {
  t += 60_000;
  const type =
    kind === 'model'
      ? 'model_change'
      : kind === 'branchSummary'
        ? 'branch_summary'
        : kind === 'compaction'
          ? 'compaction'
          : 'message';
  const role = type === 'message' ? (kind === 'bash' ? 'bashExecution' : kind) : undefined;
  return { id, parentId, type, ...(role ? { role } : {}), kind, text, time: t, ...extra };
}

/**
 * m0 ─ u1 ─ a1 ─┬─ u2[start] ─ a2(tools only) ─ r2 ─ a3 ─ u3 ─ a4 (leaf)
 *               └─ u4 ─ a5 ─ bs ─ x1 (hostile text)
 */
export function smallSession(): { nodes: NodeView[]; leafId: string } {
  t = Date.UTC(2026, 10, 20, 9, 0, 0);
  const nodes = [
    n('m0000000', null, 'model', '[model: claude-x]'),
    n('u1000000', 'm0000000', 'user', 'user: hello world'),
    n('a1000000', 'u1000000', 'assistant', 'assistant: Hi there, how can I help?', { model: 'claude-x', tokens: 1200 }),
    n('u2000000', 'a1000000', 'user', 'user: fix the parser please', { label: 'start' }),
    n('a2000000', 'u2000000', 'assistant', '', { noText: true, tools: ['read'], files: ['src/a.ts'] }),
    n('r2000000', 'a2000000', 'toolResult', '[read: src/a.ts]', { tools: ['read'], files: ['src/a.ts'] }),
    n('a3000000', 'r2000000', 'assistant', 'assistant: Fixed the parser bug', {
      model: 'claude-x',
      tokens: 3000,
      cost: 0.02,
    }),
    n('u3000000', 'a3000000', 'user', 'user: now add tests'),
    n('a4000000', 'u3000000', 'assistant', 'assistant: Tests added', { model: 'claude-x' }),
    n('u4000000', 'a1000000', 'user', 'user: try an alternative approach'),
    n('a5000000', 'u4000000', 'assistant', 'assistant: Alternative done'),
    n('bs000000', 'a5000000', 'branchSummary', '[branch summary]: explored the alternative', { files: ['src/alt.ts'] }),
    n(
      'x1000000',
      'bs000000',
      'user',
      'user: <script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> [click](javascript:window.__pwned=3)',
    ),
  ];
  return { nodes, leafId: 'a4000000' };
}

export const HOSTILE_MARKDOWN = [
  'Hello <script>window.__pwned = "script"</script>',
  '<img src=x onerror="window.__pwned=\'img\'">',
  "[js link](javascript:window.__pwned='js') and [data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  '[safe link](https://example.com/docs)',
  '![svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+)',
  '![png](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)',
  '<a href="javascript:window.__pwned=\'a\'">raw anchor</a> <iframe src="https://example.com"></iframe>',
  '`<b>code</b>` and **bold**',
].join('\n\n');
