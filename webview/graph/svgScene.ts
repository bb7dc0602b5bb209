// The SVG scene of the rendered window: edges as two paths (off and on the current path) and the nodes
// of the window, kept by key between redraws so a pan that stays in the window adds only new nodes.
import type { Item } from '../model/derive';
import { DY, NODE_H, queryBars, type Layout, type Rect } from '../model/layout';
import { fullNode, simpleNode, SVG, type NodeLook } from './svgNode';

/** Below this zoom, nodes are drawn as plain boxes without text. */
export const TEXT_ZOOM = 0.45;

export class SvgScene {
  readonly el: SVGSVGElement;
  private readonly scene: SVGGElement;
  private readonly edgeOff: SVGPathElement;
  private readonly edgeOn: SVGPathElement;
  private readonly nodeLayer: SVGGElement;
  private cache = new Map<string, SVGGElement>();
  private cacheSimple = false;
  /** Items currently in the DOM (for tests and the benchmark). */
  renderedCount = 0;

  constructor(private readonly look: NodeLook) {
    this.el = document.createElementNS(SVG, 'svg');
    this.el.classList.add('scene');
    this.scene = document.createElementNS(SVG, 'g');
    this.edgeOff = document.createElementNS(SVG, 'path');
    this.edgeOff.classList.add('edges');
    this.edgeOn = document.createElementNS(SVG, 'path');
    this.edgeOn.classList.add('edges', 'on-path');
    this.nodeLayer = document.createElementNS(SVG, 'g');
    this.nodeLayer.classList.add('nodes');
    this.scene.append(this.edgeOff, this.edgeOn, this.nodeLayer);
    this.el.append(this.scene);
  }

  /** Drops every node (new data, or new styles): the next draw builds them again. */
  clear(): void {
    this.cache.clear();
    this.nodeLayer.replaceChildren();
  }

  /** Drops the nodes of `keys` (their items changed): the next draw builds just those again. */
  forget(keys: readonly string[]): void {
    for (const key of keys) {
      this.cache.get(key)?.remove();
      this.cache.delete(key);
    }
  }

  /** Hidden while the canvas draws a dense window. */
  hide(): void {
    this.el.style.display = 'none';
    this.clear();
    this.renderedCount = 0;
  }

  /** Draws `items` of window `r` at zoom `k` into a pw × ph pixel SVG. */
  draw(items: Item[], r: Rect, k: number, layout: Layout, pw: number, ph: number): void {
    this.el.style.display = '';
    this.el.setAttribute('width', String(pw));
    this.el.setAttribute('height', String(ph));
    this.scene.setAttribute('transform', `scale(${k}) translate(${-r.x0} ${-r.y0})`);
    this.drawEdges(items, r, layout);
    this.drawNodes(items, k < TEXT_ZOOM);
  }

  /** The node element of an item, when it is in the DOM. */
  elementOf(it: Item): SVGGElement | undefined {
    return this.cache.get(it.key);
  }

  private drawEdges(items: Item[], r: Rect, layout: Layout): void {
    const off: string[] = [];
    const on: string[] = [];
    const h2 = NODE_H / 2;
    for (const it of items) {
      const p = it.parent;
      if (!p || p.depth === 0) continue;
      const out = it.onPath && p.onPath ? on : off;
      const midY = p.y + DY / 2;
      if (p.children!.length === 1)
        out.push(`M${p.x} ${p.y + h2}${p.x === it.x ? '' : `V${midY}H${it.x}`}V${it.y - h2}`);
      else out.push(`M${it.x} ${midY}V${it.y - h2}`);
      // Parents drawn above the window still need their stub down to the bar.
      if (p.children!.length > 1 && p.children![0] === it) {
        const pOn = p.onPath;
        (pOn ? on : off).push(`M${p.x} ${p.y + h2}V${midY}`);
      }
    }
    for (const b of queryBars(layout, r)) {
      const p = b.parent;
      const midY = p.y + DY / 2;
      off.push(`M${b.x0} ${midY}H${b.x1}M${p.x} ${p.y + h2}V${midY}`);
      // The on-path part of the bar: from the parent to the on-path child.
      const onChild = p.onPath ? p.children!.find((c) => c.onPath) : undefined;
      if (onChild) on.push(`M${p.x} ${p.y + h2}V${midY}H${onChild.x}`);
    }
    this.edgeOff.setAttribute('d', off.join(''));
    this.edgeOn.setAttribute('d', on.join(''));
  }

  private drawNodes(items: Item[], simple: boolean): void {
    if (simple !== this.cacheSimple) {
      this.clear();
      this.cacheSimple = simple;
    }
    const keep = new Set<string>();
    const frag = document.createDocumentFragment();
    for (const it of items) {
      keep.add(it.key);
      if (this.cache.has(it.key)) continue;
      const g = simple ? simpleNode(this.look, it) : fullNode(this.look, it);
      this.cache.set(it.key, g);
      frag.append(g);
    }
    for (const [key, g] of this.cache) {
      if (!keep.has(key)) {
        g.remove();
        this.cache.delete(key);
      }
    }
    this.nodeLayer.append(frag);
    this.renderedCount = this.cache.size;
  }
}
