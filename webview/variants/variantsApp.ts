// The variants view (the tree's bundle, started with data-view="variants"): one column per variant,
// side by side (the row scrolls sideways when there are many): its model, its phase, its answer as it
// streams (text while it streams, then the sanitized Markdown of details/markdown.ts), the files it
// changed with their +/- counts (a click opens the diff), tokens, cost, time, the check's exit code and
// the end of its output; its buttons (Cancel, Open session, Adopt or Undo, Discard) and Cancel all. The
// host is asked by the variant's place and the file's place: the view never names a path.
import type {
  VariantCard,
  VariantsHostMessage,
  VariantsInfo,
  VariantsReplies,
  VariantsRequest,
  VariantsWebviewMessage,
} from '../../src/variantsProtocol';
import { counted } from '../../src/shared/countWords';
import { RequestClient } from '../../src/shared/messaging';
import { setMarkdown } from '../details/markdown';
import { button, h } from '../ui/dom';
import { thousands } from '../ui/format';
import { tracked } from '../ui/schedule';

export interface VariantsApi {
  postMessage(m: VariantsWebviewMessage): void;
}

const PHASES: Record<VariantCard['phase'], string> = {
  queued: 'Waiting for its turn',
  preparing: 'Preparing its folder…',
  running: 'pi is answering…',
  checking: 'Running the check…',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

const running = (c: VariantCard) => c.phase !== 'done' && c.phase !== 'failed' && c.phase !== 'cancelled';

interface Column {
  el: HTMLElement;
  answer: HTMLElement;
  /** The answer's text as shown (deltas append to it while the variant runs). */
  text: string;
  card: VariantCard;
}

export class VariantsApp {
  private readonly client = new RequestClient<VariantsRequest, VariantsReplies>(
    (m) => this.api.postMessage(m),
    tracked,
  );
  private readonly header = h('header', 'var-header');
  private readonly columns = h('div', 'var-columns');
  private readonly status = h('div', 'sr-only');
  private readonly cols: Column[] = [];
  private cancelAll: HTMLElement | undefined;

  constructor(
    private readonly root: HTMLElement,
    private readonly api: VariantsApi,
  ) {
    root.classList.add('variants');
    this.status.setAttribute('role', 'status');
    this.status.setAttribute('aria-live', 'polite');
    this.columns.setAttribute('role', 'list');
    this.columns.setAttribute('aria-label', 'Variants side by side');
    root.append(this.header, this.columns, this.status);
    this.header.append(h('h1', 'title', 'Variants…'));
  }

  start(win: Window): void {
    win.addEventListener('message', (ev: MessageEvent) => this.receive(ev.data));
    this.api.postMessage({ type: 'ready' });
  }

  private receive(data: unknown): void {
    if (typeof data !== 'object' || data === null || this.client.settle(data)) return;
    const m = data as VariantsHostMessage;
    switch (m.type) {
      case 'variantsView':
        return this.showView(m.info, m.variants);
      case 'variant':
        return this.update(m.variant);
      case 'variantDelta':
        return this.append(m.index, m.delta);
    }
  }

  private showView(info: VariantsInfo, cards: VariantCard[]): void {
    const title = h('h1', 'title', counted(cards.length, 'variant'));
    const prompt = h('p', 'var-prompt');
    prompt.append(h('span', 'muted', 'Prompt: '), h('span', '', info.prompt));
    const from = h('p', 'var-from muted', `From ${info.node}${info.check ? ` · check: ${info.check}` : ''}`);
    this.cancelAll = button('Cancel all', 'cancelAll', {
      icon: 'debug-stop',
      secondary: true,
      title: 'Cancel every variant still running',
    });
    this.cancelAll.addEventListener(
      'click',
      () =>
        void this.act({ kind: 'cancelAll' }, (r) =>
          r.cancelling ? `Cancelling ${counted(r.cancelling, 'variant')}` : 'Nothing is running',
        ),
    );
    this.header.replaceChildren(title, prompt, from, this.cancelAll);
    this.cols.length = 0;
    this.columns.replaceChildren();
    for (const c of cards) {
      const col = this.makeColumn(c);
      this.cols[c.index] = col;
      this.columns.append(col.el);
    }
    this.refreshCancelAll();
  }

  private makeColumn(card: VariantCard): Column {
    const el = h('article', 'var-col');
    el.setAttribute('role', 'listitem');
    el.dataset.index = String(card.index);
    const answer = h('div', 'var-answer');
    answer.tabIndex = 0;
    answer.setAttribute('role', 'region');
    answer.setAttribute('aria-label', `Answer of variant ${card.index + 1}`);
    const col: Column = { el, answer, text: '', card };
    this.render(col, card);
    return col;
  }

  private update(card: VariantCard): void {
    const col = this.cols[card.index];
    if (!col) return;
    const was = col.card.phase;
    this.render(col, card);
    if (was !== card.phase) this.say(`Variant ${card.index + 1}: ${PHASES[card.phase]}`);
    this.refreshCancelAll();
  }

  private append(index: number, delta: string): void {
    const col = this.cols[index];
    if (!col || !running(col.card)) return;
    col.text += delta;
    col.answer.append(delta);
  }

  /** The column for `card` (built again whole: a change is rare beside the deltas, which only append). */
  private render(col: Column, card: VariantCard): void {
    const focused = col.el.contains(document.activeElement)
      ? (document.activeElement as HTMLElement | null)?.dataset.action
      : undefined;
    col.card = card;
    const n = card.index + 1;
    const headId = `var-head-${card.index}`;
    col.el.setAttribute('aria-labelledby', headId);
    col.el.setAttribute('aria-busy', String(running(card)));
    col.el.dataset.phase = card.phase;
    const head = h('h2', 'var-title');
    head.id = headId;
    head.append(h('span', 'var-n', `Variant ${n}`), h('span', 'var-model', card.model));
    const phase = h('div', `var-phase phase-${card.phase}`);
    phase.append(
      h('span', `codicon codicon-${phaseIcon(card)}`),
      h('span', '', ` ${PHASES[card.phase]}${card.adopted ? ' · adopted' : ''}${card.discarded ? ' · discarded' : ''}`),
    );
    phase.firstElementChild!.setAttribute('aria-hidden', 'true');
    const parts: HTMLElement[] = [head, phase];
    if (running(card)) {
      const bar = document.createElement('vscode-progress-bar');
      bar.setAttribute('aria-label', `Variant ${n} is running`);
      parts.push(bar);
    }
    if (card.error) parts.push(h('p', 'var-error', card.error));
    // The answer: streamed text while running; the whole answer as sanitized Markdown once ended.
    if (running(card)) {
      if (card.answer !== col.text) {
        col.text = card.answer;
        col.answer.textContent = card.answer;
      }
      col.answer.classList.add('streaming');
    } else {
      col.text = card.answer;
      col.answer.classList.remove('streaming');
      if (card.answer) setMarkdown(col.answer, card.answer);
      else col.answer.textContent = card.phase === 'done' ? '(no answer)' : '';
    }
    parts.push(col.answer);
    parts.push(this.filesPart(card));
    parts.push(statsPart(card));
    if (card.check) parts.push(checkPart(card));
    parts.push(this.actionsPart(card));
    col.el.replaceChildren(...parts);
    if (focused) (col.el.querySelector(`[data-action="${focused}"]`) as HTMLElement | null)?.focus();
  }

  private filesPart(card: VariantCard): HTMLElement {
    const box = h('section', 'var-files');
    box.setAttribute('aria-label', `Files variant ${card.index + 1} changed`);
    if (!card.files.length) {
      box.append(h('p', 'muted', running(card) ? 'No files changed yet' : 'No files changed'));
      return box;
    }
    const list = h('ul', 'var-file-list');
    card.files.forEach((f, i) => {
      const li = h('li');
      const b = h('button', `var-file status-${f.status}`);
      b.type = 'button';
      b.dataset.action = `file-${i}`;
      b.title = `${f.name}: your folder ↔ variant ${card.index + 1}`;
      b.append(
        h('span', 'var-file-name', f.name),
        h('span', 'var-added', ` +${f.added}`),
        h('span', 'var-removed', ` −${f.removed}`),
      );
      b.setAttribute(
        'aria-label',
        `${f.name}, ${f.status}, ${counted(f.added, 'line')} added, ${f.removed} removed: open the diff`,
      );
      b.addEventListener('click', () => void this.act({ kind: 'diffFile', index: card.index, file: i }));
      li.append(b);
      list.append(li);
    });
    const all = button(card.files.length === 1 ? 'Open as multi-diff' : `All ${card.files.length} files`, 'diffAll', {
      icon: 'diff-multiple',
      secondary: true,
      title: 'Every file in the multi-file diff editor',
    });
    all.addEventListener('click', () => void this.act({ kind: 'diffAll', index: card.index }));
    box.append(list, all);
    return box;
  }

  private actionsPart(card: VariantCard): HTMLElement {
    const bar = h('div', 'var-actions');
    bar.setAttribute('role', 'toolbar');
    bar.setAttribute('aria-label', `Variant ${card.index + 1} actions`);
    const i = card.index;
    if (running(card)) {
      const b = button('Cancel', 'cancel', {
        icon: 'debug-stop',
        secondary: true,
        title: 'Stop this variant’s pi (what it wrote stays)',
      });
      b.addEventListener(
        'click',
        () =>
          void this.act({ kind: 'cancel', index: i }, (r) =>
            r.cancelling ? `Cancelling variant ${i + 1}` : `Variant ${i + 1} has ended`,
          ),
      );
      bar.append(b);
    }
    if (card.made) {
      const open = button('Open session', 'openSession', {
        icon: 'type-hierarchy',
        secondary: true,
        title: 'The variant’s session in its tree',
      });
      open.addEventListener('click', () => void this.act({ kind: 'openSession', index: i }));
      bar.append(open);
      if (!running(card)) {
        if (card.adopted) {
          const undo = button('Undo adopt', 'undoAdopt', {
            icon: 'discard',
            title: 'Put your files back as they were before the adopt',
          });
          undo.addEventListener(
            'click',
            () =>
              void this.act({ kind: 'undoAdopt', index: i }, (r) =>
                r.undone ? 'Put the files back' : 'Nothing was put back',
              ),
          );
          bar.append(undo);
        } else {
          const adopt = button('Adopt', 'adopt', {
            icon: 'check',
            title: 'Bring the variant’s files into your folder (previewed first)',
          });
          adopt.addEventListener(
            'click',
            () =>
              void this.act({ kind: 'adopt', index: i }, (r) =>
                r.adopted ? `Adopted variant ${i + 1}` : 'Nothing was adopted',
              ),
          );
          bar.append(adopt);
        }
        const discard = button('Discard', 'discard', {
          icon: 'trash',
          secondary: true,
          title: 'Remove the variant’s folder (asked first; its session stays)',
        });
        discard.addEventListener(
          'click',
          () =>
            void this.act({ kind: 'discard', index: i }, (r) =>
              r.discarded ? `Discarded variant ${i + 1}` : 'Nothing was discarded',
            ),
        );
        bar.append(discard);
      }
    }
    return bar;
  }

  private refreshCancelAll(): void {
    if (!this.cancelAll) return;
    const any = this.cols.some((c) => c && running(c.card));
    if (any) this.cancelAll.removeAttribute('disabled');
    else this.cancelAll.setAttribute('disabled', '');
  }

  private async act<B extends VariantsRequest>(
    body: B,
    done?: (r: VariantsReplies[B['kind']]) => string,
  ): Promise<void> {
    try {
      const r = await this.client.request(body);
      if (done) this.say(done(r));
    } catch (e) {
      this.say((e as Error).message, true);
    }
  }

  private say(text: string, error = false): void {
    this.status.textContent = text;
    this.root.classList.toggle('has-error', error);
  }

  /** What the live region said last (tests read it). */
  get said(): string {
    return this.status.textContent ?? '';
  }
}

function phaseIcon(c: VariantCard): string {
  if (running(c)) return c.phase === 'queued' ? 'clock' : 'loading codicon-modifier-spin';
  if (c.phase === 'done') return c.check && c.check.exitCode !== 0 ? 'warning' : 'pass';
  return c.phase === 'failed' ? 'error' : 'circle-slash';
}

function statsPart(c: VariantCard): HTMLElement {
  const dl = h('dl', 'var-stats');
  const add = (k: string, v: string) => dl.append(h('dt', '', k), h('dd', '', v));
  if (c.tokens)
    add('Tokens', `${thousands(c.tokens.total)} (${thousands(c.tokens.input)} in, ${thousands(c.tokens.output)} out)`);
  if (c.cost !== undefined) add('Cost', `$${c.cost.toFixed(4)}`);
  if (c.ms !== undefined) add('Time', seconds(c.ms));
  return dl;
}

function checkPart(c: VariantCard): HTMLElement {
  const ch = c.check!;
  const box = h('section', `var-check ${ch.exitCode === 0 ? 'passed' : 'failed'}`);
  box.setAttribute('aria-label', `Check of variant ${c.index + 1}`);
  const how = ch.exitCode === null ? `ended by ${ch.signal ?? 'a signal'}` : `exit code ${ch.exitCode}`;
  const head = h('p', 'var-check-head');
  const mark = h('span', `codicon codicon-${ch.exitCode === 0 ? 'pass' : 'error'}`);
  mark.setAttribute('aria-hidden', 'true');
  head.append(mark, h('span', '', ` Check: ${how} (${seconds(ch.ms)})`));
  box.append(head);
  if (!ch.output) return box;
  const out = h('pre', 'var-check-out', ch.output);
  out.tabIndex = 0;
  out.setAttribute('aria-label', `Output of the check of variant ${c.index + 1}`);
  box.append(out);
  return box;
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
