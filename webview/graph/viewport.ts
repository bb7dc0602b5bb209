// The graph's view transform (screen = world × k + (x, y)) and size: the world rectangle in view, and the
// views that centre a point, zoom about a point, frame a box (a neighbourhood, the whole tree) at a
// readable zoom, or bring an item into view. Pure math.
import type { Item } from '../model/derive';
import { MAX_NODE_W, NODE_H, NODE_W, type Layout, type Rect } from '../model/layout';

export const MIN_ZOOM = 0.002;
export const MAX_ZOOM = 2.5;
/** Below this zoom card titles are too small to read: framing on open, after a move and Fit stay above it. */
export const READABLE_ZOOM = 0.7;
/** "Fit" shows the whole tree only if it is at least this large; else a neighbourhood at this zoom. */
export const FIT_MIN_ZOOM = 0.5;
/** Screen pixels kept free around a framed box. */
export const FRAME_PAD = 24;

export interface View {
  x: number;
  y: number;
  k: number;
}

export function clampZoom(k: number): number {
  return Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, k));
}

export class Viewport {
  /** Screen = world * k + (x, y). */
  view: View = { x: 0, y: 0, k: 1 };
  width = 0;
  height = 0;

  /** The world point at the centre of the graph. */
  center(): { x: number; y: number } {
    return { x: (this.width / 2 - this.view.x) / this.view.k, y: (this.height / 2 - this.view.y) / this.view.k };
  }

  worldRect(): Rect {
    return this.worldRectOf(this.view);
  }

  /** The world rectangle view `v` shows. */
  worldRectOf(v: View): Rect {
    const { x, y, k } = v;
    return { x0: -x / k, y0: -y / k, x1: (this.width - x) / k, y1: (this.height - y) / k };
  }

  /** The view with world point (wx, wy) at the centre, at zoom `k`. */
  centered(wx: number, wy: number, k = this.view.k): View {
    k = clampZoom(k);
    return { x: this.width / 2 - wx * k, y: this.height / 2 - wy * k, k };
  }

  /** The view zoomed by `factor` about screen point (sx, sy), which stays where it is. */
  zoomedAt(factor: number, sx = this.width / 2, sy = this.height / 2): View {
    const k = clampZoom(this.view.k * factor);
    const f = k / this.view.k;
    return { x: sx - (sx - this.view.x) * f, y: sy - (sy - this.view.y) * f, k };
  }

  /** The view showing the whole layout (at most 1.2×), or undefined when there is nothing to fit. */
  fitted(l: Layout | undefined): View | undefined {
    if (!l || !l.count || !this.width) return undefined;
    const w = l.maxX - l.minX + NODE_W + 40;
    const h = l.maxY + NODE_H + 40;
    const k = clampZoom(Math.min(this.width / w, this.height / h, 1.2));
    return this.centered((l.minX + l.maxX) / 2, l.maxY / 2, k);
  }

  /** The zoom at which world box `b` fills the viewport (less `pad` screen pixels on each side). */
  zoomToFit(b: Rect, pad = FRAME_PAD): number {
    const aw = Math.max(1, this.width - 2 * pad);
    const ah = Math.max(1, this.height - 2 * pad);
    return Math.min(aw / Math.max(1, b.x1 - b.x0), ah / Math.max(1, b.y1 - b.y0));
  }

  /**
   * The view framing world box `b`: the largest zoom in [minK, maxK] at which it fits, centred. When it
   * does not fit even at `minK`, the view stays at `minK` and centres as close to the box's centre as it
   * can while `focus` (the selection) keeps a margin inside the viewport on each axis.
   */
  framed(
    b: Rect,
    opts: { minK: number; maxK: number; focus?: { x: number; y: number; w?: number }; pad?: number },
  ): View {
    const pad = opts.pad ?? FRAME_PAD;
    const fit = this.zoomToFit(b, pad);
    const k = clampZoom(Math.max(opts.minK, Math.min(opts.maxK, fit)));
    let cx = (b.x0 + b.x1) / 2;
    let cy = (b.y0 + b.y1) / 2;
    const f = opts.focus;
    if (f && fit < k) {
      // Cut off: half the viewport in world units, less the focus card, bounds how far the centre
      // may be from the focus.
      const hx = Math.max(0, (this.width / 2 - pad) / k - (f.w ?? MAX_NODE_W) / 2);
      const hy = Math.max(0, (this.height / 2 - pad) / k - NODE_H);
      cx = Math.min(f.x + hx, Math.max(f.x - hx, cx));
      cy = Math.min(f.y + hy, Math.max(f.y - hy, cy));
    }
    return this.centered(cx, cy, k);
  }

  /**
   * `v` moved sideways, within the room the framed box `b` leaves (when it is cut anyway, the room the
   * `focus` card leaves), so that no card of `cards` is cut by the graph's left or right edge: brought
   * wholly into view where the box stays in, else pushed wholly out (a family link card cut at the edge
   * hid what it was).
   */
  uncut(v: View, b: Rect, cards: readonly { x: number; w: number }[], focus?: { x: number; w: number }): View {
    const k = v.k;
    const span = this.width / k;
    const pad = FRAME_PAD / k;
    // The view's left edge (world) may go from lo to hi and keep the box in (its padding may shrink).
    let lo = b.x1 - span;
    let hi = b.x0;
    if (lo > hi && focus) {
      const half = (focus.w || NODE_W) / 2;
      [lo, hi] = [focus.x + half - span, focus.x - half];
    }
    if (lo > hi) return v;
    // The fewest cards cut, then the least move: over the edges that bring a card in or push it out.
    const from = -v.x / k;
    const cut = (x0: number) =>
      cards.filter((c) => {
        const h = (c.w || NODE_W) / 2;
        return (c.x - h < x0 && x0 < c.x + h) || (c.x - h < x0 + span && x0 + span < c.x + h);
      }).length;
    const candidates = [Math.min(hi, Math.max(lo, from))];
    for (const c of cards) {
      const h = (c.w || NODE_W) / 2;
      for (const e of [c.x - h - pad, c.x - h, c.x + h, c.x + h + pad]) candidates.push(e, e - span);
    }
    let x0 = candidates[0];
    let best = cut(x0);
    for (const x of candidates) {
      if (x < lo || x > hi) continue;
      const n = cut(x);
      if (n < best || (n === best && Math.abs(x - from) < Math.abs(x0 - from))) [x0, best] = [x, n];
    }
    return { x: -x0 * k, y: v.y, k };
  }

  /**
   * The view with `it` inside the viewport by a small margin; undefined if it is. Near the view (the next
   * row of a keyboard step) it pans only as far as that takes, so what a framing showed beside the path
   * stays in view (it used to centre any card outside a wide central band, cutting a branch off while
   * half the pane stayed empty); far away, or zoomed far out, it centres the card (at a readable zoom).
   */
  revealing(it: Item): View | undefined {
    const r = this.worldRect();
    const k = this.view.k;
    const w = it.w || NODE_W;
    const vw = r.x1 - r.x0;
    const vh = r.y1 - r.y0;
    const mx = Math.min(FRAME_PAD / k, vw / 4);
    const my = Math.min(FRAME_PAD / k, vh / 4);
    const left = it.x - w / 2;
    const right = it.x + w / 2;
    const top = it.y - NODE_H / 2;
    const bottom = it.y + NODE_H / 2;
    const shift = (lo: number, hi: number, v0: number, v1: number, m: number) =>
      lo < v0 + m || hi - lo > v1 - v0 - 2 * m ? v0 + m - lo : hi > v1 - m ? v1 - m - hi : 0;
    const dx = shift(left, right, r.x0, r.x1, mx);
    const dy = shift(top, bottom, r.y0, r.y1, my);
    if (dx === 0 && dy === 0) return undefined;
    if (k < 0.2 || Math.abs(dx) > vw || Math.abs(dy) > vh) return this.centered(it.x, it.y, k < 0.2 ? 0.6 : k);
    return { x: this.view.x + dx * k, y: this.view.y + dy * k, k };
  }
}
