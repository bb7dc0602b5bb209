// One node of the SVG scene: a box with the kind's icon, title and subtitle (or a plain box when zoomed
// far out), label badge, leaf mark and fold count; a segment is drawn as a stack. Classes carry the state
// (path, leaf, selected, hit) that styles.css colours.
import type { NodeView } from '../../src/protocol';
import type { Item } from '../model/derive';
import { NODE_H, NODE_W } from '../model/layout';
import { clip, short } from '../ui/format';
import { glyph, KIND_ICONS } from '../ui/icons';

export const SVG = 'http://www.w3.org/2000/svg';

/** What a node needs to know beyond its item. */
export interface NodeLook {
  nodes(): NodeView[];
  isSelected(it: Item): boolean;
  isHit(entry: number): boolean;
  hitsIn(it: Item): number;
  /** The node's data-vscode-context (native context menu). */
  contextFor(it: Item): string;
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
  return c;
}

function baseNode(look: NodeLook, it: Item, n: NodeView): SVGGElement {
  const g = document.createElementNS(SVG, 'g');
  g.setAttribute('class', nodeClass(look, it, n));
  g.setAttribute('transform', `translate(${it.x - NODE_W / 2} ${it.y - NODE_H / 2})`);
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
  g.append(rect('box', 0, 0, NODE_W, NODE_H, 6));
  return g;
}

export function fullNode(look: NodeLook, it: Item): SVGGElement {
  const nodes = look.nodes();
  const n = nodes[it.entry];
  const g = baseNode(look, it, n);
  if (it.seg) {
    g.append(rect('stack', 6, -6, NODE_W, NODE_H, 6), rect('stack', 3, -3, NODE_W, NODE_H, 6));
  }
  g.append(rect('box', 0, 0, NODE_W, NODE_H, 6), rect('stripe', 0, 0, 4, NODE_H, 2));
  const icon = text('icon', 10, 25, glyph(it.seg ? 'ellipsis' : (KIND_ICONS[n.kind] ?? 'symbol-event')));
  g.append(icon);
  if (it.seg) {
    const m = it.members!;
    const last = nodes[m[m.length - 1]];
    const hits = look.hitsIn(it);
    g.append(text('title', 30, 17, `${m.length} entries${hits ? ` · ${hits} found` : ''}`));
    g.append(text('sub', 30, 31, clip(`${short(n.text)} → ${short(last.text)}`, 30)));
  } else {
    g.append(text('title', 30, 17, clip(short(n.text) || `[${n.type}]`, 24)));
    g.append(text('sub', 30, 31, clip(subtitle(n, it), 28)));
    if (n.label !== undefined) {
      const w = Math.min(NODE_W - 20, 14 + n.label.length * 6.2);
      const b = document.createElementNS(SVG, 'g');
      b.setAttribute('class', 'badge');
      b.append(rect('badge-box', NODE_W - w - 4, -9, w, 16, 8), text('badge-text', NODE_W - w + 3, 3, clip(n.label, Math.floor((w - 10) / 6.2))));
      g.append(b);
    }
    if (it.isLeaf) {
      g.append(text('leaf-mark', NODE_W - 16, 31, glyph('location')));
    }
    // Changed files (edit, write, bash): a diff mark in the corner; find's file: finds them.
    if (n.changed?.length) g.append(text('changed-mark', NODE_W - 16, 17, glyph('diff')));
  }
  if (it.folded) g.append(text('folded-mark', NODE_W / 2 - 12, NODE_H + 14, `+${it.hidden}`));
  return g;
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

function subtitle(n: NodeView, it: Item): string {
  if (n.link) return n.link.facts;
  const parts: string[] = [];
  if (n.model) parts.push(n.model);
  if (n.tools?.length) parts.push(n.tools.join(', '));
  if (n.tokens) parts.push(`${n.tokens >= 1000 ? Math.round(n.tokens / 100) / 10 + 'k' : n.tokens} tok`);
  if (!parts.length) parts.push(n.role ?? n.type);
  if (it.children && it.children.length > 1) parts.unshift(`${it.children.length} branches`);
  return parts.join(' · ');
}
