// The tree as pi's /tree lists it: filters that hide entries (visible ones attach to their nearest
// visible ancestor), depth-first order with the branch holding the current leaf first, and the text
// layout with connectors that indents only at branch points. Iterative throughout: sessions are deep.
import type { EntryRecord, SessionIndex } from './sessionIndex.js';
import { messageOf, type SessionEntry } from './types.js';
import { entryText, hasText, toolCallsOf, type ToolCallRef } from './preview.js';

export type FilterMode = 'default' | 'no-tools' | 'user-only' | 'labeled-only' | 'all';
export const FILTER_MODES: FilterMode[] = ['default', 'no-tools', 'user-only', 'labeled-only', 'all'];

const SETTINGS_TYPES = new Set(['label', 'context_edit', 'custom', 'model_change', 'thinking_level_change', 'session_info', 'leaf', 'active_tools_change']);

/** pi's /tree filter for one entry (tree-selector.js applyFilter). */
export function isVisible(entry: SessionEntry, mode: FilterMode, leafId: string | null, label: string | undefined): boolean {
  if (entry.type === 'usage') return false;
  const m = messageOf(entry);
  if (m?.role === 'assistant' && entry.id !== leafId) {
    const err = m.stopReason && m.stopReason !== 'stop' && m.stopReason !== 'toolUse';
    if (!hasText(m.content) && !err) return false;
  }
  switch (mode) {
    case 'user-only':
      return m?.role === 'user';
    case 'no-tools':
      return !SETTINGS_TYPES.has(entry.type) && m?.role !== 'toolResult';
    case 'labeled-only':
      return label !== undefined;
    case 'all':
      return true;
    default:
      return !SETTINGS_TYPES.has(entry.type);
  }
}

export interface TreeRow {
  rec: EntryRecord;
  entry: SessionEntry;
  /** The line as pi draws it (prefix, path marker, label, text). */
  line: string;
  depth: number;
  onPath: boolean;
  isLeaf: boolean;
  label?: string;
  visibleParent: string | null;
}

/** Lists the visible rows of the tree in pi's order, with pi's text layout. */
export function layoutTree(index: SessionIndex, entries: Map<string, SessionEntry>, mode: FilterMode = 'default'): TreeRow[] {
  const leafId = index.leafId;
  const leafPath = index.branch(leafId);
  const onPath = new Set(leafPath.map((r) => r.id));
  const visible = (r: EntryRecord) => {
    const e = entries.get(r.id);
    return !!e && isVisible(e, mode, leafId, index.labels.get(r.id)?.label);
  };
  // The leaf may be hidden (a label, a leaf record): mark its nearest visible ancestor, as pi selects it.
  let shownLeaf: string | null = null;
  for (let i = leafPath.length - 1; i >= 0 && shownLeaf === null; i--) if (visible(leafPath[i])) shownLeaf = leafPath[i].id;

  // Visible children of each visible node (null = virtual root), found by an explicit-stack DFS.
  const kids = new Map<string | null, EntryRecord[]>();
  const stack: { rec: EntryRecord; vis: string | null }[] = [];
  const roots = index.roots();
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ rec: roots[i], vis: null });
  while (stack.length) {
    const { rec, vis } = stack.pop()!;
    let under = vis;
    if (visible(rec)) {
      let list = kids.get(vis);
      if (!list) kids.set(vis, (list = []));
      list.push(rec);
      under = rec.id;
    }
    const ch = index.childrenOf(rec.id);
    for (let i = ch.length - 1; i >= 0; i--) stack.push({ rec: ch[i], vis: under });
  }

  // Which visible subtrees hold the leaf (or its nearest visible ancestor), for ordering.
  const hasActive = new Set<string>();
  for (const id of onPath) hasActive.add(id);

  const toolCalls = new Map<string, ToolCallRef>();
  for (const e of entries.values()) for (const c of toolCallsOf(e)) toolCalls.set(c.id, c);

  const rows: TreeRow[] = [];
  type Frame = {
    rec: EntryRecord;
    indent: number;
    justBranched: boolean;
    showConnector: boolean;
    isLast: boolean;
    gutters: { pos: number; show: boolean }[];
    virtualChild: boolean;
    parent: string | null;
  };
  const top = kids.get(null) ?? [];
  const multipleRoots = top.length > 1;
  const orderKids = (list: EntryRecord[]) => [...list.filter((r) => hasActive.has(r.id)), ...list.filter((r) => !hasActive.has(r.id))];
  const frames: Frame[] = [];
  const orderedTop = orderKids(top);
  for (let i = orderedTop.length - 1; i >= 0; i--) {
    frames.push({
      rec: orderedTop[i],
      indent: multipleRoots ? 1 : 0,
      justBranched: multipleRoots,
      showConnector: multipleRoots,
      isLast: i === orderedTop.length - 1,
      gutters: [],
      virtualChild: multipleRoots,
      parent: null,
    });
  }
  while (frames.length) {
    const f = frames.pop()!;
    const entry = entries.get(f.rec.id)!;
    const displayIndent = multipleRoots ? Math.max(0, f.indent - 1) : f.indent;
    const connector = f.showConnector && !f.virtualChild ? (f.isLast ? '└─ ' : '├─ ') : '';
    const connectorPos = connector ? displayIndent - 1 : -1;
    let prefix = '';
    for (let level = 0; level < displayIndent; level++) {
      const g = f.gutters.find((x) => x.pos === level);
      if (g) prefix += g.show ? '│  ' : '   ';
      else if (connector && level === connectorPos) prefix += connector;
      else prefix += '   ';
    }
    const label = index.labels.get(f.rec.id)?.label;
    const path = onPath.has(f.rec.id);
    const line = `${prefix}${path ? '• ' : ''}${label ? `[${label}] ` : ''}${entryText(entry, toolCalls)}${f.rec.id === shownLeaf ? '  ← active' : ''}`;
    rows.push({ rec: f.rec, entry, line, depth: displayIndent, onPath: path, isLeaf: f.rec.id === shownLeaf, label, visibleParent: f.parent });
    const children = orderKids(kids.get(f.rec.id) ?? []);
    const multiple = children.length > 1;
    const childIndent = multiple || (f.justBranched && f.indent > 0) ? f.indent + 1 : f.indent;
    const shown = f.showConnector && !f.virtualChild;
    const childGutters = shown ? [...f.gutters, { pos: Math.max(0, displayIndent - 1), show: !f.isLast }] : f.gutters;
    for (let i = children.length - 1; i >= 0; i--) {
      frames.push({
        rec: children[i],
        indent: childIndent,
        justBranched: multiple,
        showConnector: multiple,
        isLast: i === children.length - 1,
        gutters: childGutters,
        virtualChild: false,
        parent: f.rec.id,
      });
    }
  }
  return rows;
}
