// Lays the item tree out with d3-hierarchy's tidy tree (linear time) and indexes the result by depth so
// that the renderer can ask for what lies in a rectangle without touching the rest.
import { tree, type HierarchyPointNode } from 'd3-hierarchy';
import { phantomItem, type Item } from './derive';

export const NODE_W = 188;
export const NODE_H = 40;
/** Widest card (model/nodeSize.ts sizes each by its title); culling margins use it. */
export const MAX_NODE_W = 320;
/** Horizontal slot per node of the default width and vertical distance between depths. */
export const DX = 212;
export const DY = 64;
/** Space between neighbouring cards. */
const GAP = DX - NODE_W;
const widthOf = (it: Item): number => it.w || NODE_W;

export interface Bar {
  parent: Item;
  x0: number;
  x1: number;
}

export interface Layout {
  /** Items per depth (1-based: depth 1 = roots), each sorted by x. */
  levels: Item[][];
  /** Per depth: horizontal connector bars of branch points at that depth. */
  bars: Bar[][];
  minX: number;
  maxX: number;
  maxY: number;
  count: number;
}

export function layoutTree(root: Item): Layout {
  const levels: Item[][] = [];
  const bars: Bar[][] = [];
  if (!root.children || root.children.length === 0) return { levels, bars, minX: 0, maxX: 0, maxY: 0, count: 0 };
  // Cards differ in width: the separation of two neighbours is in pixels (node size 1 across).
  const t = tree<Item>()
    .nodeSize([1, DY])
    .separation((a, b) => ((widthOf(a.data) + widthOf(b.data)) / 2 + GAP) * (a.parent === b.parent ? 1 : 1.1));
  const restore = balanceMainLine(root);
  t(root as unknown as HierarchyPointNode<Item>);
  for (const [it, ch] of restore) it.children = ch;
  // Shift so the virtual root sits at y = -DY and roots at y = 0.
  let minX = Infinity;
  let maxX = -Infinity;
  let maxDepth = 0;
  let count = 0;
  const stack: Item[] = [...root.children].reverse();
  while (stack.length) {
    const it = stack.pop()!;
    it.y = (it.depth - 1) * DY;
    if (it.x < minX) minX = it.x;
    if (it.x > maxX) maxX = it.x;
    if (it.depth > maxDepth) maxDepth = it.depth;
    count++;
    // Pre-order visits each depth left to right: a tidy tree never crosses its own contours.
    (levels[it.depth] ??= []).push(it);
    const ch = it.children;
    if (ch) {
      if (ch.length >= 2) {
        let x0 = Infinity;
        let x1 = -Infinity;
        for (const c of ch) {
          if (c.x < x0) x0 = c.x;
          if (c.x > x1) x1 = c.x;
        }
        (bars[it.depth] ??= []).push({ parent: it, x0, x1 });
      }
      for (let c = ch.length - 1; c >= 0; c--) stack.push(ch[c]);
    }
  }
  for (let d = 0; d <= maxDepth; d++) {
    levels[d] ??= [];
    bars[d] ??= [];
    // Guard the sort invariant (cheap when already sorted).
    const row = levels[d];
    for (let k = 1; k < row.length; k++) {
      if (row[k - 1].x > row[k].x) {
        row.sort((a, b) => a.x - b.x);
        break;
      }
    }
  }
  return { levels, bars, minX, maxX, maxY: (maxDepth - 1) * DY, count };
}

/**
 * A tidy tree centres a parent over its children, so a pi session (one long path with short side
 * branches) would drift sideways by half a slot at every branch point. For the layout only, each
 * branch point's largest child goes in the middle: side branches to its left, as many empty phantom
 * slots to its right, so the main line runs straight down. Family link nodes go farthest left (another
 * session's card must not push this session's own side branches away) and are the main line only when
 * nothing else is. Returns the original child lists.
 */
function balanceMainLine(root: Item): [Item, Item[]][] {
  const order: Item[] = [];
  const stack: Item[] = [root];
  while (stack.length) {
    const it = stack.pop()!;
    order.push(it);
    const ch = it.children;
    if (ch) for (let c = 0; c < ch.length; c++) stack.push(ch[c]);
  }
  // Subtree sizes in `height` (d3's tree() does not read it; derive sets it to 0).
  for (let k = order.length - 1; k >= 0; k--) {
    const it = order[k];
    let s = 1;
    const ch = it.children;
    if (ch) for (let c = 0; c < ch.length; c++) s += ch[c].height;
    it.height = s;
  }
  const restore: [Item, Item[]][] = [];
  for (let k = 0; k < order.length; k++) {
    const it = order[k];
    const ch = it.children;
    if (!ch || ch.length < 2) continue;
    const inner = ch.filter((c) => !c.link);
    const pool = inner.length ? inner : ch;
    let main = pool[0];
    for (const c of pool) if (c.height >= main.height) main = c;
    const next: Item[] = [];
    for (const c of ch) if (c !== main && c.link) next.push(c);
    for (const c of ch) if (c !== main && !c.link) next.push(c);
    const sides = next.length;
    next.push(main);
    // Each empty slot mirrors the side branch across the main line, so the parent centres over it.
    for (let p = 0; p < sides; p++) {
      const ph = phantomItem(it);
      ph.w = next[sides - 1 - p].w;
      next.push(ph);
    }
    restore.push([it, ch]);
    it.children = next;
  }
  return restore;
}

export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Whether `it`, drawn at its own width in its slot, keeps the gap to its neighbours at its depth (an
 * item that took another's place without a layout, model/extendTail.ts).
 */
export function fitsSlot(l: Layout, it: Item): boolean {
  const row = l.levels[it.depth];
  const k = row ? row.lastIndexOf(it) : -1;
  if (k < 0) return false;
  const half = widthOf(it) / 2;
  const left = row[k - 1];
  const right = row[k + 1];
  return (
    (!left || left.x + widthOf(left) / 2 + GAP <= it.x - half + 0.5) &&
    (!right || it.x + half + GAP <= right.x - widthOf(right) / 2 + 0.5)
  );
}

/** Items whose box intersects `r` (world coordinates). */
export function queryItems(l: Layout, r: Rect, out: Item[] = []): Item[] {
  const d0 = Math.max(1, Math.floor((r.y0 - NODE_H / 2) / DY) + 1);
  const d1 = Math.min(l.levels.length - 1, Math.ceil((r.y1 + NODE_H / 2) / DY) + 1);
  for (let d = d0; d <= d1; d++) {
    const row = l.levels[d];
    if (!row || !row.length) continue;
    const y = (d - 1) * DY;
    if (y + NODE_H / 2 < r.y0 || y - NODE_H / 2 > r.y1) continue;
    let k = lowerBound(row, r.x0 - MAX_NODE_W / 2);
    for (; k < row.length && row[k].x - MAX_NODE_W / 2 <= r.x1; k++)
      if (row[k].x + widthOf(row[k]) / 2 >= r.x0 && row[k].x - widthOf(row[k]) / 2 <= r.x1) out.push(row[k]);
  }
  return out;
}

/** Connector bars (branch points) crossing `r`. */
export function queryBars(l: Layout, r: Rect, out: Bar[] = []): Bar[] {
  const d0 = Math.max(1, Math.floor(r.y0 / DY));
  const d1 = Math.min(l.bars.length - 1, Math.ceil(r.y1 / DY) + 1);
  for (let d = d0; d <= d1; d++) {
    const row = l.bars[d];
    if (!row) continue;
    const midY = (d - 1) * DY + DY / 2;
    if (midY < r.y0 || midY > r.y1) continue;
    for (const b of row) if (b.x0 <= r.x1 && b.x1 >= r.x0) out.push(b);
  }
  return out;
}

function lowerBound(row: Item[], x: number): number {
  let lo = 0;
  let hi = row.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (row[mid].x < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
