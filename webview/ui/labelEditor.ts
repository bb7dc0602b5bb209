// The inline label editor placed over a node: Enter or Save sets the label (empty clears it), Clear
// removes it, Escape cancels and writes nothing.
import { wasCancelled } from '../app/hostChannel';
import { button, h, textfield } from './dom';
import { focusFirst, type DialogServices } from './modal';
import type { Overlay } from './overlays';

/** Inline label editor placed over the node. Enter saves (empty clears), Escape cancels. */
export function openLabelEditor(
  svc: DialogServices,
  target: { id: string; label?: string },
  at: { x: number; y: number },
): Overlay {
  const el = h('div', 'label-editor');
  el.setAttribute('role', 'dialog');
  el.setAttribute('aria-label', 'Edit label');
  el.style.left = `${Math.max(8, Math.min(at.x, window.innerWidth - 300))}px`;
  el.style.top = `${Math.max(8, Math.min(at.y, window.innerHeight - 90))}px`;
  const field = textfield('label', target.label ?? '', 'Label (empty to remove)', 'Label');
  const save = button('Save', 'label-save');
  const clear = button('Clear', 'label-clear', { secondary: true, disabled: target.label === undefined });
  const row = h('div', 'row');
  row.append(save, clear);
  el.append(field, row);
  let done = false;
  const overlay: Overlay = {
    el,
    close: () => {
      done = true;
      svc.pop(overlay);
    },
  };
  const commit = async (label: string | undefined) => {
    if (done) return;
    overlay.close();
    try {
      const r = await svc.request({ kind: 'setLabel', id: target.id, ...(label ? { label } : {}) });
      svc.announce(
        wasCancelled(r) ? 'Cancelled: nothing was written' : label ? `Label set to ${label}` : 'Label cleared',
      );
    } catch (e) {
      svc.error((e as Error).message);
    }
  };
  field.addEventListener('keydown', (ev) => {
    if ((ev as KeyboardEvent).key === 'Enter') {
      ev.preventDefault();
      void commit(field.value.trim() || undefined);
    }
  });
  save.addEventListener('click', () => void commit(field.value.trim() || undefined));
  clear.addEventListener('click', () => void commit(undefined));
  svc.push(overlay);
  focusFirst(el);
  return overlay;
}

/** Where the editor opens for an item: below its node in the graph, else below its outline row. */
export function labelEditorAnchor(node: Element | undefined, row: Element | undefined): { x: number; y: number } {
  const n = node?.getBoundingClientRect();
  if (n) return { x: n.left, y: n.bottom + 4 };
  const r = row?.getBoundingClientRect();
  return r ? { x: r.left + 20, y: r.bottom + 2 } : { x: 80, y: 80 };
}
