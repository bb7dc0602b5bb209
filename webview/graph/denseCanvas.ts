// The rendered window drawn on a canvas when it holds too many items for SVG (zoomed far out): edges as
// straight lines, nodes as boxes in their kind's colour, the leaf and the selection highlighted.
import type { NodeView } from '../../src/protocol';
import type { Item } from '../model/derive';
import { NODE_H, NODE_W, type Rect } from '../model/layout';
import type { ThemeColors } from './themeColors';

/** Above this many items in the rendered window, draw on canvas instead of SVG. */
export const DENSE_LIMIT = 4000;

export class DenseCanvas {
  readonly el: HTMLCanvasElement;

  constructor(
    private readonly colors: ThemeColors,
    private readonly look: { nodes(): NodeView[]; isSelected(it: Item): boolean },
  ) {
    this.el = document.createElement('canvas');
    this.el.className = 'dense';
  }

  hide(): void {
    this.el.hidden = true;
  }

  /** Draws `items` of window `r` at zoom `k` into a pw × ph (CSS pixel) canvas. */
  draw(items: Item[], r: Rect, k: number, pw: number, ph: number): void {
    const c = this.el;
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    c.hidden = false;
    c.width = Math.max(1, Math.min(8192, Math.floor(pw * dpr)));
    c.height = Math.max(1, Math.min(8192, Math.floor(ph * dpr)));
    c.style.width = `${pw}px`;
    c.style.height = `${ph}px`;
    const ctx = c.getContext('2d')!;
    ctx.setTransform(dpr * k, 0, 0, dpr * k, -r.x0 * k * dpr, -r.y0 * k * dpr);
    ctx.lineWidth = 1.5 / k;
    ctx.strokeStyle = this.colors.get('--edge', '#888');
    ctx.beginPath();
    for (const it of items) {
      const p = it.parent;
      if (!p || p.depth === 0) continue;
      ctx.moveTo(p.x, p.y);
      ctx.lineTo(it.x, it.y);
    }
    ctx.stroke();
    const nodes = this.look.nodes();
    const color = (cls: string) => this.colors.get(`--kind-${cls}`, '#888');
    // At tiny zooms a node still covers a few pixels.
    const s = Math.max(NODE_H, 3 / k);
    for (const it of items) {
      const sw = Math.max(it.w || NODE_W, 4 / k);
      ctx.fillStyle = color(it.seg ? 'segment' : nodes[it.entry].kind);
      ctx.fillRect(it.x - sw / 2, it.y - s / 2, sw, s);
    }
    ctx.fillStyle = this.colors.get('--accent', '#3794ff');
    for (const it of items) {
      const w = it.w || NODE_W;
      if (it.isLeaf || this.look.isSelected(it))
        ctx.fillRect(it.x - w / 2 - 8 / k, it.y - s / 2 - 8 / k, w + 16 / k, s + 16 / k);
    }
  }
}
