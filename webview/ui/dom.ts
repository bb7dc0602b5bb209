// Small DOM builders used across the webview: plain elements, UI-kit buttons and fields, icon buttons.
// Text always goes in as textContent, never as markup.

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
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
