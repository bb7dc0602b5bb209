// The minimap: the whole tree (every item, the current path, find hits) on a canvas strip beside the
// graph (like VS Code's editor minimap: it never covers a node), drawn once per layout in a task after
// the frame that shows the tree, with the viewport's rectangle drawn over it per frame. Pressing or
// dragging on it moves the view there.
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

  private scale(): { s: number; ox: number; oy: number } | undefined {
    const l = this.host.layout();
    if (!l || !l.count) return undefined;
    const w = l.maxX - l.minX + NODE_W;
    const h = l.maxY + NODE_H;
    const s = Math.min(this.w / w, this.h / h);
    return { s, ox: (this.w - w * s) / 2 - (l.minX - NODE_W / 2) * s, oy: (this.h - h * s) / 2 + (NODE_H / 2) * s };
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
    if (!l || !m) return;
    const fg = this.colors.get('--mini-node', '#888');
    const path = this.colors.get('--accent', '#3794ff');
    const hit = this.colors.get('--hit', '#e2c08d');
    const sz = Math.max(1, Math.min(3, DX * m.s));
    ctx.fillStyle = fg;
    for (const row of l.levels) for (const it of row) ctx.fillRect(it.x * m.s + m.ox - sz / 2, it.y * m.s + m.oy, sz, Math.max(1, DY * m.s * 0.6));
    ctx.fillStyle = path;
    for (const row of l.levels) for (const it of row) if (it.onPath) ctx.fillRect(it.x * m.s + m.ox - sz / 2, it.y * m.s + m.oy, sz, Math.max(1, DY * m.s));
    ctx.fillStyle = hit;
    for (const row of l.levels) for (const it of row) if (it.seg ? this.host.hitsIn(it) > 0 : this.host.isHit(it.entry)) ctx.fillRect(it.x * m.s + m.ox - 2, it.y * m.s + m.oy - 1, 4, 4);
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
    const m = this.scale();
    if (!m) return;
    const b = this.el.getBoundingClientRect();
    this.host.centerOn((ev.clientX - b.left - m.ox) / m.s, (ev.clientY - b.top - m.oy) / m.s);
  }
}

/**
 * The visible area `r` (world coordinates) on a strip of `w` × `h` at scale `m`, kept inside the strip
 * and at least 2 px each way: a view wider than the tree drew as two stray lines, its sides off the strip.
 */
export function viewRect(r: { x0: number; y0: number; x1: number; y1: number }, m: { s: number; ox: number; oy: number }, w: number, h: number): { x: number; y: number; w: number; h: number } {
  const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
  const x0 = clamp(r.x0 * m.s + m.ox, 0.5, w - 2.5);
  const y0 = clamp(r.y0 * m.s + m.oy, 0.5, h - 2.5);
  const x1 = clamp(r.x1 * m.s + m.ox, x0 + 2, w - 0.5);
  const y1 = clamp(r.y1 * m.s + m.oy, y0 + 2, h - 0.5);
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}
