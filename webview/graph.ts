// The graph: an SVG of the items in (and a margin around) the viewport, inside a layer that the
// compositor moves while panning, so a pan frame costs a transform and not a repaint. When the viewport
// leaves the rendered window, or the zoom settles, the window is culled and drawn again. Above a node
// budget (zoomed far out) the window is drawn on a canvas instead. A minimap shows the whole tree.
import type { NodeView } from '../src/protocol';
import type { Derived, Item } from './derive';
import { DX, DY, NODE_H, NODE_W, queryBars, queryItems, type Layout, type Rect } from './layout';
import { glyph, KIND_ICONS } from './icons';

const SVG = 'http://www.w3.org/2000/svg';
/** Share of the viewport drawn beyond each edge, so short pans need no redraw. */
export const MARGIN = 0.25;
/** Above this many items in the rendered window, draw on canvas instead of SVG. */
export const DENSE_LIMIT = 4000;
/** Below this zoom, nodes are drawn as plain boxes without text. */
export const TEXT_ZOOM = 0.45;
export const MIN_ZOOM = 0.002;
/** Minimap size in CSS pixels (styles.css uses the same). */
const MINI_W = 160;
const MINI_H = 120;
export const MAX_ZOOM = 2.5;

export interface GraphHost {
  nodes(): NodeView[];
  isSelected(it: Item): boolean;
  isHit(entry: number): boolean;
  hitsIn(it: Item): number;
  onSelect(it: Item, how: 'click' | 'dblclick' | 'contextmenu'): void;
  onViewChange(): void;
  contextFor(it: Item): string;
  itemForKey(key: string): Item | undefined;
  /** The graph got a size for the first time (the initial view can be placed now). */
  onFirstSize(): void;
}

export interface View {
  x: number;
  y: number;
  k: number;
}

export class GraphView {
  readonly el: HTMLDivElement;
  private readonly layer: HTMLDivElement;
  private readonly svg: SVGSVGElement;
  private readonly scene: SVGGElement;
  private readonly edgeOff: SVGPathElement;
  private readonly edgeOn: SVGPathElement;
  private readonly nodeLayer: SVGGElement;
  private readonly dense: HTMLCanvasElement;
  private readonly minimap: HTMLCanvasElement;
  private readonly miniBase: HTMLCanvasElement;
  private layout: Layout | undefined;
  private derived: Derived | undefined;
  /** Screen = world * k + (x, y). */
  view: View = { x: 0, y: 0, k: 1 };
  private rendered: { r: Rect; k: number; mode: 'svg' | 'canvas' } | undefined;
  private cache = new Map<string, SVGGElement>();
  private cacheSimple = false;
  private settleTimer = 0;
  private frame = 0;
  private width = 0;
  private height = 0;
  private anim = 0;
  /** Items currently in the DOM (for tests and the e2e hooks). */
  renderedCount = 0;
  private drag: { id: number; x: number; y: number; moved: boolean } | undefined;

  constructor(private readonly host: GraphHost) {
    this.el = document.createElement('div');
    this.el.className = 'graph';
    this.el.setAttribute('aria-hidden', 'true');
    this.layer = document.createElement('div');
    this.layer.className = 'layer';
    this.svg = document.createElementNS(SVG, 'svg');
    this.svg.classList.add('scene');
    this.scene = document.createElementNS(SVG, 'g');
    this.edgeOff = document.createElementNS(SVG, 'path');
    this.edgeOff.classList.add('edges');
    this.edgeOn = document.createElementNS(SVG, 'path');
    this.edgeOn.classList.add('edges', 'on-path');
    this.nodeLayer = document.createElementNS(SVG, 'g');
    this.nodeLayer.classList.add('nodes');
    this.scene.append(this.edgeOff, this.edgeOn, this.nodeLayer);
    this.svg.append(this.scene);
    this.dense = document.createElement('canvas');
    this.dense.className = 'dense';
    this.layer.append(this.svg, this.dense);
    this.minimap = document.createElement('canvas');
    this.minimap.className = 'minimap';
    this.miniBase = document.createElement('canvas');
    this.el.append(this.layer, this.minimap);
    this.bindPointer();
    new ResizeObserver(() => this.resize()).observe(this.el);
    // VS Code applies a theme by setting variables on <html> and classes on <body>.
    const theme = new MutationObserver(() => this.themeChanged());
    theme.observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
    theme.observe(document.body, { attributes: true, attributeFilter: ['style', 'class', 'data-vscode-theme-kind'] });
  }

  private resize(): void {
    const w = this.el.clientWidth;
    const h = this.el.clientHeight;
    if (w === this.width && h === this.height) return;
    const first = this.width === 0;
    // Keep the world point at the centre where it was.
    const c = first ? undefined : this.center();
    this.width = w;
    this.height = h;
    if (c) this.centerOn(c.x, c.y, this.view.k, false);
    else if (w && h) this.host.onFirstSize();
    this.minimapLater();
    this.request(true);
  }

  get size(): { w: number; h: number } {
    return { w: this.width, h: this.height };
  }

  setData(layout: Layout, derived: Derived): void {
    this.layout = layout;
    this.derived = derived;
    this.cache.clear();
    this.nodeLayer.replaceChildren();
    this.rendered = undefined;
    this.minimapLater();
    this.request(true);
  }

  /** Restyles nodes (selection, hits) without a relayout. */
  refreshStyles(): void {
    this.cache.clear();
    this.nodeLayer.replaceChildren();
    this.rendered = undefined;
    this.minimapLater();
    this.request(true);
  }

  /**
   * The minimap's overview (every item) is drawn in a task of its own after the frame that shows the
   * tree: it is not what a first paint waits for.
   */
  private minimapLater(): void {
    if (this.miniTimer) return;
    // A task queued from the next frame runs after that frame is painted.
    this.miniTimer = requestAnimationFrame(() =>
      setTimeout(() => {
        this.miniTimer = 0;
        this.drawMinimapBase();
      }, 0),
    );
  }
  private miniTimer = 0;

  // ───────────── view transform ─────────────

  center(): { x: number; y: number } {
    return { x: (this.width / 2 - this.view.x) / this.view.k, y: (this.height / 2 - this.view.y) / this.view.k };
  }

  worldRect(): Rect {
    const { x, y, k } = this.view;
    return { x0: -x / k, y0: -y / k, x1: (this.width - x) / k, y1: (this.height - y) / k };
  }

  centerOn(wx: number, wy: number, k = this.view.k, animate = false): void {
    k = clampZoom(k);
    const target = { x: this.width / 2 - wx * k, y: this.height / 2 - wy * k, k };
    this.animateTo(target, animate);
  }

  private animateTo(target: View, animate: boolean): void {
    cancelAnimationFrame(this.anim);
    const reduce = matchMedia('(prefers-reduced-motion: reduce)').matches;
    if (!animate || reduce || !this.width) {
      this.setView(target);
      return;
    }
    const from = { ...this.view };
    const t0 = performance.now();
    const step = () => {
      const t = Math.min(1, (performance.now() - t0) / 220);
      const e = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
      this.setView({ x: from.x + (target.x - from.x) * e, y: from.y + (target.y - from.y) * e, k: from.k * (target.k / from.k) ** e });
      if (t < 1) this.anim = requestAnimationFrame(step);
    };
    this.anim = requestAnimationFrame(step);
  }

  setView(v: View): void {
    this.view = { x: v.x, y: v.y, k: clampZoom(v.k) };
    this.applyTransform();
    this.host.onViewChange();
    this.request(false);
  }

  panBy(dx: number, dy: number): void {
    cancelAnimationFrame(this.anim);
    this.setView({ x: this.view.x + dx, y: this.view.y + dy, k: this.view.k });
  }

  zoomAt(factor: number, sx = this.width / 2, sy = this.height / 2): void {
    cancelAnimationFrame(this.anim);
    const k = clampZoom(this.view.k * factor);
    const f = k / this.view.k;
    this.setView({ x: sx - (sx - this.view.x) * f, y: sy - (sy - this.view.y) * f, k });
  }

  fit(animate = true): void {
    const l = this.layout;
    if (!l || !l.count || !this.width) return;
    const w = l.maxX - l.minX + NODE_W + 40;
    const h = l.maxY + NODE_H + 40;
    const k = clampZoom(Math.min(this.width / w, this.height / h, 1.2));
    this.centerOn((l.minX + l.maxX) / 2, l.maxY / 2, k, animate);
  }

  /** Pans (keeping the zoom) so that `it` is inside the viewport with a margin. */
  reveal(it: Item, animate = true): void {
    const r = this.worldRect();
    const mx = Math.min(NODE_W, (r.x1 - r.x0) / 4);
    const my = Math.min(NODE_H * 2, (r.y1 - r.y0) / 4);
    if (it.x - NODE_W / 2 >= r.x0 + mx && it.x + NODE_W / 2 <= r.x1 - mx && it.y - NODE_H / 2 >= r.y0 + my && it.y + NODE_H / 2 <= r.y1 - my) return;
    const k = this.view.k < 0.2 ? 0.6 : this.view.k;
    this.centerOn(it.x, it.y, k, animate);
  }

  screenOf(it: Item): { x: number; y: number } {
    const r = this.el.getBoundingClientRect();
    return { x: r.left + it.x * this.view.k + this.view.x, y: r.top + it.y * this.view.k + this.view.y };
  }

  private applyTransform(): void {
    const rd = this.rendered;
    if (!rd) return;
    const s = this.view.k / rd.k;
    this.layer.style.transform = `translate(${rd.r.x0 * this.view.k + this.view.x}px, ${rd.r.y0 * this.view.k + this.view.y}px) scale(${s})`;
  }

  /** Schedules a redraw: `force` re-culls; otherwise only when the viewport left the drawn window. */
  request(force: boolean): void {
    if (force) this.rendered = undefined;
    clearTimeout(this.settleTimer);
    if (this.rendered && this.rendered.k !== this.view.k) this.settleTimer = window.setTimeout(() => this.request(true), 140);
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.maybeRender();
    });
  }

  /** Draws now if needed (also used by the benchmark to measure a frame). */
  maybeRender(): void {
    const rd = this.rendered;
    const vr = this.worldRect();
    const inside = rd && vr.x0 >= rd.r.x0 && vr.y0 >= rd.r.y0 && vr.x1 <= rd.r.x1 && vr.y1 <= rd.r.y1;
    const ratio = rd ? this.view.k / rd.k : 1;
    if (!rd || !inside || ratio < 0.6 || ratio > 1.7) this.render();
    else this.applyTransform();
    this.drawMinimapView();
  }

  // ───────────── drawing ─────────────

  private render(): void {
    const l = this.layout;
    const d = this.derived;
    if (!l || !d || !this.width) return;
    const vr = this.worldRect();
    const mw = (vr.x1 - vr.x0) * MARGIN;
    const mh = (vr.y1 - vr.y0) * MARGIN;
    const r: Rect = { x0: vr.x0 - mw, y0: vr.y0 - mh, x1: vr.x1 + mw, y1: vr.y1 + mh };
    const k = this.view.k;
    const items = queryItems(l, r);
    const mode = items.length > DENSE_LIMIT ? 'canvas' : 'svg';
    this.rendered = { r, k, mode };
    const pw = Math.ceil((r.x1 - r.x0) * k);
    const ph = Math.ceil((r.y1 - r.y0) * k);
    if (mode === 'svg') {
      this.dense.hidden = true;
      this.svg.style.display = '';
      this.svg.setAttribute('width', String(pw));
      this.svg.setAttribute('height', String(ph));
      this.scene.setAttribute('transform', `scale(${k}) translate(${-r.x0} ${-r.y0})`);
      this.drawEdges(items, r);
      this.drawNodes(items, k < TEXT_ZOOM);
    } else {
      this.svg.style.display = 'none';
      this.nodeLayer.replaceChildren();
      this.cache.clear();
      this.renderedCount = 0;
      this.drawDense(items, r, k, pw, ph);
    }
    this.applyTransform();
    performance.mark('pi-tree:rendered');
  }

  private drawEdges(items: Item[], r: Rect): void {
    const off: string[] = [];
    const on: string[] = [];
    const h2 = NODE_H / 2;
    for (const it of items) {
      const p = it.parent;
      if (!p || p.depth === 0) continue;
      const out = it.onPath && p.onPath ? on : off;
      const midY = p.y + DY / 2;
      if (p.children!.length === 1) out.push(`M${p.x} ${p.y + h2}${p.x === it.x ? '' : `V${midY}H${it.x}`}V${it.y - h2}`);
      else out.push(`M${it.x} ${midY}V${it.y - h2}`);
      // Parents drawn above the window still need their stub down to the bar.
      if (p.children!.length > 1 && p.children![0] === it) {
        const pOn = p.onPath;
        (pOn ? on : off).push(`M${p.x} ${p.y + h2}V${midY}`);
      }
    }
    for (const b of queryBars(this.layout!, r)) {
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
      this.cache.clear();
      this.nodeLayer.replaceChildren();
      this.cacheSimple = simple;
    }
    const keep = new Set<string>();
    const frag = document.createDocumentFragment();
    for (const it of items) {
      keep.add(it.key);
      if (this.cache.has(it.key)) continue;
      const g = simple ? this.simpleNode(it) : this.fullNode(it);
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

  private nodeClass(it: Item, n: NodeView): string {
    let c = `node k-${it.seg ? 'segment' : n.kind}`;
    if (it.seg) c += ' seg';
    if (it.onPath) c += ' on-path';
    if (it.isLeaf) c += ' leaf';
    if (!it.seg && n.label !== undefined) c += ' labelled';
    if (!it.seg && n.error) c += ' error';
    if (this.host.isSelected(it)) c += ' selected';
    if (it.seg ? this.host.hitsIn(it) > 0 : this.host.isHit(it.entry)) c += ' hit';
    if (it.folded) c += ' folded';
    return c;
  }

  private baseNode(it: Item, n: NodeView): SVGGElement {
    const g = document.createElementNS(SVG, 'g');
    g.setAttribute('class', this.nodeClass(it, n));
    g.setAttribute('transform', `translate(${it.x - NODE_W / 2} ${it.y - NODE_H / 2})`);
    g.dataset.key = it.key;
    if (!it.seg) g.dataset.entryId = n.id;
    g.dataset.vscodeContext = this.host.contextFor(it);
    return g;
  }

  private simpleNode(it: Item): SVGGElement {
    const n = this.host.nodes()[it.entry];
    const g = this.baseNode(it, n);
    g.classList.add('simple');
    g.append(rect('box', 0, 0, NODE_W, NODE_H, 6));
    return g;
  }

  private fullNode(it: Item): SVGGElement {
    const nodes = this.host.nodes();
    const n = nodes[it.entry];
    const g = this.baseNode(it, n);
    if (it.seg) {
      g.append(rect('stack', 6, -6, NODE_W, NODE_H, 6), rect('stack', 3, -3, NODE_W, NODE_H, 6));
    }
    g.append(rect('box', 0, 0, NODE_W, NODE_H, 6), rect('stripe', 0, 0, 4, NODE_H, 2));
    const icon = text('icon', 10, 25, glyph(it.seg ? 'ellipsis' : (KIND_ICONS[n.kind] ?? 'symbol-event')));
    g.append(icon);
    if (it.seg) {
      const m = it.members!;
      const last = nodes[m[m.length - 1]];
      const hits = this.host.hitsIn(it);
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
    }
    if (it.folded) g.append(text('folded-mark', NODE_W / 2 - 12, NODE_H + 14, `+${it.hidden}`));
    return g;
  }

  private drawDense(items: Item[], r: Rect, k: number, pw: number, ph: number): void {
    const c = this.dense;
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    c.hidden = false;
    c.width = Math.max(1, Math.min(8192, Math.floor(pw * dpr)));
    c.height = Math.max(1, Math.min(8192, Math.floor(ph * dpr)));
    c.style.width = `${pw}px`;
    c.style.height = `${ph}px`;
    const ctx = c.getContext('2d')!;
    ctx.setTransform(dpr * k, 0, 0, dpr * k, -r.x0 * k * dpr, -r.y0 * k * dpr);
    ctx.lineWidth = 1.5 / k;
    ctx.strokeStyle = this.color('--edge', '#888');
    ctx.beginPath();
    for (const it of items) {
      const p = it.parent;
      if (!p || p.depth === 0) continue;
      ctx.moveTo(p.x, p.y);
      ctx.lineTo(it.x, it.y);
    }
    ctx.stroke();
    const nodes = this.host.nodes();
    const color = (cls: string) => this.color(`--kind-${cls}`, '#888');
    // At tiny zooms a node still covers a few pixels.
    const s = Math.max(NODE_H, 3 / k);
    const sw = Math.max(NODE_W, 4 / k);
    for (const it of items) {
      ctx.fillStyle = color(it.seg ? 'segment' : nodes[it.entry].kind);
      ctx.fillRect(it.x - sw / 2, it.y - s / 2, sw, s);
    }
    ctx.fillStyle = this.color('--accent', '#3794ff');
    for (const it of items) if (it.isLeaf || this.host.isSelected(it)) ctx.fillRect(it.x - NODE_W / 2 - 8 / k, it.y - s / 2 - 8 / k, NODE_W + 16 / k, s + 16 / k);
  }

  /**
   * A theme colour for the canvases (CSS variable of the graph), read once per theme: reading computed
   * style while the DOM is being changed forces a style recalculation on the spot.
   */
  private color(name: string, fallback: string): string {
    let v = this.colors.get(name);
    if (v === undefined) {
      this.style ??= getComputedStyle(this.el);
      v = this.style.getPropertyValue(name).trim() || fallback;
      this.colors.set(name, v);
    }
    return v;
  }
  private readonly colors = new Map<string, string>();
  private style: CSSStyleDeclaration | undefined;

  /** The theme changed (VS Code sets body classes and variables): canvases are drawn again with its colours. */
  themeChanged(): void {
    this.colors.clear();
    this.minimapLater();
    this.request(true);
  }

  // ───────────── minimap ─────────────

  private miniScale(): { s: number; ox: number; oy: number } | undefined {
    const l = this.layout;
    if (!l || !l.count) return undefined;
    const W = MINI_W;
    const H = MINI_H;
    const w = l.maxX - l.minX + NODE_W;
    const h = l.maxY + NODE_H;
    const s = Math.min(W / w, H / h);
    return { s, ox: (W - w * s) / 2 - (l.minX - NODE_W / 2) * s, oy: (H - h * s) / 2 + (NODE_H / 2) * s };
  }

  private drawMinimapBase(): void {
    const l = this.layout;
    const m = this.miniScale();
    const W = MINI_W;
    const H = MINI_H;
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    this.miniBase.width = this.minimap.width = Math.floor(W * dpr);
    this.miniBase.height = this.minimap.height = Math.floor(H * dpr);
    const ctx = this.miniBase.getContext('2d')!;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    if (!l || !m) return;
    const fg = this.color('--mini-node', '#888');
    const path = this.color('--accent', '#3794ff');
    const hit = this.color('--hit', '#e2c08d');
    const sz = Math.max(1, Math.min(3, DX * m.s));
    ctx.fillStyle = fg;
    for (const row of l.levels) for (const it of row) ctx.fillRect(it.x * m.s + m.ox - sz / 2, it.y * m.s + m.oy, sz, Math.max(1, DY * m.s * 0.6));
    ctx.fillStyle = path;
    for (const row of l.levels) for (const it of row) if (it.onPath) ctx.fillRect(it.x * m.s + m.ox - sz / 2, it.y * m.s + m.oy, sz, Math.max(1, DY * m.s));
    ctx.fillStyle = hit;
    for (const row of l.levels) for (const it of row) if (it.seg ? this.host.hitsIn(it) > 0 : this.host.isHit(it.entry)) ctx.fillRect(it.x * m.s + m.ox - 2, it.y * m.s + m.oy - 1, 4, 4);
    this.drawMinimapView();
  }

  private drawMinimapView(): void {
    const m = this.miniScale();
    const ctx = this.minimap.getContext('2d')!;
    const dpr = this.minimap.width / MINI_W;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.minimap.width, this.minimap.height);
    ctx.drawImage(this.miniBase, 0, 0);
    if (!m) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const r = this.worldRect();
    ctx.strokeStyle = this.color('--mini-view', '#3794ff');
    ctx.lineWidth = 1;
    ctx.strokeRect(r.x0 * m.s + m.ox, r.y0 * m.s + m.oy, Math.max(2, (r.x1 - r.x0) * m.s), Math.max(2, (r.y1 - r.y0) * m.s));
  }

  private minimapTo(ev: PointerEvent): void {
    const m = this.miniScale();
    if (!m) return;
    const b = this.minimap.getBoundingClientRect();
    this.centerOn((ev.clientX - b.left - m.ox) / m.s, (ev.clientY - b.top - m.oy) / m.s);
  }

  // ───────────── pointer and wheel ─────────────

  private bindPointer(): void {
    const el = this.el;
    el.addEventListener(
      'wheel',
      (ev) => {
        ev.preventDefault();
        const b = el.getBoundingClientRect();
        if (ev.ctrlKey || ev.metaKey) {
          // Trackpad pinch arrives as ctrl+wheel; mouse users zoom with Ctrl/Cmd+wheel.
          this.zoomAt(Math.exp(-ev.deltaY * (ev.deltaMode === 1 ? 0.05 : 0.0025)), ev.clientX - b.left, ev.clientY - b.top);
        } else {
          const f = ev.deltaMode === 1 ? 16 : 1;
          this.panBy(-ev.deltaX * f, -ev.deltaY * f);
        }
      },
      { passive: false },
    );
    this.minimap.addEventListener('pointerdown', (ev) => {
      ev.stopPropagation();
      this.minimap.setPointerCapture(ev.pointerId);
      this.minimapTo(ev);
      const move = (e: PointerEvent) => this.minimapTo(e);
      const up = () => {
        this.minimap.removeEventListener('pointermove', move);
        this.minimap.removeEventListener('pointerup', up);
      };
      this.minimap.addEventListener('pointermove', move);
      this.minimap.addEventListener('pointerup', up);
    });
    el.addEventListener('pointerdown', (ev) => {
      if (ev.button !== 0 && ev.button !== 1) return;
      this.drag = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, moved: false };
    });
    el.addEventListener('pointermove', (ev) => {
      const d = this.drag;
      if (!d || d.id !== ev.pointerId) return;
      const dx = ev.clientX - d.x;
      const dy = ev.clientY - d.y;
      if (!d.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
      if (!d.moved) {
        d.moved = true;
        el.setPointerCapture(ev.pointerId);
        el.classList.add('panning');
      }
      d.x = ev.clientX;
      d.y = ev.clientY;
      this.panBy(dx, dy);
    });
    const end = (ev: PointerEvent) => {
      const d = this.drag;
      if (!d || d.id !== ev.pointerId) return;
      this.drag = undefined;
      el.classList.remove('panning');
      if (d.moved) {
        // Swallow the click that ends a drag.
        const swallow = (e: Event) => e.stopPropagation();
        el.addEventListener('click', swallow, { capture: true, once: true });
        setTimeout(() => el.removeEventListener('click', swallow, { capture: true }), 0);
      }
    };
    el.addEventListener('pointerup', end);
    el.addEventListener('pointercancel', end);
    const itemAt = (ev: Event): Item | undefined => {
      const g = (ev.target as Element).closest?.('g.node') as SVGGElement | null;
      const key = g?.dataset.key;
      return key ? this.itemByKey(key) : undefined;
    };
    el.addEventListener('click', (ev) => {
      const it = itemAt(ev);
      if (it) this.host.onSelect(it, 'click');
    });
    el.addEventListener('dblclick', (ev) => {
      const it = itemAt(ev);
      if (it) this.host.onSelect(it, 'dblclick');
    });
    el.addEventListener('contextmenu', (ev) => {
      const it = itemAt(ev);
      if (it) this.host.onSelect(it, 'contextmenu');
    });
  }

  private itemByKey(key: string): Item | undefined {
    return this.host.itemForKey(key);
  }

  /** The node element of an item, when it is in the DOM. */
  elementOf(it: Item): SVGGElement | undefined {
    return this.cache.get(it.key);
  }
}

function clampZoom(k: number): number {
  return Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, k));
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

/** Row text without pi's role prefix (the icon says it). */
export function short(s: string): string {
  return s
    .replace(/^(user|assistant): /, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function clip(s: string, n: number): string {
  return s.length > n ? s.slice(0, Math.max(1, n - 1)) + '…' : s;
}

function subtitle(n: NodeView, it: Item): string {
  const parts: string[] = [];
  if (n.model) parts.push(n.model);
  if (n.tools?.length) parts.push(n.tools.join(', '));
  if (n.tokens) parts.push(`${n.tokens >= 1000 ? Math.round(n.tokens / 100) / 10 + 'k' : n.tokens} tok`);
  if (!parts.length) parts.push(n.role ?? n.type);
  if (it.children && it.children.length > 1) parts.unshift(`${it.children.length} branches`);
  return parts.join(' · ');
}
