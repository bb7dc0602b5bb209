// Deterministic (seeded) NodeView arrays shaped like real pi sessions: long chains of user → assistant
// (tool calls) → tool results, a given share of branch points (a jump back to an earlier entry and a new
// continuation there, sometimes with a branch summary), a few compactions, labels and settings entries.
// Used by the webview tests and by bench/webview.ts.
import type { NodeView } from '../../../src/protocol';

import { mulberry32 } from '../../support/generate';
export { mulberry32 };

export interface GenOptions {
  n: number;
  /** Share of entries after which the session jumps back and branches (0.01–0.05 is realistic). */
  branchRate?: number;
  seed?: number;
  labels?: number;
  compactions?: number;
}

export interface GenSession {
  nodes: NodeView[];
  leafId: string;
}

const WORDS =
  'the a fix test build parser tree node leaf branch summary file read write edit bash grep model token cost layout render session context label fork clone move segment chain depth width'.split(
    ' ',
  );
const FILES = [
  'src/core/reader.ts',
  'src/host/panel.ts',
  'webview/main.ts',
  'README.md',
  'package.json',
  'test/core/reader.test.ts',
  'src/protocol.ts',
];
const TOOLS = ['read', 'edit', 'bash', 'write', 'grep', 'ls'];

export function genSession(o: GenOptions): GenSession {
  const rnd = mulberry32(o.seed ?? 1);
  const branchRate = o.branchRate ?? 0.02;
  const ids = new Set<string>();
  const nodes: NodeView[] = [];
  let time = Date.UTC(2026, 10, 1);
  const newId = () => {
    for (;;) {
      const id = Math.floor(rnd() * 0xffffffff)
        .toString(16)
        .padStart(8, '0');
      if (!ids.has(id)) {
        ids.add(id);
        return id;
      }
    }
  };
  const words = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
  // The current chain (ids from root to tip) so that a branch can jump back along it.
  const chain: string[] = [];
  const add = (v: Omit<NodeView, 'id' | 'parentId' | 'time'>): NodeView => {
    time += 1000 + Math.floor(rnd() * 20000);
    const node: NodeView = { id: newId(), parentId: chain.length ? chain[chain.length - 1] : null, time, ...v };
    nodes.push(node);
    chain.push(node.id);
    return node;
  };
  const labelEvery = o.labels ? Math.max(1, Math.floor(o.n / o.labels)) : Math.max(50, Math.floor(o.n / 200));
  const compactEvery = o.compactions
    ? Math.max(1, Math.floor(o.n / (o.compactions + 1)))
    : Math.max(500, Math.floor(o.n / 4));
  add({ type: 'model_change', kind: 'model', text: '[model: claude-x]', model: 'claude-x' });
  add({ type: 'thinking_level_change', kind: 'thinking', text: '[thinking: high]' });
  let step = 0;
  while (nodes.length < o.n) {
    step++;
    if (chain.length > 8 && rnd() < branchRate * 6) {
      // Jump back (as /tree does) and continue from there: mostly a few entries, now and then far.
      const far = rnd() < 0.05;
      const want = far ? 2 + Math.floor(rnd() * 300) : 2 + Math.floor(-Math.log(1 - rnd()) * 8);
      const back = Math.min(chain.length - 3, want);
      chain.length = chain.length - back;
      if (rnd() < 0.3 && nodes.length < o.n) {
        add({
          type: 'branch_summary',
          kind: 'branchSummary',
          text: `[branch summary]: ${words(12)}`,
          files: [FILES[step % FILES.length]],
        });
      }
    }
    if (nodes.length >= o.n) break;
    add({ type: 'message', role: 'user', kind: 'user', text: `user: ${words(6 + Math.floor(rnd() * 20))}` });
    const rounds = 1 + Math.floor(rnd() * 4);
    for (let r = 0; r < rounds && nodes.length < o.n; r++) {
      const tool = TOOLS[Math.floor(rnd() * TOOLS.length)];
      const file = FILES[Math.floor(rnd() * FILES.length)];
      const toolOnly = rnd() < 0.6;
      add({
        type: 'message',
        role: 'assistant',
        kind: 'assistant',
        text: toolOnly ? '' : `assistant: ${words(10)}`,
        noText: toolOnly || undefined,
        tools: [tool],
        files: [file],
        model: 'claude-x',
        tokens: 1000 + Math.floor(rnd() * 50000),
        cost: Math.round(rnd() * 1000) / 10000,
      });
      if (nodes.length >= o.n) break;
      add({
        type: 'message',
        role: 'toolResult',
        kind: 'toolResult',
        text: `[${tool}: ${file}]`,
        tools: [tool],
        files: [file],
      });
    }
    if (nodes.length >= o.n) break;
    add({
      type: 'message',
      role: 'assistant',
      kind: 'assistant',
      text: `assistant: ${words(15)}`,
      model: 'claude-x',
      tokens: 2000,
      cost: 0.01,
    });
    if (step % 97 === 0 && nodes.length < o.n) add({ type: 'usage', kind: 'usage', text: '' });
    if (step % 61 === 0 && nodes.length < o.n)
      add({ type: 'message', role: 'bashExecution', kind: 'bash', text: `[bash]: npm test ${words(2)}` });
    if (nodes.length % compactEvery < 8 && nodes.length > 100 && nodes.length < o.n) {
      add({ type: 'compaction', kind: 'compaction', text: `[compaction: ${Math.floor(rnd() * 180)}k tokens]` });
    }
    if (step % Math.max(1, Math.floor(labelEvery / 6)) === 0 && nodes.length < o.n) {
      const target = nodes[nodes.length - 2 - Math.floor(rnd() * 4)] ?? nodes[0];
      target.label = `mark-${step}`;
      add({ type: 'label', kind: 'label', text: `[label: mark-${step}]` });
    }
  }
  return { nodes, leafId: chain[chain.length - 1] };
}
