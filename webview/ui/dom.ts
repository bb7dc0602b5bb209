// Small DOM builders used across the webview: plain elements, UI-kit buttons and fields, icon buttons.
// Text always goes in as textContent, never as markup.

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
}

export function button(label: string, action: string, opts: ButtonOpts = {}): HTMLElement {
  const b = document.createElement('vscode-button') as HTMLElement & { disabled: boolean; secondary: boolean };
  b.append(label);
  b.dataset.action = action;
  if (opts.secondary) b.setAttribute('secondary', '');
  if (opts.icon) setIcon(b, opts.icon);
  if (opts.disabled) b.setAttribute('disabled', '');
  if (opts.title) b.title = opts.title;
  return b;
}

/**
 * A button's icon as a codicon of the page in its `content-before` slot, not the UI kit's `icon`
 * attribute: that one draws a `vscode-icon` whose shadow root links the codicon stylesheet again, and
 * every time the button is attached anew (each render of the details pane) the webview fetched it
 * again through VS Code's service worker, the icon blank until it came.
 */
function setIcon(b: HTMLElement, icon: string | undefined): void {
  const old = b.querySelector(':scope > .codicon[slot="content-before"]');
  if (!icon) return void old?.remove();
  const cls = `codicon codicon-${icon}`;
  if (old) {
    if (old.className !== cls) old.className = cls;
    return;
  }
  const span = h('span', cls);
  span.slot = 'content-before';
  span.setAttribute('aria-hidden', 'true');
  b.prepend(span);
}

/** The button's label: its text, the icon left as it is. */
function setLabel(b: HTMLElement, label: string): void {
  const text = [...b.childNodes].find((c) => c.nodeType === Node.TEXT_NODE);
  if (text) {
    if (text.nodeValue !== label) text.nodeValue = label;
  } else b.append(label);
}

type ButtonOpts = { secondary?: boolean; icon?: string; disabled?: boolean; title?: string };

/**
 * Buttons kept from one render to the next, by action: making a UI-kit button costs a component render
 * (tens of ms for a pane of them at 100k entries on a slow machine), changing one costs only what
 * changed. A click runs the action's latest `run`.
 */
export class ButtonPool {
  private readonly made = new Map<string, { el: HTMLElement; run: () => void }>();

  get(label: string, action: string, opts: ButtonOpts, run: () => void): HTMLElement {
    const kept = this.made.get(action);
    if (kept) {
      kept.run = run;
      const b = kept.el;
      setLabel(b, label);
      toggle(b, 'secondary', !!opts.secondary);
      toggle(b, 'disabled', !!opts.disabled);
      setIcon(b, opts.icon);
      if (b.title !== (opts.title ?? '')) b.title = opts.title ?? '';
      return b;
    }
    const el = button(label, action, opts);
    const entry = { el, run };
    el.addEventListener('click', () => {
      if (!el.hasAttribute('disabled')) entry.run();
    });
    this.made.set(action, entry);
    return el;
  }
}

function toggle(el: Element, attr: string, on: boolean): void {
  if (el.hasAttribute(attr) !== on) el.toggleAttribute(attr, on);
}

export function textarea(
  field: string,
  value: string,
  rows: number,
  label: string,
  readonly = false,
): HTMLElement & { value: string } {
  const t = document.createElement('vscode-textarea') as HTMLElement & {
    value: string;
    rows: number;
    readonly: boolean;
  };
  t.dataset.field = field;
  t.setAttribute('rows', String(rows));
  t.setAttribute('label', label);
  t.setAttribute('aria-label', label);
  if (readonly) t.setAttribute('readonly', '');
  t.value = value;
  return t;
}

export function textfield(
  field: string,
  value: string,
  label: string,
  placeholder = '',
): HTMLElement & { value: string } {
  const t = document.createElement('vscode-textfield') as HTMLElement & { value: string };
  t.dataset.field = field;
  t.setAttribute('aria-label', label);
  t.setAttribute('label', label);
  if (placeholder) t.setAttribute('placeholder', placeholder);
  t.value = value;
  return t;
}

/** A toolbar button showing a codicon; `title` is its tooltip and accessible name. */
export function iconButton(icon: string, title: string, action: string, onClick: () => void): HTMLButtonElement {
  const b = h('button', 'icon-button');
  b.type = 'button';
  b.title = title;
  b.setAttribute('aria-label', title);
  b.dataset.action = action;
  b.append(h('span', `codicon codicon-${icon}`));
  b.addEventListener('click', onClick);
  return b;
}
