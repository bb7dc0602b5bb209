// Screen-reader text for nodes and segments, built only from the projection (pure, unit-tested).
import type { NodeKind, NodeView } from '../src/protocol';

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
  if (f.hit) parts.push('find match');
  if (n.time) parts.push(relativeTime(n.time, now));
  return parts.join(', ');
}

export function segmentAriaLabel(first: NodeView, last: NodeView, count: number, onPath: boolean, hits: number): string {
  const parts = [`${count} entries collapsed, from ${KIND_NAMES[first.kind] ?? 'entry'}: ${clip(first.text, 60)} to ${KIND_NAMES[last.kind] ?? 'entry'}: ${clip(last.text, 60)}`];
  if (onPath) parts.push('on the current path');
  if (hits) parts.push(`${hits} find ${hits === 1 ? 'match' : 'matches'} inside`);
  return parts.join(', ');
}
