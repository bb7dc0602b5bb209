// How wide a node card is drawn: as wide as its title needs, between a floor and a cap, so short entries
// stay compact and long ones show a readable line instead of a few words (the full text is on hover).
// Widths are estimated from character counts, never measured: no layout reads, the same on every run.
import type { NodeView } from '../../src/protocol';
import type { Item } from './derive';
import { MAX_NODE_W, NODE_W } from './layout';
import { short } from '../ui/format';

/** The narrowest card, in world units (pixels at zoom 1); the widest is layout.ts's MAX_NODE_W. */
export const MIN_NODE_W = 150;
export { MAX_NODE_W };
/** Left padding (stripe and icon) plus right padding (leaf mark) of a card. */
const CHROME = 46;
/** Average advance of the 12 px title font (wide enough that estimates rarely clip). */
export const TITLE_CHAR_W = 6.8;
/** The subtitle's (10.5 px). */
export const SUB_CHAR_W = 5.8;

/** The title a card shows for an entry (without pi's role prefix; the icon says it). */
export function nodeTitle(n: NodeView): string {
  return short(n.text) || `[${n.type}]`;
}

/** The title a segment card shows. */
export function segmentTitle(count: number, hits: number): string {
  return `${count} entries${hits ? ` · ${hits} found` : ''}`;
}

/** The second line of an entry's card: a family link's facts; else branches, model, tools, tokens (else its role or type). */
export function nodeSubtitle(n: NodeView, it: Item): string {
  if (n.link) return n.link.facts;
  const parts: string[] = [];
  if (n.model) parts.push(n.model);
  if (n.tools?.length) parts.push(n.tools.join(', '));
  if (n.tokens) parts.push(`${formatTokens(n.tokens)} tok`);
  if (!parts.length) parts.push(n.role ?? n.type);
  if (it.children && it.children.length > 1) parts.unshift(`${it.children.length} branches`);
  return parts.join(' · ');
}

/** 950 → "950", 12345 → "12.3k". */
export function formatTokens(t: number): string {
  return t >= 1000 ? `${Math.round(t / 100) / 10}k` : String(t);
}

/** Card width for an item: enough for its title (and subtitle), within [MIN_NODE_W, MAX_NODE_W]. */
export function itemWidth(it: Item, nodes: readonly NodeView[]): number {
  if (it.entry < 0) return NODE_W;
  if (it.seg)
    return clampW(CHROME + Math.max(segmentTitle(it.members!.length, 0).length * TITLE_CHAR_W, 28 * SUB_CHAR_W));
  const n = nodes[it.entry];
  const title = nodeTitle(n).length * TITLE_CHAR_W;
  const sub = nodeSubtitle(n, it).length * SUB_CHAR_W;
  return clampW(CHROME + Math.max(title, sub));
}

/** Sizes every item of a pass (before the layout, which spaces cards by their widths). */
export function sizeItems(items: readonly Item[], nodes: readonly NodeView[]): void {
  for (const it of items) it.w = itemWidth(it, nodes);
}

function clampW(w: number): number {
  return Math.round(Math.min(MAX_NODE_W, Math.max(MIN_NODE_W, w)));
}

/** How many characters of a title fit a card of width `w`. */
export function titleChars(w: number): number {
  return Math.max(8, Math.floor((w - CHROME) / TITLE_CHAR_W));
}

export function subChars(w: number): number {
  return Math.max(8, Math.floor((w - CHROME + 6) / SUB_CHAR_W));
}
