// The overlay stack: open dialogs, sheets and inline editors, topmost last. Escape closes the top one
// (app/commands.ts); a modal dialog keeps Tab inside itself; focus returns to the tree when the last closes.

export interface Overlay {
  el: HTMLElement;
  /** Called on Escape or when replaced; must leave nothing written. */
  close(): void;
}

export class OverlayStack {
  private readonly list: Overlay[] = [];

  constructor(
    private readonly root: HTMLElement,
    private readonly onEmpty: () => void,
  ) {}

  /** Adds an overlay; `attach` puts its element on the page (an inline editor is already placed). */
  push(o: Overlay, attach = true): void {
    this.list.push(o);
    if (attach) this.root.append(o.el);
  }

  pop(o: Overlay, after?: () => void): void {
    const i = this.list.indexOf(o);
    if (i < 0) return;
    this.list.splice(i, 1);
    if (o.el.parentElement === this.root) o.el.remove();
    after?.();
    if (!this.list.length) this.onEmpty();
  }

  top(): Overlay | undefined {
    return this.list[this.list.length - 1];
  }

  some(pred: (o: Overlay) => boolean): boolean {
    return this.list.some(pred);
  }

  /** Tab in a modal dialog wraps around inside it (APG dialog pattern); true when the key was its. */
  trapTab(ev: KeyboardEvent): boolean {
    const top = this.top();
    if (ev.key !== 'Tab' || !top || !top.el.classList.contains('overlay')) return false;
    const list = [
      ...top.el.querySelectorAll<HTMLElement>(
        'vscode-button:not([disabled]), vscode-textfield, vscode-textarea, button, summary, a[href]',
      ),
    ];
    if (list.length) {
      const i = list.findIndex((x) => x === document.activeElement || x.contains(document.activeElement));
      const next = ev.shiftKey ? (i <= 0 ? list.length - 1 : i - 1) : i < 0 || i === list.length - 1 ? 0 : i + 1;
      if ((ev.shiftKey && i <= 0) || (!ev.shiftKey && (i < 0 || i === list.length - 1))) {
        ev.preventDefault();
        list[next].focus();
      }
    }
    return true;
  }
}
