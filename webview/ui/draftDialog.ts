// The frame both model-written texts share, the branch summary (summaryDialog.ts) and the compaction
// (compactDialog.ts): a dialog that asks the host for a preview (the model writes, nothing is stored),
// shows it for editing, then commits what the user accepted. A preview still on its way when the
// dialog closes is dropped on arrival; a failure is shown in the dialog itself, with what to do next.
import type { FileLists } from '../../src/protocol';
import { button, h, textarea } from './dom';
import { focusFirst, modal, type DialogServices } from './modal';
import type { Overlay } from './overlays';

export class DraftDialog {
  readonly el: HTMLElement;
  readonly body: HTMLElement;
  readonly actions: HTMLElement;
  readonly overlay: Overlay;
  /** The host's preview this dialog holds (cancelled when the dialog closes without using it). */
  previewId: string | undefined;
  private done = false;

  /** `kind`: the dialog's data-dialog (`summary`, `compact`); its buttons' actions start with it. */
  constructor(
    readonly svc: DialogServices,
    readonly kind: string,
    title: string,
  ) {
    const { el, body, actions } = modal(kind, title);
    this.el = el;
    this.body = body;
    this.actions = actions;
    this.overlay = {
      el,
      close: () => {
        if (this.done) return;
        this.done = true;
        this.drop(this.previewId);
        svc.pop(this.overlay);
      },
    };
  }

  get closed(): boolean {
    return this.done;
  }

  /** Shows the dialog. */
  open(): void {
    this.svc.push(this.overlay);
  }

  /** Closes the dialog after its preview was used (committed): nothing is cancelled. */
  finish(): void {
    this.done = true;
    this.svc.pop(this.overlay);
  }

  /** Tells the host to forget a preview (one that arrived after the dialog closed, or one replaced). */
  drop(previewId: string | undefined): void {
    if (previewId) void this.svc.request({ kind: 'cancelPreview', previewId }).catch(() => undefined);
  }

  /** A fresh Cancel button (the action row is rebuilt at every step). */
  cancelButton(label = 'Cancel'): HTMLElement {
    const b = button(label, `${this.kind}-cancel`, { secondary: true });
    b.addEventListener('click', () => this.overlay.close());
    return b;
  }

  /** The waiting step: what is being asked, a progress bar, Cancel. */
  busy(text: string, announce: string): void {
    this.body.replaceChildren(h('p', 'busy', text), document.createElement('vscode-progress-bar'));
    this.actions.replaceChildren(this.cancelButton());
    this.svc.announce(announce);
    focusFirst(this.el);
  }

  /**
   * Asks the host for a preview with the dialog busy (`wait`: what is asked, what is read out). `use`
   * gets it while the dialog is open; closed meanwhile, `late` sees it (if given) and the preview is
   * dropped, nothing written; a failure goes to `failed` (unless the dialog closed).
   */
  async preview<P extends { previewId: string }>(
    wait: readonly [string, string],
    ask: () => Promise<P>,
    use: (p: P) => void,
    failed: (reason: string) => void,
    late?: (p: P) => void,
  ): Promise<void> {
    this.busy(...wait);
    try {
      const p = await ask();
      if (this.closed) {
        late?.(p);
        return this.drop(p.previewId);
      }
      use(p);
    } catch (e) {
      if (!this.closed) failed((e as Error).message);
    }
  }

  /** Puts the step's buttons in the action row and focuses the first field or button. */
  step(...buttons: HTMLElement[]): void {
    this.actions.replaceChildren(...buttons, this.cancelButton());
    focusFirst(this.el);
  }

  /**
   * The step that asks what the summary should focus on: `intro` above the field, `label` on the button.
   * Enter submits, as in pi's editor; Shift+Enter is a new line; an IME composition keeps its Enter.
   */
  focusStep(intro: string, label: string, submit: (focus: string | undefined) => void): void {
    const focus = textarea('focus', '', 4, 'What should the summary focus on?');
    this.body.replaceChildren(h('p', undefined, intro), focus);
    const gen = button(label, `${this.kind}-generate`);
    const send = () => submit(focus.value.trim() || undefined);
    gen.addEventListener('click', send);
    focus.addEventListener('keydown', (ev) => {
      const e = ev as KeyboardEvent;
      if (e.key !== 'Enter' || e.shiftKey || e.isComposing || e.altKey || e.ctrlKey || e.metaKey) return;
      e.preventDefault();
      send();
    });
    this.step(gen);
  }

  /** A button that closes the dialog and opens where the summary model is chosen (pi, a chat model, an endpoint). */
  setupButton(label: string): HTMLElement {
    const setup = button(label, `${this.kind}-setup`, { secondary: true });
    setup.addEventListener('click', async () => {
      this.overlay.close();
      try {
        await this.svc.request({ kind: 'setupSummaryModel' });
        this.svc.announce('Opened the summary model settings');
      } catch (e) {
        this.svc.error((e as Error).message);
      }
    });
    return setup;
  }

  /**
   * A failure, shown at the top of the dialog (and read out): the reason, then what the user can do.
   * The step drawn after it stays below, so the user can act on it at once.
   */
  alert(reason: string, hint: string): void {
    const box = h('div', 'dialog-error');
    box.setAttribute('role', 'alert');
    const icon = h('span', 'codicon codicon-error');
    icon.setAttribute('aria-hidden', 'true');
    const text = h('div', 'dialog-error-text');
    text.append(h('p', 'dialog-error-reason', reason), h('p', 'dialog-error-hint', hint));
    box.append(icon, text);
    this.body.prepend(box);
  }

  /** The editable text of a preview, with the files it lists below it. */
  editor(
    field: string,
    value: string,
    label: string,
    details: FileLists,
    readonly = false,
  ): HTMLElement & { value: string } {
    const text = textarea(field, value, 12, label, readonly);
    this.body.append(text);
    const files = [
      ...details.readFiles.map((f) => `read: ${f}`),
      ...details.modifiedFiles.map((f) => `modified: ${f}`),
    ];
    if (files.length) {
      const ul = h('ul', 'files');
      for (const f of files) ul.append(h('li', undefined, f));
      this.body.append(ul);
    }
    return text;
  }
}
