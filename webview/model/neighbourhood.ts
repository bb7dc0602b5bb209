// Which part of the tree a view should frame: the selection with a few entries of its path above and
// below and the first entry of every branch leaving those (the side branches a user wants to see next
// to the path), and with `links` the family's link cards leaving them (a fork's link to its source), as
// a world box around their cards. Pure; graph/viewport.ts turns the box into a view.
import type { Item } from './derive';
import { MAX_NODE_W, NODE_H, NODE_W, type Rect } from './layout';

/** Room above a card for its label badge and below it for a fold count. */
const BADGE = 10;
const FOLD = 16;

export interface Reach {
  /** Ancestors of the focus to include. */
  up: number;
  /**
   * Ancestors further up still taken to reach the nearest branch point (an entry with a side branch),
   * so that entries drawn on their own inside a run (edits, summaries) do not push the branch out.
   */
  toBranch?: number;
  /** Descendants along the current path (else the largest branch) to include. */
  down: number;
  /** The family's link cards leaving those entries too (framed when they fit). */
  links?: boolean;
}

/** Entries of a side branch shown below its first one. */
const SIDE = 2;

/**
 * The items around `focus`: its ancestors and descendants within `reach`, and every branch leaving
 * those with its first few entries.
 */
export function neighbourhoodItems(focus: Item, reach: Reach): Item[] {
  const out = new Set<Item>();
  // The path below the focus first: side branches are shown no deeper than it reaches.
  const below: Item[] = [];
  let it: Item | null = focus;
  for (let k = 0; k < reach.down; k++) {
    const ch: Item[] = (it.children ?? []).filter((c) => c.entry >= 0 && !c.link);
    if (!ch.length) break;
    // Down the current path when it goes on from here, else the branch that holds the most.
    it = ch.find((c) => c.onPath) ?? ch.reduce((a, b) => (b.height > a.height ? b : a));
    below.push(it);
  }
  const maxDepth = Math.max(focus.depth + 1, (below[below.length - 1] ?? focus).depth);
  const addWithChildren = (x: Item) => {
    out.add(x);
    for (const c of x.children ?? []) {
      // Family link cards are not this session's branches: taken only when asked for.
      if (c.entry < 0 || (c.link && !reach.links) || out.has(c)) continue;
      out.add(c);
      let s: Item | undefined = c;
      for (let k = 0; k < SIDE && s?.children?.length && s.depth < maxDepth; k++) out.add((s = s.children[0]));
    }
  };
  it = focus;
  const up = reach.up + branchBeyond(focus, reach);
  for (let k = 0; it && it.depth > 0 && k <= up; k++, it = it.parent) addWithChildren(it);
  for (const x of below) addWithChildren(x);
  return [...out];
}

/**
 * How many ancestors past `reach.up` (at most `reach.toBranch`) lead to the nearest one with more than
 * one branch, when none within `reach.up` has one; 0 when there is one or none is near enough.
 */
function branchBeyond(focus: Item, reach: Reach): number {
  const extra = reach.toBranch ?? 0;
  let it: Item | null = focus;
  for (let k = 0; it && it.depth > 0 && k <= reach.up + extra; k++, it = it.parent) {
    if ((it.children ?? []).filter((c) => c.entry >= 0 && !c.link).length > 1) return Math.max(0, k - reach.up);
  }
  return 0;
}

/** The world box around the cards of `items` (with room for badges and fold counts). */
export function boxOf(items: readonly Item[]): Rect | undefined {
  if (!items.length) return undefined;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const it of items) {
    const w = (it.w || NODE_W) / 2;
    x0 = Math.min(x0, it.x - w);
    x1 = Math.max(x1, it.x + w);
    y0 = Math.min(y0, it.y - NODE_H / 2 - BADGE);
    y1 = Math.max(y1, it.y + NODE_H / 2 + FOLD);
  }
  return { x0, y0, x1, y1 };
}

/** The box a view should frame around `focus` (see neighbourhoodItems). */
export function neighbourhood(focus: Item, reach: Reach): Rect {
  return boxOf(neighbourhoodItems(focus, reach))!;
}

/** The box around the whole layout's cards. */
export function layoutBox(l: { minX: number; maxX: number; maxY: number }): Rect {
  return { x0: l.minX - MAX_HALF, y0: -NODE_H / 2 - BADGE, x1: l.maxX + MAX_HALF, y1: l.maxY + NODE_H / 2 + FOLD };
}
const MAX_HALF = MAX_NODE_W / 2;
