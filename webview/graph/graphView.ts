// The graph: the items in (and a margin around) the viewport, drawn inside a layer that the compositor
// moves while panning, so a pan frame costs a transform and not a repaint. When the viewport leaves the
// rendered window, or the zoom settles, the window is culled and drawn again: as SVG (svgScene.ts), or
// on a canvas above a node budget (denseCanvas.ts). A minimap strip beside the graph (never over it)
// shows the whole tree. Views are framed around the selection's neighbourhood at a readable zoom.
import type { NodeView } from '../../src/protocol';
import type { Derived, Item } from '../model/derive';
import { queryItems, type Layout, type Rect } from '../model/layout';
import { layoutBox, neighbourhood, type Reach } from '../model/neighbourhood';
import { after, cancelAfter, cancelFrame, onFrame } from '../ui/schedule';
import { DENSE_LIMIT, DenseCanvas } from './denseCanvas';
import { Minimap } from './minimap';
import { bindPointer } from './pointerInput';
import { SvgScene } from './svgScene';
import { ThemeColors } from './themeColors';
import { clampZoom, FIT_MIN_ZOOM, MIN_ZOOM, READABLE_ZOOM, Viewport, type View } from './viewport';

export type Placement = 'frame' | 'fit' | 'overview';

/** What is framed on open and after a move, and what "Fit" frames when the whole tree is too big. */
export const NEAR: Reach = { up: 5, down: 3, toBranch: 4 };
export const FIT_REACH: Reach = { up: 12, down: 6 };

/** Share of the viewport drawn beyond each edge, so short pans need no redraw. */
export const MARGIN = 0.25;

export interface GraphHost {
  nodes(): NodeView[];
  isSelected(it: Item): boolean;
  isHit(entry: number): boolean;
  hitsIn(it: Item): number;
  isMarked(entry: number): boolean;
  onSelect(it: Item, how: 'click' | 'dblclick' | 'contextmenu'): void;
  onViewChange(): void;
  contextFor(it: Item): string;
  itemForKey(key: string): Item | undefined;
  /** The graph got a size for the first time (the initial view can be placed now). */
  onFirstSize(): void;
  hasCode?(id: string): boolean;
}

export class GraphView {
  /** The graph and its minimap strip (what the app lays out). */
  readonly pane: HTMLDivElement;
  /** The graph's viewport. */
  readonly el: HTMLDivElement;
  private readonly layer: HTMLDivElement;
  private readonly port = new Viewport();
  private readonly colors: ThemeColors;
  private readonly svg: SvgScene;
  private readonly dense: DenseCanvas;
  private readonly minimap: Minimap;
  private layout: Layout | undefined;
  private derived: Derived | undefined;
  private rendered: { r: Rect; k: number; mode: 'svg' | 'canvas' } | undefined;
  private settleTimer = 0;
  /** Framed by the resize that `frameAfterResize` measures (the panes around the graph changed). */
  private reframe: Item | undefined;
  /** Where the last `frameAround` put the view (until the view moves elsewhere). */
  private framed: View | undefined;
  private placed: { kind: Placement; view: View; focus?: string } | undefined;
  /** Where a running animation goes. */
  private animTarget: View | undefined;
  private frame = 0;
  private anim = 0;

  constructor(private readonly host: GraphHost) {
    this.el = document.createElement('div');
    this.el.className = 'graph';
    this.el.setAttribute('aria-hidden', 'true');
    this.layer = document.createElement('div');
    this.layer.className = 'layer';
    this.colors = new ThemeColors(this.el, () => this.themeChanged());
    this.svg = new SvgScene(host);
    this.dense = new DenseCanvas(this.colors, host);
    this.layer.append(this.svg.el, this.dense.el);
    this.minimap = new Minimap(
      {
        layout: () => this.layout,
        worldRect: () => this.worldRect(),
        isHit: (e) => host.isHit(e),
        hitsIn: (it) => host.hitsIn(it),
        centerOn: (x, y) => this.centerOn(x, y),
      },
      this.colors,
    );
    this.el.append(this.layer);
    this.pane = document.createElement('div');
    this.pane.className = 'graph-pane';
    this.pane.setAttribute('aria-hidden', 'true');
    this.pane.append(this.el, this.minimap.el);
    bindPointer(this.el, {
      panBy: (dx, dy) => this.panBy(dx, dy),
      zoomAt: (f, sx, sy) => this.zoomAt(f, sx, sy),
      itemForKey: (key) => host.itemForKey(key),
      onSelect: (it, how) => host.onSelect(it, how),
    });
    new ResizeObserver(() => this.resize()).observe(this.el);
  }

  /** The view transform (screen = world * k + (x, y)). */
  get view(): View {
    return this.port.view;
  }

  get size(): { w: number; h: number } {
    return { w: this.port.width, h: this.port.height };
  }

  /** Items currently in the DOM (for tests and the benchmark). */
  get renderedCount(): number {
    return this.svg.renderedCount;
  }

  private resize(): void {
    const w = this.el.clientWidth;
    const h = this.el.clientHeight;
    if (w === this.port.width && h === this.port.height) return;
    const first = this.port.width === 0;
    // Keep the world point at the centre where it was.
    const c = first ? undefined : this.center();
    // A view still as a frame, Fit or the overview placed it (nobody panned or zoomed since) is placed
    // again at the new size: a wider editor shows what a narrow one cut off.
    const kept = first ? undefined : this.stillPlaced();
    const keptFocus = this.placed?.focus !== undefined ? this.host.itemForKey(this.placed.focus) : undefined;
    this.port.width = w;
    this.port.height = h;
    const again = this.reframe;
    this.reframe = undefined;
    if (again && w && h && !first) this.frameAround(again, false);
    else if (w && h && kept === 'frame' && keptFocus) this.frameAround(keptFocus, false);
    else if (w && h && kept === 'fit') this.fit(keptFocus, false);
    else if (w && h && kept === 'overview') this.overview(false);
    else if (c) this.centerOn(c.x, c.y, this.view.k, false);
    else if (w && h) this.host.onFirstSize();
    this.minimap.later();
    this.request(true);
  }

  setData(layout: Layout, derived: Derived): void {
    this.layout = layout;
    this.derived = derived;
    this.svg.clear();
    this.rendered = undefined;
    this.minimap.later();
    this.request(true);
  }

  /**
   * The same layout with a few items changed in place (entries appended, path or selection marks): only
   * those are drawn again. `overview`: whether the minimap shows the change (it shows the path, not the
   * selection).
   */
  itemsChanged(keys: readonly string[], overview = true): void {
    this.svg.forget(keys);
    if (overview) this.minimap.later();
    this.request(true);
  }

  /** Restyles nodes (selection, hits) without a relayout. */
  refreshStyles(): void {
    this.svg.clear();
    this.rendered = undefined;
    this.minimap.later();
    this.request(true);
  }

  // ───────────── view transform ─────────────

  center(): { x: number; y: number } {
    return this.port.center();
  }

  worldRect(): Rect {
    return this.port.worldRect();
  }

  centerOn(wx: number, wy: number, k = this.view.k, animate = false): void {
    this.animateTo(this.port.centered(wx, wy, k), animate);
  }

  private animateTo(target: View, animate: boolean): void {
    this.stopAnim();
    const reduce = matchMedia('(prefers-reduced-motion: reduce)').matches;
    if (!animate || reduce || !this.port.width) {
      this.setView(target);
      return;
    }
    const from = { ...this.view };
    const t0 = performance.now();
    const step = () => {
      const t = Math.min(1, (performance.now() - t0) / 220);
      const e = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
      this.setView({
        x: from.x + (target.x - from.x) * e,
        y: from.y + (target.y - from.y) * e,
        k: from.k * (target.k / from.k) ** e,
      });
      if (t < 1) this.anim = onFrame(step);
      else this.animTarget = undefined;
    };
    this.animTarget = target;
    this.anim = onFrame(step);
  }

  private stopAnim(): void {
    cancelFrame(this.anim);
    this.animTarget = undefined;
  }

  setView(v: View): void {
    this.port.view = { x: v.x, y: v.y, k: clampZoom(v.k) };
    this.applyTransform();
    this.host.onViewChange();
    this.request(false);
  }

  panBy(dx: number, dy: number): void {
    this.stopAnim();
    this.setView({ x: this.view.x + dx, y: this.view.y + dy, k: this.view.k });
  }

  zoomAt(factor: number, sx?: number, sy?: number): void {
    this.stopAnim();
    this.setView(this.port.zoomedAt(factor, sx, sy));
  }

  /**
   * "Fit": the whole tree when it is readable at this size; else the neighbourhood of `focus` (the
   * selection) at a readable zoom. Returns what it showed.
   */
  fit(focus: Item | undefined, animate = true): 'whole' | 'near' | undefined {
    const l = this.layout;
    if (!l || !l.count || !this.port.width) return undefined;
    const whole = layoutBox(l);
    if (!focus || this.port.zoomToFit(whole) >= FIT_MIN_ZOOM) {
      this.place('fit', this.port.framed(whole, { minK: MIN_ZOOM, maxK: 1 }), animate, focus);
      return 'whole';
    }
    this.place(
      'fit',
      this.port.framed(neighbourhood(focus, FIT_REACH), {
        minK: FIT_MIN_ZOOM,
        maxK: 1,
        focus: { x: focus.x, y: focus.y, w: focus.w },
      }),
      animate,
      focus,
    );
    return 'near';
  }

  /**
   * The panes around the graph just changed (a narrow window, a pane shown or hidden): measure now and,
   * if the graph's size changed, frame `it` at the new size (else keep the view as it is).
   */
  frameAfterResize(it: Item | undefined): void {
    this.reframe = it;
    this.resize();
    this.reframe = undefined;
  }

  /** The whole tree, however small that makes it (the overview). */
  overview(animate = true): void {
    const l = this.layout;
    if (!l || !l.count || !this.port.width) return;
    this.place('overview', this.port.framed(layoutBox(l), { minK: MIN_ZOOM, maxK: 1 }), animate);
  }

  /**
   * Frames `focus` with its path above and below and the branches leaving it, at a readable zoom: as
   * much of the path above as fits (a small pane shows less of it rather than cutting branches off).
   */
  frameAround(focus: Item, animate = true, reach: Reach = NEAR): void {
    if (!this.port.width) return;
    // The family's link cards beside the path too (a fork's link to its source), when they fit at a
    // readable zoom; those that do not are moved wholly out of view below, never left cut at an edge.
    let box = neighbourhood(focus, { ...reach, links: true });
    const minK = READABLE_ZOOM;
    if (this.port.zoomToFit(box) < READABLE_ZOOM) box = neighbourhood(focus, reach);
    // Too big to read: no reach to the branch point, then less of the path above.
    if (reach.toBranch && this.port.zoomToFit(box) < minK)
      box = neighbourhood(focus, { up: reach.up, down: reach.down });
    for (let up = reach.up - 1; up >= 1 && this.port.zoomToFit(box) < minK; up--)
      box = neighbourhood(focus, { up, down: reach.down });
    const framed = this.port.framed(box, {
      minK,
      maxK: 1,
      focus: { x: focus.x, y: focus.y, w: focus.w },
    });
    // Link cards left out (too many to fit) are not cut at an edge either: wholly in, or out of view.
    const inView = this.layout ? queryItems(this.layout, this.port.worldRectOf(framed)) : [];
    const target = this.port.uncut(
      framed,
      box,
      inView.filter((i) => i.link),
      focus,
    );
    this.framed = { ...target, k: clampZoom(target.k) };
    this.place('frame', target, animate, focus);
  }

  /**
   * A view placed by a command (frame, Fit, overview), remembered so that it can be placed again on a new
   * layout or at a new size; `focus` is the item it was placed around.
   */
  private place(kind: Placement, target: View, animate: boolean, focus?: Item): void {
    this.placed = { kind, view: { ...target, k: clampZoom(target.k) }, focus: focus?.key };
    this.animateTo(target, animate);
  }

  /** What placed the view, if it is still there or on its way (nobody panned, zoomed or resized since). */
  stillPlaced(): Placement | undefined {
    const p = this.placed;
    if (!p) return undefined;
    const at = this.animTarget ? { ...this.animTarget, k: clampZoom(this.animTarget.k) } : this.view;
    return Math.abs(p.view.x - at.x) < 0.5 && Math.abs(p.view.y - at.y) < 0.5 && Math.abs(p.view.k - at.k) < 1e-6
      ? p.kind
      : undefined;
  }

  /** A framing (after a move) is still on its way: a change meanwhile should frame again, not cut it short. */
  framing(): boolean {
    return !!this.animTarget && this.placed?.kind === 'frame';
  }

  /** Whether the view is still where the last framing put it (nobody panned, zoomed or resized since). */
  stillFramed(): boolean {
    const f = this.framed;
    const v = this.view;
    return !!f && Math.abs(f.x - v.x) < 0.5 && Math.abs(f.y - v.y) < 0.5 && Math.abs(f.k - v.k) < 1e-6;
  }

  /** Pans (keeping the zoom) so that `it` is inside the viewport with a margin. */
  reveal(it: Item, animate = true): void {
    const v = this.port.revealing(it);
    if (v) this.animateTo(v, animate);
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
    cancelAfter(this.settleTimer);
    if (this.rendered && this.rendered.k !== this.view.k) this.settleTimer = after(140, () => this.request(true));
    if (this.frame) return;
    this.frame = onFrame(() => {
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
    this.minimap.drawView();
  }

  /** How long the last full draw took, in ms (benchmark). */
  lastRenderMs = 0;

  private render(): void {
    const t0 = performance.now();
    this.draw();
    this.lastRenderMs = performance.now() - t0;
  }

  private draw(): void {
    const l = this.layout;
    const d = this.derived;
    if (!l || !d || !this.port.width) return;
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
      this.dense.hide();
      this.svg.draw(items, r, k, l, pw, ph);
    } else {
      this.svg.hide();
      this.dense.draw(items, r, k, pw, ph);
    }
    this.applyTransform();
    performance.mark('pi-tree:rendered');
  }

  /** The theme changed: canvases are drawn again with its colours. */
  private themeChanged(): void {
    this.minimap.later();
    this.request(true);
  }

  /** The node element of an item, when it is in the DOM. */
  elementOf(it: Item): SVGGElement | undefined {
    return this.svg.elementOf(it);
  }
}
