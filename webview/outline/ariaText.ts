// Screen-reader text: the names of rows (entries and segments) and how entries are named in
// announcements, built only from the projection (pure, unit-tested).
import type { NodeKind, NodeView } from '../../src/protocol';
import type { Item } from '../model/derive';
import type { TreeModel } from '../model/treeModel';
import { short, thousands } from '../ui/format';

export const KIND_NAMES: Record<NodeKind, string> = {
  user: 'User message',
  assistant: 'Assistant message',
  toolResult: 'Tool result',
  bash: 'Shell command',
  custom: 'Extension message',
  system: 'System message',
  branchSummary: 'Branch summary',
  compaction: 'Compaction',
  model: 'Model change',
  thinking: 'Thinking level change',
  label: 'Label change',
  name: 'Session name',
  leaf: 'Leaf move',
  usage: 'Usage record',
  contextEdit: 'Context edit',
  customEntry: 'Extension entry',
  activeTools: 'Active tools change',
  link: 'Link to another session',
  other: 'Entry',
};

export interface NodeFacts {
  isLeaf: boolean;
  onPath: boolean;
  /** Visible children (2+ means a branch point). */
  children: number;
  folded?: number;
  hit?: boolean;
}

/** Relative age as the UI shows it (`now`, `5 min`, `3 h`, `2 d`, then a date). */
export function relativeTime(time: number, now: number): string {
  const s = Math.max(0, Math.round((now - time) / 1000));
  if (s < 60) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 30) return `${d} d ago`;
  return new Date(time).toISOString().slice(0, 10);
}

function clip(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
}

export function nodeAriaLabel(n: NodeView, f: NodeFacts, now: number): string {
  const parts: string[] = [];
  parts.push(n.text ? `${KIND_NAMES[n.kind] ?? 'Entry'}: ${clip(n.text, 120)}` : (KIND_NAMES[n.kind] ?? 'Entry'));
  if (n.label !== undefined) parts.push(`label ${n.label}`);
  if (f.isLeaf) parts.push('current leaf');
  else if (f.onPath) parts.push('on the current path');
  if (f.children >= 2) parts.push(`branch point with ${f.children} branches`);
  if (f.folded) parts.push(`${f.folded} entries folded`);
  if (n.error) parts.push('ended with an error');
  if (n.tools?.length) parts.push(`tools ${n.tools.slice(0, 5).join(', ')}`);
  if (n.model) parts.push(`model ${n.model}`);
  if (n.tokens) parts.push(`${thousands(n.tokens)} tokens`);
  if (f.hit) parts.push('find match');
  if (n.time) parts.push(relativeTime(n.time, now));
  return parts.join(', ');
}

export function segmentAriaLabel(
  first: NodeView,
  last: NodeView,
  count: number,
  onPath: boolean,
  hits: number,
): string {
  const parts = [
    `${count} entries collapsed, from ${KIND_NAMES[first.kind] ?? 'entry'}: ${clip(first.text, 60)} to ${KIND_NAMES[last.kind] ?? 'entry'}: ${clip(last.text, 60)}`,
  ];
  if (onPath) parts.push('on the current path');
  if (hits) parts.push(`${hits} find ${hits === 1 ? 'match' : 'matches'} inside`);
  return parts.join(', ');
}

/** The accessible name of an outline row (entry or segment). */
export function itemAriaLabel(
  it: Item,
  nodes: readonly NodeView[],
  hits: { isHit(entry: number): boolean; inItem(it: Item): number },
): string {
  if (it.seg) {
    const m = it.members!;
    return segmentAriaLabel(nodes[m[0]], nodes[m[m.length - 1]], m.length, it.onPath, hits.inItem(it));
  }
  return nodeAriaLabel(
    nodes[it.entry],
    {
      isLeaf: it.isLeaf,
      onPath: it.onPath,
      children: it.children?.length ?? 0,
      folded: it.folded ? it.hidden : undefined,
      hit: hits.isHit(it.entry),
    },
    Date.now(),
  );
}

/** How an entry is named in announcements ("User message: fix the parser"). */
export function describeEntry(model: TreeModel, id: string): string {
  const i = model.index.get(id);
  if (i === undefined) return id;
  const n = model.nodes[i];
  return `${KIND_NAMES[n.kind] ?? n.type}: ${short(n.text).slice(0, 60)}`;
}
