// What the tree shows until a session's first snapshot is on screen: "Opening the session…" with a
// progress bar, which counts the entries of a big session as its parts arrive. Announced politely.
// Over an empty pane it fills the pane; once a big session's first screen is drawn it is a strip at the
// top of the pane (`over`), so the first screen is seen and used while the rest arrives.
import { h } from './dom';
import { thousands } from './format';

export class LoadingIndicator {
  readonly el: HTMLElement;
  private readonly text: HTMLElement;
  private readonly bar: HTMLElement & { value?: number; max?: number; indeterminate?: boolean };

  constructor() {
    this.el = h('div', 'loading');
    this.el.setAttribute('role', 'status');
    this.text = h('p', undefined, 'Opening the session…');
    this.bar = document.createElement('vscode-progress-bar') as HTMLElement & {
      value?: number;
      max?: number;
      indeterminate?: boolean;
    };
    this.bar.setAttribute('aria-label', 'Opening the session');
    this.el.append(this.text, this.bar);
  }

  /** Which of its texts the bar has shown (each once noted as a performance mark, for tests). */
  private readonly shown = new Set<string>();

  /**
   * `loaded` of `total` entries have arrived; no `total` while the session is still being read.
   * `over`: a tree is on screen already (a big session's first screen): shown as a strip above it.
   */
  progress(loaded: number, total: number | undefined, over = false): void {
    this.el.hidden = false;
    this.el.classList.toggle('strip', over);
    if (total === undefined) {
      this.text.textContent = 'Reading the session…';
      this.bar.indeterminate = true;
      this.note('reading');
      return;
    }
    this.text.textContent = `Loading ${thousands(loaded)} of ${thousands(total)} entries…`;
    this.note('loading');
    this.bar.indeterminate = false;
    this.bar.max = total;
    this.bar.value = loaded;
  }

  /** The tree is on screen. */
  done(): void {
    this.el.hidden = true;
  }

  /**
   * A `pi-tree:loading` mark (detail: what the bar says) the first time it says it: a bar up for less
   * than a poll's interval can still be checked for afterwards.
   */
  private note(kind: string): void {
    if (this.shown.has(kind)) return;
    this.shown.add(kind);
    performance.mark('pi-tree:loading', { detail: this.text.textContent });
  }
}
