// The status line (entries, shown, nodes, filter), the polite live region every announcement goes to,
// and error toasts.
import type { FilterMode } from '../../src/shared/treeFilter';
import { h } from './dom';
import { FILTER_TITLES } from './filterTitles';
import { thousands } from './format';

const TOAST_MS = 6000;

export class StatusBar {
  readonly el: HTMLElement;
  /** Screen readers read what is put here (role=status, aria-live=polite). */
  readonly live: HTMLElement;

  constructor(private readonly root: HTMLElement) {
    this.el = h('footer', 'status');
    this.live = h('div', 'sr-only');
    this.live.setAttribute('aria-live', 'polite');
    this.live.setAttribute('role', 'status');
  }

  update(entries: number, shown: number, nodes: number, mode: FilterMode): void {
    this.el.textContent = `${thousands(entries)} entries · ${thousands(shown)} shown (${FILTER_TITLES[mode]}) · ${thousands(nodes)} nodes`;
  }

  announce(msg: string): void {
    // Re-setting the same text would not be announced again.
    this.live.textContent = this.live.textContent === msg ? `${msg} ` : msg;
    this.el.dataset.message = msg;
  }

  /** Announces and shows a toast for a few seconds (its removal is not awaited work: plain setTimeout). */
  error(msg: string): void {
    this.announce(msg);
    const t = h('div', 'toast error', msg);
    t.setAttribute('role', 'alert');
    this.root.append(t);
    setTimeout(() => t.remove(), TOAST_MS);
  }
}
