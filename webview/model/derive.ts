// From the model to what is drawn: filter (pi's rules; hidden nodes attach to their nearest visible
// ancestor), folds, then segment compression (runs of single-child entries become one item), the item
// tree that d3's tree() lays out, and the accessible row order (pi's /tree order). Every pass is a loop
// over arrays: no recursion, so 100k-deep chains cannot overflow the stack.
import { hierarchy } from 'd3-hierarchy';
import type { NodeView } from '../../src/protocol';
import { passesFilter, type FilterMode } from '../../src/shared/treeFilter';
import type { TreeModel } from './treeModel';

/** Shortest run of single-child entries that becomes a segment. */
export const MIN_RUN = 2;

/** Shared by the entry items of one expanded run, so the run can be collapsed again. */
export interface Run {
  members: number[];
}

/**
 * One drawn node: an entry or a segment (collapsed run). It is itself a d3 hierarchy node (built by
 * hand on d3's prototype: d3's own constructors are quadratic on deep chains), so `tree()` lays it out
 * in place and writes `x` and `y`.
 */
export interface Item {
  key: string;
  seg: boolean;
  /** Entry index; for a segment its first member. */
  entry: number;
  /** Segment members, first to last (segments only). */
  members?: number[];
  /** Set on the entries of an expanded run. */
  run?: Run;
  parent: Item | null;
  children: Item[] | undefined;
  depth: number;
  height: number;
  data: Item | null;
  x: number;
  y: number;
  /** Card width in the graph (model/nodeSize.ts; 0 = the default): the layout spaces neighbours by it. */
  w: number;
  onPath: boolean;
  isLeaf: boolean;
  /** A family link node (another session, not an entry of this one): laid out outermost, not framed. */
  link: boolean;
  /** Entry folded by the user; `hidden` counts the visible-by-filter descendants it hides. */
  folded: boolean;
  hidden: number;
  /** Accessible row (pi /tree order) and tree position. */
  row: number;
  level: number;
  posinset: number;
  setsize: number;
  /** Item owning this item's indentation run (outline); count of its run (scratch). */
  owner: Item | null;
  runCount: number;
}

export interface DeriveInput {
  model: TreeModel;
  mode: FilterMode;
  /** Entry ids whose visible descendants are folded away. */
  folded: ReadonlySet<string>;
  /** Entry ids: a run containing one of them is shown entry by entry. */
  expanded: ReadonlySet<string>;
  /** Entries that must be their own item (find hits, the selection). */
  forced?: Uint8Array;
  /** Entries left out like filtered ones (branches marked hidden, model/hiddenBranches.ts). */
  hidden?: Uint8Array;
  /** Entry ids with a checkpoint: each stays its own item, where its mark is drawn. */
  checkpoints?: ReadonlySet<string>;
}

export interface Derived {
  /** Virtual root (not drawn); its children are the visible roots. */
  root: Item;
  /** All items in pre-order (virtual root excluded). */
  items: Item[];
  /** Accessible rows: items in pi's /tree order (branch holding the leaf first). */
  rows: Item[];
  /** Item showing each entry (segment for members), undefined when hidden. */
  itemOf: (Item | undefined)[];
  visible: Uint8Array;
  /** Nearest visible ancestor of each entry (-1 none). */
  vparent: Int32Array;
  visibleCount: number;
}

/** A fresh item (see Item), appended to `parent`'s children when there is one. */
export function newItem(key: string, seg: boolean, entry: number, parent: Item | null): Item {
  const it = Object.create(hierarchy.prototype) as Item;
  it.key = key;
  it.seg = seg;
  it.entry = entry;
  it.parent = parent;
  it.children = undefined;
  it.depth = parent ? parent.depth + 1 : 0;
  it.height = 0;
  it.data = it;
  it.x = 0;
  it.y = 0;
  it.w = 0;
  it.onPath = false;
  it.isLeaf = false;
  it.link = false;
  it.folded = false;
  it.hidden = 0;
  it.row = -1;
  it.level = 0;
  it.posinset = 0;
  it.setsize = 0;
  it.owner = null;
  it.runCount = 0;
  if (parent) (parent.children ??= []).push(it);
  return it;
}

/** An empty slot for the layout (see layout.ts balanceMainLine); same shape as a real item. */
export function phantomItem(parent: Item): Item {
  const it = newItem('', false, -1, null);
  it.parent = parent;
  it.depth = parent.depth + 1;
  return it;
}

/**
 * An entry that may be drawn as its own node even inside a straight run: compactions and summaries,
 * entries that change files (edit, write, a bash that writes), so that they and their diff marks stay in
 * sight, and entries with a checkpoint (a bash whose writes pi-tree cannot read from its command line
 * still took one: its mark must not fold into a run). (derive keeps a tool result only when its call is
 * not drawn: extendTail.ts checks this superset.)
 */
export function isKeptKind(n: NodeView, checkpoints?: ReadonlySet<string>): boolean {
  return n.kind === 'compaction' || n.kind === 'branchSummary' || !!n.changed?.length || !!checkpoints?.has(n.id);
}

export function derive(input: DeriveInput): Derived {
  const { model, mode } = input;
  const nodes = model.nodes;
  const n = nodes.length;
  const leaf = model.leaf;
  const path = model.pathMask();
  const order = model.preorder();
  const foldedMask = maskOf(model, input.folded);
  const expandedMask = maskOf(model, input.expanded);
  const { vis, vparent, hiddenBy, vkidCount, visibleCount } = visibility(model, order, mode, foldedMask, input.hidden);
  const { start, kids } = visibleKids(order, vis, vparent, vkidCount);

  const forced = input.forced;
  // A tool result repeats its call's diff mark: it stands alone only when the call is not drawn (pi's
  // default filter hides a call without text).
  const cps = input.checkpoints;
  const changes = (i: number) =>
    (!!nodes[i].changed?.length || !!cps?.has(nodes[i].id)) && nodes[i].kind !== 'toolResult';
  const kept = (i: number): boolean =>
    isKeptKind(nodes[i], cps) && (nodes[i].kind !== 'toolResult' || !(vparent[i] >= 0 && changes(vparent[i])));
  const keep = (i: number): boolean =>
    vkidCount[i] !== 1 ||
    vparent[i] < 0 ||
    nodes[i].label !== undefined ||
    i === leaf ||
    kept(i) ||
    (forced !== undefined && forced[i] === 1) ||
    (foldedMask[i] === 1 && hiddenBy[i] > 0);

  // Pass 2: items (pre-order), compressing runs of non-kept entries.
  const root = newItem('', false, -1, null);
  root.onPath = true;
  const items: Item[] = [];
  const itemOf: (Item | undefined)[] = new Array(n);
  const entryItem = (i: number, parent: Item): Item => {
    const it = newItem(nodes[i].id, false, i, parent);
    it.onPath = path[i] === 1;
    it.isLeaf = i === leaf;
    it.link = nodes[i].kind === 'link';
    if (foldedMask[i] && hiddenBy[i] > 0) {
      it.folded = true;
      it.hidden = hiddenBy[i];
    }
    itemOf[i] = it;
    items.push(it);
    return it;
  };
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    if (!vis[i] || itemOf[i]) continue;
    const parent = vparent[i] >= 0 ? itemOf[vparent[i]]! : root;
    if (keep(i)) {
      entryItem(i, parent);
      continue;
    }
    // i starts a run: its visible parent is kept (a non-kept parent has i as its only child).
    const members = [i];
    let expanded = expandedMask[i] === 1;
    for (let j = i; ;) {
      const c = kids[start[j]];
      if (keep(c)) break;
      members.push(c);
      if (expandedMask[c]) expanded = true;
      j = c;
    }
    if (members.length < MIN_RUN || expanded) {
      const run = members.length >= MIN_RUN ? { members } : undefined;
      let p = parent;
      for (const m of members) {
        p = entryItem(m, p);
        p.run = run;
      }
    } else {
      const seg = newItem('seg:' + nodes[i].id, true, i, parent);
      seg.members = members;
      seg.onPath = path[i] === 1;
      for (const m of members) itemOf[m] = seg;
      items.push(seg);
    }
  }

  return { root, items, rows: outlineRows(root), itemOf, visible: vis, vparent, visibleCount };
}

/** 1 for each entry of the model named in `ids` (ids it does not hold are passed over). */
function maskOf(model: TreeModel, ids: ReadonlySet<string>): Uint8Array {
  const mask = new Uint8Array(model.nodes.length);
  for (const id of ids) {
    const i = model.index.get(id);
    if (i !== undefined) mask[i] = 1;
  }
  return mask;
}

/** Pass 1 of derive, over the entries in pre-order. */
interface Visibility {
  vis: Uint8Array;
  /** Nearest visible ancestor (-1 none). */
  vparent: Int32Array;
  /** Of a folded entry: the visible-by-filter descendants its fold hides. */
  hiddenBy: Int32Array;
  /** Visible children of each entry. */
  vkidCount: Int32Array;
  visibleCount: number;
}

/** Pass 1: visibility, nearest visible ancestor, folds, visible child counts. */
function visibility(
  model: TreeModel,
  order: Int32Array,
  mode: FilterMode,
  foldedMask: Uint8Array,
  hidden: Uint8Array | undefined,
): Visibility {
  const nodes = model.nodes;
  const n = nodes.length;
  const leaf = model.leaf;
  const par = model.parent;
  const vis = new Uint8Array(n);
  const vparent = new Int32Array(n).fill(-1);
  const foldOwner = new Int32Array(n).fill(-1);
  const hiddenBy = new Int32Array(n);
  const vkidCount = new Int32Array(n);
  let visibleCount = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    const p = par[i];
    if (p >= 0) {
      vparent[i] = vis[p] ? p : vparent[p];
      foldOwner[i] = foldOwner[p] >= 0 ? foldOwner[p] : vis[p] && foldedMask[p] ? p : -1;
    }
    if ((hidden && hidden[i]) || !passesFilter(nodes[i], mode, i === leaf)) continue;
    if (foldOwner[i] >= 0) {
      hiddenBy[foldOwner[i]]++;
      continue;
    }
    vis[i] = 1;
    visibleCount++;
    if (vparent[i] >= 0) vkidCount[vparent[i]]++;
  }
  return { vis, vparent, hiddenBy, vkidCount, visibleCount };
}

/** Visible children in CSR form (pre-order keeps pi's sibling order): those of `i` are kids[start[i]…start[i + 1]). */
function visibleKids(
  order: Int32Array,
  vis: Uint8Array,
  vparent: Int32Array,
  vkidCount: Int32Array,
): { start: Int32Array; kids: Int32Array } {
  const n = vis.length;
  const start = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) start[i + 1] = start[i] + vkidCount[i];
  const fill = start.slice(0, n);
  const kids = new Int32Array(start[n]);
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    if (vis[i] && vparent[i] >= 0) kids[fill[vparent[i]]++] = i;
  }
  return { start, kids };
}

/**
 * pi's /tree order (depth first, the child holding the current path first, the rest by time) with
 * APG tree positions: the level grows only below branch points, as pi indents; the items of one
 * indentation run under the same branch point form one set (posinset / setsize).
 */
export function outlineRows(root: Item): Item[] {
  const rows: Item[] = [];
  const stack: Item[] = [];
  root.runCount = 0;
  const pushKids = (it: Item) => {
    const ch = it.children;
    if (!ch) return;
    const branch = ch.length >= 2 || it === root;
    const level = it === root ? 1 : it.level + (branch ? 1 : 0);
    const own = branch ? it : it.owner!;
    if (branch) it.runCount = 0;
    // Reverse push so the on-path child comes out first, the rest in time order.
    let onPathChild: Item | undefined;
    for (let c = ch.length - 1; c >= 0; c--) {
      const child = ch[c];
      if (child.onPath && !onPathChild) {
        onPathChild = child;
        continue;
      }
      child.level = level;
      child.owner = own;
      stack.push(child);
    }
    if (onPathChild) {
      onPathChild.level = level;
      onPathChild.owner = own;
      stack.push(onPathChild);
    }
  };
  pushKids(root);
  while (stack.length) {
    const it = stack.pop()!;
    it.row = rows.length;
    rows.push(it);
    it.posinset = ++it.owner!.runCount;
    pushKids(it);
  }
  for (const it of rows) it.setsize = it.owner!.runCount;
  return rows;
}

/** The entries an item stands for, in order. */
export function itemEntries(it: Item): number[] {
  return it.seg ? it.members! : [it.entry];
}
