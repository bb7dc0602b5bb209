// Modal sheets and inline editors: the summary flow of "Move here with summary", the label editor,
// the editor-text offer after moving to a user message, and the generated shortcut sheet. Each one is
// a small DOM subtree in the overlay stack; Escape closes the top one (see app.ts).
import type { MoveReply, SummaryPreview } from '../src/protocol';
import { h } from './details';
import { shortcutSheet } from './keymap';

export interface Overlay {
  el: HTMLElement;
  /** Called on Escape or when replaced; must leave nothing written. */
  close(): void;
}

export interface DialogServices {
  push(o: Overlay): void;
  pop(o: Overlay): void;
  announce(msg: string): void;
  error(msg: string): void;
  request<T>(body: import('../src/protocol').RequestBody): Promise<T>;
  afterMove(r: MoveReply | null, targetId: string | null): void;
}

export function button(label: string, action: string, opts: { secondary?: boolean; icon?: string; disabled?: boolean; title?: string } = {}): HTMLElement {
  const b = document.createElement('vscode-button') as HTMLElement & { disabled: boolean; secondary: boolean; icon: string };
  b.textContent = label;
  b.dataset.action = action;
  if (opts.secondary) b.setAttribute('secondary', '');
  if (opts.icon) b.setAttribute('icon', opts.icon);
  if (opts.disabled) b.setAttribute('disabled', '');
  if (opts.title) b.title = opts.title;
  return b;
}

export function textarea(field: string, value: string, rows: number, label: string, readonly = false): HTMLElement & { value: string } {
  const t = document.createElement('vscode-textarea') as HTMLElement & { value: string; rows: number; readonly: boolean };
  t.dataset.field = field;
  t.setAttribute('rows', String(rows));
  t.setAttribute('label', label);
  t.setAttribute('aria-label', label);
  if (readonly) t.setAttribute('readonly', '');
  t.value = value;
  return t;
}

export function textfield(field: string, value: string, label: string, placeholder = ''): HTMLElement & { value: string } {
  const t = document.createElement('vscode-textfield') as HTMLElement & { value: string };
  t.dataset.field = field;
  t.setAttribute('aria-label', label);
  t.setAttribute('label', label);
  if (placeholder) t.setAttribute('placeholder', placeholder);
  t.value = value;
  return t;
}

let dialogSeq = 0;
function modal(kind: string, title: string): { el: HTMLElement; body: HTMLElement; actions: HTMLElement } {
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

function focusFirst(el: HTMLElement): void {
  requestAnimationFrame(() => {
    const f = el.querySelector<HTMLElement>('vscode-textarea, vscode-textfield, vscode-button:not([disabled]), button');
    f?.focus();
  });
}

/**
 * "Move here with summary": choose none / default / custom focus; preview the model's summary, edit
 * it, then commit. Cancelling at any point writes nothing (a pending preview is cancelled on arrival).
 */
export function openSummaryDialog(svc: DialogServices, target: { id: string | null; title: string }, summariesAvailable: boolean): Overlay {
  const { el, body, actions } = modal('summary', `Move to “${target.title}” with a summary`);
  let closed = false;
  let previewId: string | undefined;
  const overlay: Overlay = {
    el,
    close: () => {
      if (closed) return;
      closed = true;
      if (previewId) void svc.request({ kind: 'cancelPreview', previewId }).catch(() => undefined);
      svc.pop(overlay);
    },
  };
  const finish = () => {
    closed = true;
    svc.pop(overlay);
  };
  const cancel = button('Cancel', 'summary-cancel', { secondary: true });
  cancel.addEventListener('click', () => overlay.close());

  const choose = () => {
    body.replaceChildren(
      h(
        'p',
        undefined,
        summariesAvailable
          ? 'Summarize the branch you are leaving, so the model keeps what it learned there?'
          : 'No summary model is set up. You can move without a summary or write the summary yourself.',
      ),
    );
    actions.replaceChildren();
    const none = button('No summary', 'summary-none', { secondary: true });
    none.addEventListener('click', () => void plainMove());
    actions.append(none);
    if (summariesAvailable) {
      const def = button('Summarize', 'summary-default');
      def.addEventListener('click', () => void preview(undefined));
      const custom = button('Summarize with focus…', 'summary-custom', { secondary: true });
      custom.addEventListener('click', () => customFocus());
      actions.append(def, custom);
    } else {
      const write = button('Write a summary…', 'summary-write');
      write.addEventListener('click', () => edit({ previewId: '', summary: '', details: { readFiles: [], modifiedFiles: [] }, entryCount: -1 }));
      actions.append(write);
    }
    actions.append(cancel);
    focusFirst(el);
  };

  const plainMove = async () => {
    finish();
    try {
      const r = await svc.request<MoveReply>({ kind: 'moveTo', id: target.id });
      svc.afterMove(r, target.id);
    } catch (e) {
      svc.error((e as Error).message);
    }
  };

  const customFocus = () => {
    const focus = textarea('focus', '', 4, 'What should the summary focus on?');
    body.replaceChildren(h('p', undefined, 'Custom instructions for the summary:'), focus);
    const gen = button('Summarize', 'summary-generate');
    gen.addEventListener('click', () => void preview(focus.value.trim() || undefined));
    actions.replaceChildren(gen, cancel);
    focusFirst(el);
  };

  const preview = async (focus: string | undefined) => {
    body.replaceChildren(h('p', 'busy', 'Asking the model for a summary of the branch you are leaving…'), document.createElement('vscode-progress-bar'));
    actions.replaceChildren(cancel);
    svc.announce('Summarizing the branch…');
    try {
      const p = await svc.request<SummaryPreview>({ kind: 'summaryPreview', id: target.id, ...(focus ? { focus } : {}) });
      if (closed) {
        // Cancelled while the model was working: drop the preview, write nothing.
        if (p.previewId) void svc.request({ kind: 'cancelPreview', previewId: p.previewId }).catch(() => undefined);
        return;
      }
      previewId = p.previewId || undefined;
      edit(p);
    } catch (e) {
      if (closed) return;
      svc.error((e as Error).message);
      choose();
    }
  };

  const edit = (p: SummaryPreview) => {
    const userWritten = p.entryCount < 0;
    body.replaceChildren();
    if (p.entryCount === 0) {
      body.append(h('p', undefined, 'There is nothing to summarize on the branch you are leaving.'));
      const move = button('Move without summary', 'summary-none');
      move.addEventListener('click', () => {
        if (previewId) void svc.request({ kind: 'cancelPreview', previewId }).catch(() => undefined);
        previewId = undefined;
        void plainMove();
      });
      actions.replaceChildren(move, cancel);
      focusFirst(el);
      return;
    }
    if (!userWritten) body.append(h('p', 'muted', `Summary of ${p.entryCount} entries${p.model ? ` by ${p.model}` : ''}. Edit it before moving if you like.`));
    const text = textarea('summary', p.summary, 12, 'Branch summary');
    body.append(text);
    const files = [...p.details.readFiles.map((f) => `read: ${f}`), ...p.details.modifiedFiles.map((f) => `modified: ${f}`)];
    if (files.length) {
      const ul = h('ul', 'files');
      for (const f of files) ul.append(h('li', undefined, f));
      body.append(ul);
    }
    const commit = button('Move with summary', 'summary-commit');
    commit.addEventListener('click', async () => {
      const summary = text.value;
      if (!summary.trim()) {
        svc.error('The summary is empty.');
        return;
      }
      const pid = previewId;
      previewId = undefined;
      finish();
      try {
        const r = await svc.request<MoveReply>({ kind: 'moveWithSummary', id: target.id, summary, ...(pid ? { previewId: pid } : {}) });
        svc.afterMove(r, target.id);
      } catch (e) {
        svc.error((e as Error).message);
      }
    });
    actions.replaceChildren(commit, cancel);
    focusFirst(el);
  };

  choose();
  svc.push(overlay);
  return overlay;
}

/** Offered after moving to a user message: its text, to copy or continue with in pi. */
export function openEditorTextDialog(svc: DialogServices, targetId: string | null, text: string): Overlay {
  const { el, body, actions } = modal('editor-text', 'Message text to edit and send again');
  body.append(h('p', 'muted', 'The leaf is now before this message. Edit its text and send it from pi.'), textarea('editor-text', text, 8, 'Message text', true));
  const overlay: Overlay = { el, close: () => svc.pop(overlay) };
  const copy = button('Copy', 'editor-copy', { icon: 'copy' });
  copy.addEventListener('click', async () => {
    try {
      if (targetId) await svc.request({ kind: 'copyText', id: targetId });
      svc.announce('Copied the message text');
    } catch (e) {
      svc.error((e as Error).message);
    }
  });
  const cont = button('Continue in pi', 'editor-continue', { icon: 'terminal' });
  cont.addEventListener('click', async () => {
    overlay.close();
    try {
      await svc.request({ kind: 'continueInPi', text });
    } catch (e) {
      svc.error((e as Error).message);
    }
  });
  const close = button('Close', 'editor-close', { secondary: true });
  close.addEventListener('click', () => overlay.close());
  actions.append(copy, cont, close);
  svc.push(overlay);
  focusFirst(el);
  return overlay;
}

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

/** Inline label editor placed over the node. Enter saves (empty clears), Escape cancels. */
export function openLabelEditor(svc: DialogServices, target: { id: string; label?: string }, at: { x: number; y: number }): Overlay {
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
      const r = (await svc.request<{ cancelled?: boolean } | null>({ kind: 'setLabel', id: target.id, ...(label ? { label } : {}) })) ?? {};
      svc.announce(r.cancelled ? 'Cancelled: nothing was written' : label ? `Label set to ${label}` : 'Label cleared');
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
