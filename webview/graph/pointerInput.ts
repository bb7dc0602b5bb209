// Pointer input on the graph: wheel pans (Ctrl/Cmd+wheel and trackpad pinch zoom), dragging pans (the
// click that ends a drag is swallowed), and click, double-click and context menu on a node select it.
import type { Item } from '../model/derive';
import { after } from '../ui/schedule';

export interface PointerHost {
  panBy(dx: number, dy: number): void;
  /** Zooms by `factor` about a point in graph coordinates. */
  zoomAt(factor: number, sx: number, sy: number): void;
  itemForKey(key: string): Item | undefined;
  onSelect(it: Item, how: 'click' | 'dblclick' | 'contextmenu'): void;
}

export function bindPointer(el: HTMLElement, host: PointerHost): void {
  let drag: { id: number; x: number; y: number; moved: boolean } | undefined;
  el.addEventListener(
    'wheel',
    (ev) => {
      ev.preventDefault();
      const b = el.getBoundingClientRect();
      if (ev.ctrlKey || ev.metaKey) {
        // Trackpad pinch arrives as ctrl+wheel; mouse users zoom with Ctrl/Cmd+wheel.
        host.zoomAt(
          Math.exp(-ev.deltaY * (ev.deltaMode === 1 ? 0.05 : 0.0025)),
          ev.clientX - b.left,
          ev.clientY - b.top,
        );
      } else {
        const f = ev.deltaMode === 1 ? 16 : 1;
        host.panBy(-ev.deltaX * f, -ev.deltaY * f);
      }
    },
    { passive: false },
  );
  el.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0 && ev.button !== 1) return;
    drag = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, moved: false };
  });
  el.addEventListener('pointermove', (ev) => {
    const d = drag;
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
    host.panBy(dx, dy);
  });
  const end = (ev: PointerEvent) => {
    const d = drag;
    if (!d || d.id !== ev.pointerId) return;
    drag = undefined;
    el.classList.remove('panning');
    if (d.moved) {
      // Swallow the click that ends a drag.
      const swallow = (e: Event) => e.stopPropagation();
      el.addEventListener('click', swallow, { capture: true, once: true });
      after(0, () => el.removeEventListener('click', swallow, { capture: true }));
    }
  };
  el.addEventListener('pointerup', end);
  el.addEventListener('pointercancel', end);
  const itemAt = (ev: Event): Item | undefined => {
    const g = (ev.target as Element).closest?.('g.node') as SVGGElement | null;
    const key = g?.dataset.key;
    return key ? host.itemForKey(key) : undefined;
  };
  for (const how of ['click', 'dblclick', 'contextmenu'] as const) {
    el.addEventListener(how, (ev) => {
      const it = itemAt(ev);
      if (it) host.onSelect(it, how);
    });
  }
}
