// One node of the SVG scene: a card as wide as its title needs (model/nodeSize.ts) with the kind's icon,
// title and subtitle (or a plain box when zoomed far out), label badge, leaf mark and fold count; a
// segment is drawn as a stack. Classes carry the state (path, leaf, selected, hit) that styles.css
// colours. The whole text, time, model and tokens are on the hover card (ui/hoverCard.ts).
import type { NodeView } from '../../src/protocol';
import type { Item } from '../model/derive';
import { NODE_H, NODE_W } from '../model/layout';
import { nodeSubtitle, nodeTitle, segmentTitle, subChars, titleChars } from '../model/nodeSize';
import { clip, short } from '../ui/format';
import { glyph, KIND_ICONS } from '../ui/icons';

export const SVG = 'http://www.w3.org/2000/svg';

/** What a node needs to know beyond its item. */
export interface NodeLook {
  nodes(): NodeView[];
  isSelected(it: Item): boolean;
  isHit(entry: number): boolean;
  hitsIn(it: Item): number;
  /** The entry marked by a first "Compare with…" (C), waiting for the other one. */
  isMarked(entry: number): boolean;
  /** The node's data-vscode-context (native context menu). */
  contextFor(it: Item): string;
  /** The entry has a checkpoint: the code at it can be restored exactly. */
  hasCode?(id: string): boolean;
}

function nodeClass(look: NodeLook, it: Item, n: NodeView): string {
  let c = `node k-${it.seg ? 'segment' : n.kind}`;
  if (it.seg) c += ' seg';
  if (it.onPath) c += ' on-path';
  if (it.isLeaf) c += ' leaf';
  if (!it.seg && n.label !== undefined) c += ' labelled';
  if (!it.seg && n.error) c += ' error';
  if (look.isSelected(it)) c += ' selected';
  if (it.seg ? look.hitsIn(it) > 0 : look.isHit(it.entry)) c += ' hit';
  if (it.folded) c += ' folded';
  if (!it.seg && n.changed?.length) c += ' changed';
  if (!it.seg && look.hasCode?.(n.id)) c += ' checkpoint';
  if (!it.seg && look.isMarked(it.entry)) c += ' compare-base';
  return c;
}

function baseNode(look: NodeLook, it: Item, n: NodeView): SVGGElement {
  const g = document.createElementNS(SVG, 'g');
  g.setAttribute('class', nodeClass(look, it, n));
  g.setAttribute('transform', `translate(${it.x - width(it) / 2} ${it.y - NODE_H / 2})`);
  g.dataset.key = it.key;
  if (!it.seg) g.dataset.entryId = n.id;
  g.dataset.vscodeContext = look.contextFor(it);
  return g;
}

/** A box without text, for zooms where text would be unreadable. */
export function simpleNode(look: NodeLook, it: Item): SVGGElement {
  const n = look.nodes()[it.entry];
  const g = baseNode(look, it, n);
  g.classList.add('simple');
  g.append(rect('box', 0, 0, width(it), NODE_H, 6));
  if (!it.seg && look.isMarked(it.entry)) g.prepend(rect('compare-ring', -5, -5, width(it) + 10, NODE_H + 10, 9));
  return g;
}

export function fullNode(look: NodeLook, it: Item): SVGGElement {
  const nodes = look.nodes();
  const n = nodes[it.entry];
  const g = baseNode(look, it, n);
  const w = width(it);
  if (it.seg) {
    g.append(rect('stack', 6, -6, w, NODE_H, 6), rect('stack', 3, -3, w, NODE_H, 6));
  }
  g.append(rect('box', 0, 0, w, NODE_H, 6), rect('stripe', 0, 0, 4, NODE_H, 2));
  // Texts go in a nested <svg> the card's size: it clips a title wider than estimated at the card's edge.
  const inner = document.createElementNS(SVG, 'svg');
  inner.setAttribute('width', String(w - 4));
  inner.setAttribute('height', String(NODE_H));
  inner.append(text('icon', 10, 25, glyph(it.seg ? 'ellipsis' : (KIND_ICONS[n.kind] ?? 'symbol-event'))));
  g.append(inner);
  if (it.seg) {
    const m = it.members!;
    const last = nodes[m[m.length - 1]];
    const hits = look.hitsIn(it);
    inner.append(text('title', 30, 17, segmentTitle(m.length, hits)));
    inner.append(text('sub', 30, 31, clip(`${short(n.text)} → ${short(last.text)}`, subChars(w))));
  } else {
    inner.append(text('title', 30, 17, clip(nodeTitle(n), titleChars(w) - (look.hasCode?.(n.id) ? 3 : 0))));
    inner.append(text('sub', 30, 31, clip(nodeSubtitle(n, it), subChars(w) - (it.isLeaf ? 3 : 0))));
    if (n.label !== undefined) {
      const bw = Math.min(w - 20, 14 + n.label.length * 6.2);
      const b = document.createElementNS(SVG, 'g');
      b.setAttribute('class', 'badge');
      b.append(
        rect('badge-box', w - bw - 4, -9, bw, 16, 8),
        text('badge-text', w - bw + 3, 3, clip(n.label, Math.floor((bw - 10) / 6.2))),
      );
      g.append(b);
    }
    if (it.isLeaf) {
      g.append(text('leaf-mark', w - 16, 31, glyph('location')));
    }
    // Changed files (edit, write, bash): a diff mark in the corner; find's file: finds them.
    if (n.changed?.length) g.append(text('changed-mark', w - 16, 17, glyph('diff')));
    // A checkpoint: the code at this entry is kept (Restore Code Here…).
    if (look.hasCode?.(n.id)) g.append(text('code-mark', n.changed?.length ? w - 32 : w - 16, 17, glyph('history')));
    // Marked by a first C: a dashed ring and the compare icon above the card, until the second C.
    if (look.isMarked(it.entry)) {
      g.prepend(rect('compare-ring', -5, -5, w + 10, NODE_H + 10, 9));
      g.append(text('compare-mark', 4, -9, glyph('git-compare')));
    }
  }
  if (it.folded) g.append(text('folded-mark', w / 2 - 12, NODE_H + 14, `+${it.hidden}`));
  return g;
}

/** The card width of an item (sized before the layout; the default for items made elsewhere). */
export function width(it: Item): number {
  return it.w || NODE_W;
}

function rect(cls: string, x: number, y: number, w: number, h: number, rx: number): SVGRectElement {
  const r = document.createElementNS(SVG, 'rect');
  r.setAttribute('class', cls);
  r.setAttribute('x', String(x));
  r.setAttribute('y', String(y));
  r.setAttribute('width', String(w));
  r.setAttribute('height', String(h));
  r.setAttribute('rx', String(rx));
  return r;
}

function text(cls: string, x: number, y: number, s: string): SVGTextElement {
  const t = document.createElementNS(SVG, 'text');
  t.setAttribute('class', cls);
  t.setAttribute('x', String(x));
  t.setAttribute('y', String(y));
  t.textContent = s;
  return t;
}
