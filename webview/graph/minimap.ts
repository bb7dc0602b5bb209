// The minimap: the whole tree (every item, the current path, find hits) on a canvas strip beside the
// graph (like VS Code's editor minimap: it never covers a node), drawn once per layout in a task after
// the frame that shows the tree, with the viewport's rectangle drawn over it per frame. Pressing or
// dragging on it moves the view there. The tree fills the strip's width and height, each axis scaled
// on its own (a deep tree scaled as a whole was a 1-px line in a tall strip), and a press where no card
// is drawn moves the view only as far as keeps the nearest card in it (it used to show empty space).
import type { Item } from '../model/derive';
import { DX, DY, NODE_H, NODE_W, type Layout, type Rect } from '../model/layout';
import { onFrame, whenFree } from '../ui/schedule';
import type { ThemeColors } from './themeColors';

/** Fallback size in CSS pixels until the strip has been measured (styles.css sets --mini-w). */
const MINI_W = 72;
const MINI_H = 240;

export interface MinimapHost {
  layout(): Layout | undefined;
  worldRect(): Rect;
  isHit(entry: number): boolean;
  hitsIn(it: Item): number;
  /** Centres the view on a world point. */
  centerOn(x: number, y: number): void;
}

/** World → strip: x * sx + ox, y * sy + oy. */
export interface MiniScale {
  sx: number;
  sy: number;
  ox: number;
  oy: number;
}

/** A short tree is not stretched more than this many times its width's scale in height. */
const MAX_STRETCH_Y = 8;

/**
 * The scale that puts the tree's box (`minX`…`maxX` of the card centres, `maxY` of the deepest row) on a
 * `w` × `h` strip: its width across the whole strip, its height down the whole strip (a short tree at
 * most MAX_STRETCH_Y times as tall as its width's scale, centred).
 */
export function miniScale(l: { minX: number; maxX: number; maxY: number }, w: number, h: number): MiniScale {
  const tw = l.maxX - l.minX + NODE_W;
  const th = l.maxY + NODE_H;
  const sx = w / tw;
  const sy = Math.min(h / th, sx * MAX_STRETCH_Y);
  return { sx, sy, ox: -(l.minX - NODE_W / 2) * sx, oy: (h - th * sy) / 2 + (NODE_H / 2) * sy };
}

/**
 * Where a press at world point (x, y) centres the view (`vw` × `vh` in world units): there, when a card
 * is within the view around it; else as near there as keeps the card nearest to it (on the strip) in view.
 */
export function pressTarget(
  l: Layout,
  m: MiniScale,
  x: number,
  y: number,
  vw: number,
  vh: number,
): { x: number; y: number } {
  let best: Item | undefined;
  let bestD = Infinity;
  for (const row of l.levels) {
    if (!row) continue;
    for (const it of row) {
      const dx = Math.max(0, Math.abs(it.x - x) - (it.w || NODE_W) / 2) * m.sx;
      const dy = Math.max(0, Math.abs(it.y - y) - NODE_H / 2) * m.sy;
      const d = dx * dx + dy * dy;
      if (d < bestD) {
        bestD = d;
        best = it;
      }
    }
  }
  if (!best) return { x, y };
  // The card stays inside the view with a margin of a tenth of the view each way.
  const hw = Math.max(0, vw / 2 - (best.w || NODE_W) / 2 - vw / 10);
  const hh = Math.max(0, vh / 2 - NODE_H / 2 - vh / 10);
  const clamp = (v: number, c: number, r: number) => Math.min(c + r, Math.max(c - r, v));
  return { x: clamp(x, best.x, hw), y: clamp(y, best.y, hh) };
}

export class Minimap {
  readonly el: HTMLCanvasElement;
  /** The overview without the viewport rectangle. */
  private readonly base: HTMLCanvasElement;
  private timer = 0;
  /** The strip's size in CSS pixels, as laid out. */
  private w = MINI_W;
  private h = MINI_H;

  constructor(
    private readonly host: MinimapHost,
    private readonly colors: ThemeColors,
  ) {
    this.el = document.createElement('canvas');
    this.el.className = 'minimap';
    this.base = document.createElement('canvas');
    new ResizeObserver((entries) => {
      const r = entries[entries.length - 1].contentRect;
      if (!r.width || !r.height || (r.width === this.w && r.height === this.h)) return;
      this.w = r.width;
      this.h = r.height;
      this.later();
    }).observe(this.el);
    this.el.addEventListener('pointerdown', (ev) => {
      ev.stopPropagation();
      this.el.setPointerCapture(ev.pointerId);
      this.navigate(ev);
      const move = (e: PointerEvent) => this.navigate(e);
      const up = () => {
        this.el.removeEventListener('pointermove', move);
        this.el.removeEventListener('pointerup', up);
      };
      this.el.addEventListener('pointermove', move);
      this.el.addEventListener('pointerup', up);
    });
  }

  /**
   * Redraws the overview once the thread is free after the next frame: it is not what a paint waits for,
   * and at 100k items it takes tens of ms that a key pressed meanwhile must not wait behind.
   */
  later(): void {
    if (this.timer) return;
    this.timer = onFrame(() =>
      whenFree(() => {
        this.timer = 0;
        this.drawBase();
      }),
    );
  }

  private scale(): MiniScale | undefined {
    const l = this.host.layout();
    if (!l || !l.count) return undefined;
    return miniScale(l, this.w, this.h);
  }

  private drawBase(): void {
    const l = this.host.layout();
    const m = this.scale();
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    this.base.width = this.el.width = Math.floor(this.w * dpr);
    this.base.height = this.el.height = Math.floor(this.h * dpr);
    const ctx = this.base.getContext('2d')!;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.w, this.h);
    if (!l || !m) {
      delete this.el.dataset.tree;
      return;
    }
    // Where the tree is drawn on the strip, in CSS px (tests read it: the canvas says nothing else).
    const box = [
      (l.minX - NODE_W / 2) * m.sx + m.ox,
      m.oy - (NODE_H / 2) * m.sy,
      (l.maxX + NODE_W / 2) * m.sx + m.ox,
      (l.maxY + NODE_H / 2) * m.sy + m.oy,
    ];
    this.el.dataset.tree = box.map((v) => v.toFixed(1)).join(' ');
    const fg = this.colors.get('--mini-node', '#888');
    const path = this.colors.get('--accent', '#3794ff');
    const hit = this.colors.get('--hit', '#e2c08d');
    const sz = Math.max(1, Math.min(3, DX * m.sx));
    ctx.fillStyle = fg;
    for (const row of l.levels)
      for (const it of row)
        ctx.fillRect(it.x * m.sx + m.ox - sz / 2, it.y * m.sy + m.oy, sz, Math.max(1, DY * m.sy * 0.6));
    ctx.fillStyle = path;
    for (const row of l.levels)
      for (const it of row)
        if (it.onPath) ctx.fillRect(it.x * m.sx + m.ox - sz / 2, it.y * m.sy + m.oy, sz, Math.max(1, DY * m.sy));
    ctx.fillStyle = hit;
    for (const row of l.levels)
      for (const it of row)
        if (it.seg ? this.host.hitsIn(it) > 0 : this.host.isHit(it.entry))
          ctx.fillRect(it.x * m.sx + m.ox - 2, it.y * m.sy + m.oy - 1, 4, 4);
    this.drawView();
  }

  /** The overview with the viewport's rectangle over it. */
  drawView(): void {
    const m = this.scale();
    const ctx = this.el.getContext('2d')!;
    const dpr = this.el.width / this.w;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.el.width, this.el.height);
    ctx.drawImage(this.base, 0, 0);
    if (!m) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const v = viewRect(this.host.worldRect(), m, this.w, this.h);
    // a light wash of the frame's colour, so that the tree under it still shows
    ctx.fillStyle = ctx.strokeStyle = this.colors.get('--mini-view', '#3794ff');
    ctx.globalAlpha = 0.12;
    ctx.fillRect(v.x, v.y, v.w, v.h);
    ctx.globalAlpha = 1;
    ctx.lineWidth = 1;
    ctx.strokeRect(v.x, v.y, v.w, v.h);
  }

  private navigate(ev: PointerEvent): void {
    const l = this.host.layout();
    const m = this.scale();
    if (!l || !m) return;
    const b = this.el.getBoundingClientRect();
    const v = this.host.worldRect();
    const t = pressTarget(
      l,
      m,
      (ev.clientX - b.left - m.ox) / m.sx,
      (ev.clientY - b.top - m.oy) / m.sy,
      v.x1 - v.x0,
      v.y1 - v.y0,
    );
    this.host.centerOn(t.x, t.y);
  }
}

/**
 * The visible area `r` (world coordinates) on a strip of `w` × `h` at scale `m`, kept inside the strip
 * and at least 2 px each way: a view wider than the tree drew as two stray lines, its sides off the strip.
 */
export function viewRect(
  r: { x0: number; y0: number; x1: number; y1: number },
  m: MiniScale,
  w: number,
  h: number,
): { x: number; y: number; w: number; h: number } {
  const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
  const x0 = clamp(r.x0 * m.sx + m.ox, 0.5, w - 2.5);
  const y0 = clamp(r.y0 * m.sy + m.oy, 0.5, h - 2.5);
  const x1 = clamp(r.x1 * m.sx + m.ox, x0 + 2, w - 0.5);
  const y1 = clamp(r.y1 * m.sy + m.oy, y0 + 2, h - 0.5);
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}
