// The tree as pi's /tree lists it: filters that hide entries (visible ones attach to their nearest
// visible ancestor), depth-first order with the branch holding the current leaf first, and the text
// layout with connectors that indents only at branch points. Iterative throughout: sessions are deep.
// Built over record numbers: the few facts a row needs of each entry (what the filter reads, its text)
// are in rowFacts.ts, noted while the file was read or parsed from the line here; rows are handed out
// one at a time, never all held.
import { parseLineOf } from '../../core/index/lineReads.js';
import type { Session } from '../../core/session/session.js';
import type { SessionEntry } from '../../core/format/types.js';
import { ERROR, NO_TEXT, RowFacts } from './rowFacts.js';
import { passesFilter, type FilterMode } from '../../shared/treeFilter.js';
import { RowPrefixes, type Gutter } from './rowPrefix.js';
import { VisibleTree } from './visibleTree.js';

export { FILTER_MODES, type FilterMode } from '../../shared/treeFilter.js';

/** @internal pi's /tree filter for one entry (the shared rule in src/shared/treeFilter.ts, on the stored entry), as the tests check it against the webview's. */
export function isVisible(
  entry: SessionEntry,
  mode: FilterMode,
  leafId: string | null,
  label: string | undefined,
): boolean {
  const facts = new RowFacts();
  facts.take(0, entry);
  return shown(facts, 0, entry.type, mode, entry.id === leafId, label);
}

/** The shared rule on what the facts of record `i` keep of its entry (as the tree applies it). */
function shown(
  facts: RowFacts,
  i: number,
  type: string,
  mode: FilterMode,
  isLeaf: boolean,
  label: string | undefined,
): boolean {
  const bits = facts.bits[i];
  // Only what the rule reads: whether an assistant message (not the leaf) has text or ended in error.
  const assistant =
    facts.roleOf(i) === 'assistant' && !isLeaf ? { noText: (bits & NO_TEXT) !== 0, error: (bits & ERROR) !== 0 } : {};
  return passesFilter({ type, role: facts.roleOf(i), label, ...assistant }, mode, isLeaf);
}

export interface TreeRow {
  /** Record number in the index. */
  i: number;
  /**
   * The line as pi draws it is `prefix + marker + text()`: connectors, the path marker, label and text.
   * Made when read (a row under thousands of branch points has a prefix that long).
   */
  readonly prefix: string;
  marker: string;
  depth: number;
  onPath: boolean;
  isLeaf: boolean;
  label?: string;
  /** Record number of the nearest visible ancestor (-1: none). */
  visibleParent: number;
  /** The row's text: its label, the entry's text, and the mark of the active leaf. */
  text(): string;
  /** Where the entry's text is (rowFacts.ts: its bytes can be written without a string). */
  facts: RowFacts;
}

/**
 * Lists the visible rows of the tree in pi's order, with pi's text layout, handing each to `emit` (one
 * row object, filled anew for each row: take what you need before returning); returns how many there
 * were. `noted`: the facts noteRows took while the session was read, if any.
 */
export async function streamTree(
  session: Session,
  mode: FilterMode,
  emit: (row: TreeRow) => void,
  signal?: AbortSignal,
  noted?: RowFacts,
): Promise<number> {
  const index = session.index;
  const leafRec = index.leafRecord;
  const live = index.liveIdx();
  const n = index.count;
  const facts = await factsOf(session, live, signal, noted);
  const labelAt = new Map<number, string>();
  for (const [id, l] of index.labels) {
    const i = index.lookup(id);
    if (i >= 0) labelAt.set(i, l.label);
  }
  const visible = new Uint8Array(n);
  for (let k = 0; k < live.length; k++) {
    const i = live[k];
    if (!facts.has(i)) continue;
    if (!shown(facts, i, index.typeOf(i), mode, i === leafRec, labelAt.get(i))) continue;
    visible[i] = 1;
    facts.nameAfterCall(i);
  }

  const onPath = new Uint8Array(n);
  const leafPath = index.branchIdx(leafRec);
  for (const i of leafPath) onPath[i] = 1;
  // The leaf may be hidden (a label, a leaf record): mark its nearest visible ancestor, as pi selects it.
  let shownLeaf = -1;
  for (let k = leafPath.length - 1; k >= 0 && shownLeaf < 0; k--) if (visible[leafPath[k]]) shownLeaf = leafPath[k];

  await index.prepareTree();
  const tree = new VisibleTree(index, n, visible, onPath);
  return emitRows(tree, onPath, shownLeaf, labelAt, new StreamedRow(facts), emit);
}

/**
 * The facts of each row: noted while the session was read (Session.open with noteRows), else taken
 * from the entry now. Tool results are named after their calls later, when every call is known (a
 * result may come before its call in a damaged file).
 */
async function factsOf(
  session: Session,
  live: Int32Array,
  signal: AbortSignal | undefined,
  noted: RowFacts | undefined,
): Promise<RowFacts> {
  const index = session.index;
  const facts = noted?.index === index ? noted : new RowFacts();
  const unread: number[] = [];
  for (let k = 0; k < live.length; k++) {
    const i = live[k];
    if (facts.has(i)) continue;
    const e = index.entryOf(i);
    if (e) facts.take(i, e);
    else if (!index.isKept(i)) unread.push(i);
  }
  await session.visitIdx(
    unread,
    (_k, i, bytes) => {
      const e = parseLineOf(index.idOf(i), bytes);
      if (e) facts.take(i, e);
    },
    signal,
  );
  return facts;
}

/** The one row object streamTree hands out, filled anew for each row. */
class StreamedRow implements TreeRow {
  i = -1;
  marker = '';
  depth = 0;
  onPath = false;
  isLeaf = false;
  label: string | undefined = undefined;
  visibleParent = -1;
  /** The row's gutters and connector, for its prefix. */
  gutters: Gutter | null = null;
  connector = '';
  private readonly prefixes = new RowPrefixes();

  constructor(readonly facts: RowFacts) {}

  get prefix(): string {
    return this.prefixes.of(this.gutters, this.depth, this.connector);
  }

  text(): string {
    return `${this.label ? `[${this.label}] ` : ''}${this.facts.textOf(this.i)}${this.isLeaf ? '  ← active' : ''}`;
  }
}

const JUST_BRANCHED = 1;
const SHOW_CONNECTOR = 2;
const IS_LAST = 4;
const VIRTUAL_CHILD = 8;

/** The rows depth-first from the tree's root, with pi's indentation and connectors; returns how many. */
function emitRows(
  tree: VisibleTree,
  onPath: Uint8Array,
  shownLeaf: number,
  labelAt: Map<number, string>,
  row: StreamedRow,
  emit: (row: TreeRow) => void,
): number {
  const kids = tree.kids;
  const roots = tree.kidsOf(tree.root);
  const multipleRoots = roots > 1;
  // The frames still to draw, as a stack of columns (a frame object per row was a million objects).
  const size = tree.root + 1;
  const fI = new Int32Array(size);
  const fIndent = new Int32Array(size);
  const fParent = new Int32Array(size);
  const fBits = new Uint8Array(size);
  const fGutters: (Gutter | null)[] = [];
  let top = 0;
  const push = (i: number, indent: number, bits: number, gutters: Gutter | null, parent: number) => {
    fI[top] = i;
    fIndent[top] = indent;
    fBits[top] = bits;
    fGutters[top] = gutters;
    fParent[top] = parent;
    top++;
  };
  const rootsFrom = tree.from;
  for (let k = roots - 1; k >= 0; k--) {
    const many = multipleRoots ? JUST_BRANCHED | SHOW_CONNECTOR | VIRTUAL_CHILD : 0;
    push(kids[rootsFrom + k], multipleRoots ? 1 : 0, many | (k === roots - 1 ? IS_LAST : 0), null, -1);
  }
  let rows = 0;
  while (top > 0) {
    top--;
    const i = fI[top];
    const indent = fIndent[top];
    const bits = fBits[top];
    const gutters = fGutters[top];
    fGutters[top] = null;
    const isLast = (bits & IS_LAST) !== 0;
    const shown = (bits & SHOW_CONNECTOR) !== 0 && (bits & VIRTUAL_CHILD) === 0;
    const displayIndent = multipleRoots ? Math.max(0, indent - 1) : indent;
    const path = onPath[i] === 1;
    row.gutters = gutters;
    row.connector = shown ? (isLast ? '└─ ' : '├─ ') : '';
    row.i = i;
    row.marker = path ? '• ' : '';
    row.depth = displayIndent;
    row.onPath = path;
    row.isLeaf = i === shownLeaf;
    row.label = labelAt.get(i);
    row.visibleParent = fParent[top];
    emit(row);
    rows++;
    const count = tree.kidsOf(i);
    const from = tree.from;
    const multiple = count > 1;
    const childIndent = multiple || ((bits & JUST_BRANCHED) !== 0 && indent > 0) ? indent + 1 : indent;
    const childGutters: Gutter | null = shown
      ? { pos: Math.max(0, displayIndent - 1), show: !isLast, next: gutters }
      : gutters;
    const childBits = multiple ? JUST_BRANCHED | SHOW_CONNECTOR : 0;
    for (let k = count - 1; k >= 0; k--)
      push(kids[from + k], childIndent, childBits | (k === count - 1 ? IS_LAST : 0), childGutters, i);
  }
  return rows;
}
