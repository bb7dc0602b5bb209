// The frame every modal sheet shares (a titled dialog with a body and an action row), focus on open, and
// the services a dialog may use: the overlay stack, announcements, errors and typed host requests.
import type { Replies, RequestFn } from '../../src/protocol';
import { h } from './dom';
import type { Overlay } from './overlays';
import { onFrame } from './schedule';

export interface DialogServices {
  push(o: Overlay): void;
  pop(o: Overlay): void;
  announce(msg: string): void;
  error(msg: string): void;
  request: RequestFn;
  afterMove(r: Replies['moveWithSummary'], targetId: string | null): void;
}

let dialogSeq = 0;

export function modal(kind: string, title: string): { el: HTMLElement; body: HTMLElement; actions: HTMLElement } {
  const el = h('div', 'overlay');
  const d = h('div', 'dialog');
  d.dataset.dialog = kind;
  d.setAttribute('role', 'dialog');
  d.setAttribute('aria-modal', 'true');
  const id = `dlg-${++dialogSeq}`;
  d.setAttribute('aria-labelledby', id);
  const t = h('h2', undefined, title);
  t.id = id;
  const body = h('div', 'dialog-body');
  const actions = h('div', 'dialog-actions');
  d.append(t, body, actions);
  el.append(d);
  return { el, body, actions };
}

/**
 * Focuses the first field or enabled button of `el` once it is on the page. A text area with text (a
 * summary to review) shows its start, the caret there: its value was set in code, which leaves the
 * caret at the end, and focusing it scrolled a long summary to its last lines.
 */
export function focusFirst(el: HTMLElement): void {
  onFrame(() => {
    const f = el.querySelector<HTMLElement>('vscode-textarea, vscode-textfield, vscode-button:not([disabled]), button');
    f?.focus();
    const area =
      f?.localName === 'vscode-textarea'
        ? (f as HTMLElement & { wrappedElement?: HTMLTextAreaElement }).wrappedElement
        : undefined;
    if (area?.value) {
      area.setSelectionRange(0, 0);
      area.scrollTop = 0;
    }
  });
}
