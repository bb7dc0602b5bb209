// "Ask from here" in the details pane: a prompt box for the selected entry (Enter asks, Shift+Enter is a
// new line, as pi's editor and the summary dialog's focus box), a picker of pi's own models (listModels,
// asked once per session when the box is first used: it starts a pi, which opening a tree should not),
// and the turn while pi runs it: the box
// says so in its live region and offers Cancel; when pi is done, the tree selects the answer. One box,
// kept across the pane's renders (its text, model and focus survive a re-render), disabled with the
// reason where asking makes no sense (a read-only session). The host runs pi (askFrom request).
import type { ModelList, ModelRef, NodeView, RequestFn, SessionMeta } from '../../src/protocol';
import { movesToParent } from '../../src/shared/moveRule';
import { wasCancelled } from '../app/hostChannel';
import { button, h } from '../ui/dom';

export interface AskBoxHost {
  request: RequestFn;
  meta(): SessionMeta | undefined;
  /** How an entry reads in a sentence ("User: fix the parser"). */
  describe(id: string): string;
  /** Selects an entry of the tree (the answer, when pi is done). */
  goTo(id: string): void;
  /** Read out through the app's status (when the box is not on screen to say it). */
  announce(msg: string): void;
  error(msg: string): void;
  focusTree(): void;
}

type Models =
  | { sessionId: string; state: 'loading' }
  | { sessionId: string; state: 'ready'; list: ModelList }
  | { sessionId: string; state: 'failed'; reason: string };

/** The longest prompt the host takes (protocolValidation.ts LIMITS.prompt). */
const PROMPT_MAX = 100_000;

export class AskBox {
  readonly el: HTMLElement;
  private readonly heading: HTMLLabelElement;
  private readonly prompt: HTMLTextAreaElement;
  private readonly model: HTMLSelectElement;
  private readonly send: HTMLElement;
  private readonly cancelButton: HTMLElement;
  private readonly variantsButton: HTMLElement;
  private readonly hint: HTMLElement;
  private readonly status: HTMLElement;
  /** The entry the box asks from (the selection). */
  private target: NodeView | undefined;
  /** The turn in flight: the entry it was asked from. */
  private running: { id: string } | undefined;
  private models: Models | undefined;
  private readOnly: string | undefined;

  constructor(private readonly host: AskBoxHost) {
    this.el = h('section', 'ask');
    this.el.dataset.part = 'ask';
    this.el.setAttribute('aria-labelledby', 'ask-heading');
    this.heading = h('label', 'ask-heading');
    this.heading.id = 'ask-heading';
    this.heading.htmlFor = 'ask-prompt';
    this.prompt = h('textarea', 'ask-prompt');
    this.prompt.id = 'ask-prompt';
    this.prompt.dataset.field = 'ask';
    this.prompt.rows = 3;
    this.prompt.placeholder = 'Ask pi… (Enter asks, Shift+Enter starts a new line)';
    this.prompt.setAttribute('aria-describedby', 'ask-hint');
    this.prompt.addEventListener('keydown', (e) => this.onKey(e));
    this.model = h('select', 'ask-model');
    this.model.dataset.field = 'ask-model';
    this.model.setAttribute('aria-label', 'Model for the answer');
    this.send = button('Ask', 'ask-send', { icon: 'send' });
    this.send.title = 'Ask pi from this entry (Enter)';
    this.send.addEventListener('click', () => void this.ask());
    this.cancelButton = button('Cancel', 'ask-cancel', { icon: 'debug-stop', secondary: true });
    this.cancelButton.title = 'Stop pi’s turn (what it wrote stays in the session)';
    this.cancelButton.addEventListener('click', () => void this.cancel());
    this.variantsButton = button('Variants…', 'ask-variants', { icon: 'versions', secondary: true });
    this.variantsButton.title = 'Try variants from this entry: the prompt tried by several pis side by side (Shift+V)';
    this.variantsButton.addEventListener('click', () => void this.tryVariants());
    const row = h('div', 'ask-row');
    row.append(this.model, this.send, this.cancelButton, this.variantsButton);
    this.hint = h('p', 'ask-hint muted');
    this.hint.id = 'ask-hint';
    this.status = h('p', 'ask-status');
    this.status.setAttribute('role', 'status');
    this.status.setAttribute('aria-live', 'polite');
    this.el.append(this.heading, this.prompt, row, this.hint, this.status);
    this.el.addEventListener('focusin', () => this.wantModels());
    this.showModels();
    this.update();
  }

  /** A turn runs (asked from this tree). */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** The box for entry `n` (the pane's render calls it each time); returns its element. */
  attach(n: NodeView): HTMLElement {
    this.target = n;
    const meta = this.host.meta();
    this.readOnly = meta?.readOnly;
    // (another session in this view: its own list, when the box is used)
    if (this.models && this.models.sessionId !== meta?.sessionId) {
      this.models = undefined;
      this.showModels();
    }
    this.update();
    return this.el;
  }

  /** pi's models, asked for once per session when the box is first used. */
  private wantModels(): void {
    const meta = this.host.meta();
    if (meta && !this.readOnly && this.models?.sessionId !== meta.sessionId) void this.loadModels(meta.sessionId);
  }

  /** Focuses the prompt (key A, the node menu's "Ask from Here…"); false when it cannot take text. */
  focus(): boolean {
    if (!this.el.isConnected || this.prompt.disabled) return false;
    this.prompt.focus();
    return true;
  }

  /**
   * Asks pi from the attached entry: `text` (the palette's input box), else what the box holds. The
   * box keeps the prompt until pi has answered (a failure or a cancel leaves it to send again).
   */
  async ask(text?: string): Promise<void> {
    const n = this.target;
    if (!n) return this.host.announce('Select an entry to ask from');
    if (this.readOnly) return this.host.error(`This session cannot be changed: ${this.readOnly}`);
    if (this.running) return this.host.announce('pi is still answering: wait for it, or cancel it first');
    if (text !== undefined) this.prompt.value = text;
    const prompt = this.prompt.value;
    if (!prompt.trim()) {
      this.say('Write a prompt first.');
      this.focus();
      return;
    }
    const model = this.pickedModel();
    const id = n.id;
    this.running = { id };
    this.update();
    this.say(`pi is answering from ${this.host.describe(id)}…`);
    try {
      const r = await this.host.request({ kind: 'askFrom', id, prompt, ...(model ? { model } : {}) });
      if (wasCancelled(r)) return this.say('Cancelled: nothing more is asked. What pi wrote stays in the session.');
      const answered = r as Exclude<typeof r, { cancelled: true }>;
      if (this.prompt.value === prompt) this.prompt.value = '';
      const at = answered.answerId ?? answered.leafId;
      this.running = undefined;
      if (at) this.host.goTo(at);
      this.say(
        answered.answerId
          ? `pi answered${answered.via === 'running' ? ` (pid ${answered.pid})` : ''}: its answer is selected.`
          : 'pi ended the turn without an answer.',
      );
    } catch (e) {
      const msg = (e as Error).message;
      this.say(`pi could not answer: ${msg}`, true);
      if (!this.el.isConnected) this.host.error(msg);
    } finally {
      this.running = undefined;
      this.update();
    }
  }

  /**
   * Try variants from the attached entry (the button, Shift+V): the host asks the rest (the prompt, the
   * box's text offered; the count or models; the check) and opens the variants view.
   */
  async tryVariants(): Promise<void> {
    const n = this.target;
    if (!n) return this.host.announce('Select an entry to try variants from');
    if (this.readOnly) return this.host.error(`This session cannot be changed: ${this.readOnly}`);
    const prompt = this.prompt.value.trim() ? this.prompt.value.slice(0, PROMPT_MAX) : undefined;
    try {
      const r = await this.host.request({ kind: 'tryVariants', id: n.id, ...(prompt ? { prompt } : {}) });
      if (r.started) {
        if (prompt && this.prompt.value.slice(0, PROMPT_MAX) === prompt) this.prompt.value = '';
        this.say('The variants run: see the variants view.');
      }
    } catch (e) {
      this.say(`The variants could not start: ${(e as Error).message}`, true);
      if (!this.el.isConnected) this.host.error((e as Error).message);
    }
  }

  /** Asks the host to stop the turn in flight (pi aborts it; the ask's reply then says cancelled). */
  async cancel(): Promise<void> {
    if (!this.running) return;
    this.say('Cancelling…');
    try {
      await this.host.request({ kind: 'cancelAsk' });
    } catch (e) {
      this.host.error((e as Error).message);
    }
  }

  private onKey(e: KeyboardEvent): void {
    if (e.key === 'Escape' && !e.isComposing) {
      // Back to the tree (the document's Escape would close nothing here).
      e.preventDefault();
      e.stopPropagation();
      this.host.focusTree();
      return;
    }
    // Enter asks, as in pi's editor; Shift+Enter is a new line; an IME composition keeps its Enter.
    if (e.key !== 'Enter' || e.shiftKey || e.isComposing || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    e.stopPropagation();
    void this.ask();
  }

  /** What the box says now (read out in its live region; through the app when it is not on screen). */
  private say(text: string, error = false): void {
    this.status.textContent = text;
    this.status.classList.toggle('error', error);
    this.status.classList.toggle('running', !!this.running);
    if (!this.el.isConnected && !error) this.host.announce(text);
  }

  /** The box's parts as the state says: heading, hint, disabled parts, Ask or Cancel. */
  private update(): void {
    const n = this.target;
    const instead = !!n && movesToParent(n.type, n.role);
    this.heading.replaceChildren(
      icon('sparkle'),
      document.createTextNode(instead ? ' Ask instead of this message' : ' Ask from here'),
    );
    const bridge = this.host.meta()?.bridge;
    this.hint.textContent = this.readOnly
      ? `Read-only: ${this.readOnly}`
      : `${instead ? 'pi answers a new prompt beside this message (under its parent), as if it were edited and sent again.' : 'pi continues the session from this entry: the leaf moves here and the new turn grows from it.'}${
          bridge
            ? ` The pi running this session (pid ${bridge.pid}) answers${bridge.busy ? ' once its turn is over' : ''}.`
            : ''
        }`;
    const running = !!this.running;
    this.prompt.disabled = !!this.readOnly;
    this.prompt.readOnly = running;
    this.model.disabled = !!this.readOnly || running;
    toggleAttr(this.send, 'disabled', !!this.readOnly);
    toggleAttr(this.variantsButton, 'disabled', !!this.readOnly);
    this.send.hidden = running;
    this.cancelButton.hidden = !running;
    this.el.classList.toggle('running', running);
    this.el.setAttribute('aria-busy', String(running));
    this.status.classList.toggle('running', running);
  }

  private async loadModels(sessionId: string): Promise<void> {
    this.models = { sessionId, state: 'loading' };
    this.showModels();
    try {
      const list = await this.host.request({ kind: 'listModels' });
      if (this.models?.sessionId !== sessionId) return;
      this.models = { sessionId, state: 'ready', list };
    } catch (e) {
      if (this.models?.sessionId !== sessionId) return;
      this.models = { sessionId, state: 'failed', reason: (e as Error).message };
    }
    this.showModels();
  }

  /** The picker: the session's own model first, then pi's (kept picked across a reload of the list). */
  private showModels(): void {
    const was = this.model.value;
    const opts: HTMLOptionElement[] = [new Option('The session’s model', '')];
    const m = this.models;
    if (!m) this.model.title = 'The model pi answers with (pi’s models are listed when you use the box)';
    else if (m.state === 'loading') {
      const o = new Option('Loading pi’s models…', 'loading');
      o.disabled = true;
      opts.push(o);
      this.model.title = 'The model pi answers with';
    } else if (m.state === 'failed') {
      const o = new Option('pi’s models could not be listed', 'failed');
      o.disabled = true;
      opts.push(o);
      this.model.title = m.reason;
    } else {
      const def = m.list.defaultModel;
      m.list.models.forEach((x, i) => {
        const isDefault = def?.provider === x.provider && def.id === x.id;
        opts.push(new Option(`${x.name ?? x.id} · ${x.provider}${isDefault ? ' (pi’s default)' : ''}`, String(i)));
      });
      this.model.title = m.list.models.length ? 'The model pi answers with' : 'pi lists no models it can use';
    }
    this.model.replaceChildren(...opts);
    this.model.value = opts.some((o) => o.value === was && !o.disabled) ? was : '';
  }

  private pickedModel(): ModelRef | undefined {
    const m = this.models;
    if (m?.state !== 'ready' || this.model.value === '') return undefined;
    const x = m.list.models[Number(this.model.value)];
    return x ? { provider: x.provider, id: x.id } : undefined;
  }
}

function icon(name: string): HTMLElement {
  const s = h('span', `codicon codicon-${name}`);
  s.setAttribute('aria-hidden', 'true');
  return s;
}

function toggleAttr(el: Element, attr: string, on: boolean): void {
  if (el.hasAttribute(attr) !== on) el.toggleAttribute(attr, on);
}
