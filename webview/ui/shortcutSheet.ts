// The `?` sheet: every keyboard command and its keys, generated from the keymap registry (app/keymap.ts).
import { shortcutSheet } from '../app/keymap';
import { button, h } from './dom';
import { focusFirst, modal, type DialogServices } from './modal';
import type { Overlay } from './overlays';

/** Opens the sheet (keys shown for macOS when `mac`). */
export function openShortcutSheet(svc: Pick<DialogServices, 'push' | 'pop'>, mac: boolean): Overlay {
  const { el, body, actions } = modal('shortcuts', 'Keyboard shortcuts');
  for (const g of shortcutSheet(mac)) {
    const table = h('table', 'keys');
    table.append(h('caption', undefined, g.group));
    for (const r of g.rows) {
      const tr = h('tr');
      tr.dataset.command = r.id;
      const keys = h('td', 'key-cell');
      r.keys.forEach((k, i) => {
        if (i) keys.append(' ');
        keys.append(h('kbd', undefined, k));
      });
      tr.append(keys, h('td', undefined, r.title));
      table.append(tr);
    }
    body.append(table);
  }
  const overlay: Overlay = { el, close: () => svc.pop(overlay) };
  const close = button('Close', 'shortcuts-close', { secondary: true });
  close.addEventListener('click', () => overlay.close());
  actions.append(close);
  svc.push(overlay);
  focusFirst(el);
  return overlay;
}
