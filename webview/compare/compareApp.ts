// The compare view (the same bundle as the tree, started with data-view="compare"): the common ancestor,
// then the two sides from there, aligned by turn (a turn opens with a user message). Each side's totals
// and touched files arrive after the first screen; more rows load as the list scrolls. Every entry is
// one line; a click expands it (its full text, fetched), "Diff" opens VS Code's diff editor on a row's
// two turns. Session text only ever goes in as text.
import type {
  CompareHostMessage,
  CompareReplies,
  CompareRequest,
  CompareRow,
  CompareSide,
  CompareSideInfo,
  CompareTotals,
  CompareTurn,
  CompareView,
  CompareWebviewMessage,
} from '../../src/compareProtocol';
import { RequestClient } from '../../src/shared/messaging';
import { button, h } from '../ui/dom';
import { localTime, thousands } from '../ui/format';
import { after, onFrame, tracked } from '../ui/schedule';

export interface CompareApi {
  postMessage(m: CompareWebviewMessage): void;
}

const PAGE = 40;
/** Rows drawn in the first frame: a screenful. */
const FIRST_PAINT_ROWS = 8;

export class CompareApp {
  /** Requests and their replies (src/shared/messaging.ts, as the tree's). */
  private readonly client = new RequestClient<CompareRequest, CompareReplies>((m) => this.api.postMessage(m), tracked);
  private view: CompareView | undefined;
  private loaded = 0;
  private loadingMore = false;
  /** The first page is being drawn in two frames: no page may be asked for meanwhile. */
  private settling = false;
  private readonly header = h('header', 'cmp-header');
  private readonly sides = h('div', 'cmp-sides');
  private readonly list = h('div', 'cmp-rows');
  private readonly more = h('div', 'cmp-more');
  private readonly status = h('div', 'sr-only');
  private readonly cards: Partial<Record<CompareSide, HTMLElement>> = {};
  /** When the first screen's rows were built (for the benchmark; the mark pi-tree:compare-rendered too). */
  firstScreenAt = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly api: CompareApi,
  ) {
    root.classList.add('compare');
    this.status.setAttribute('role', 'status');
    this.status.setAttribute('aria-live', 'polite');
    this.list.setAttribute('role', 'list');
    this.list.setAttribute('aria-label', 'Turns side by side');
    const scroller = h('main', 'cmp-main');
    scroller.append(this.sides, this.list, this.more);
    root.append(this.header, scroller, this.status);
    this.header.append(h('h1', 'title', 'Comparing…'));
    new IntersectionObserver((es) => {
      if (es.some((e) => e.isIntersecting)) void this.loadMore();
    }).observe(this.more);
  }

  start(win: Window): void {
    win.addEventListener('message', (ev: MessageEvent) => this.receive(ev.data));
    this.api.postMessage({ type: 'ready' });
  }

  private request<B extends CompareRequest>(body: B): Promise<CompareReplies[B['kind']]> {
    return this.client.request(body);
  }

  private receive(data: unknown): void {
    if (typeof data !== 'object' || data === null || this.client.settle(data)) return;
    const m = data as CompareHostMessage;
    switch (m.type) {
      case 'compareView':
        return this.showView(m.view, m.rows);
      case 'compareSide':
        return this.showTotals(m.side, m.totals, m.files, m.exact);
    }
  }

  private announce(msg: string): void {
    this.status.textContent = this.status.textContent === msg ? `${msg} ` : msg;
  }

  private error(msg: string): void {
    this.announce(msg);
    const t = h('div', 'toast error', msg);
    t.setAttribute('role', 'alert');
    this.root.append(t);
    setTimeout(() => t.remove(), 6000);
  }

  // ───────────── first screen ─────────────

  private showView(view: CompareView, rows: CompareRow[]): void {
    this.view = view;
    const title = view.a.title === view.b.title ? view.a.title : `${view.a.title} ↔ ${view.b.title}`;
    document.title = `Compare: ${title}`;
    const diffAll = button('Diff both sides', 'diff-sides', {
      icon: 'diff',
      secondary: true,
      title: 'Both sides from the common ancestor as Markdown, in VS Code’s diff editor',
    });
    diffAll.addEventListener('click', () => void this.run({ kind: 'diffSides' }, 'Opened both sides in a diff editor'));
    const codeDiff = button('Code A ↔ B', 'code-diff', {
      icon: 'diff-multiple',
      secondary: true,
      title: 'The code at both nodes, file by file, in VS Code’s multi-file diff editor',
    });
    codeDiff.addEventListener(
      'click',
      () => void this.run({ kind: 'codeDiff' }, 'Opened the code of both sides in a diff editor'),
    );
    const anc = h('p', 'cmp-ancestor');
    anc.append(h('span', 'codicon codicon-git-commit'), document.createTextNode(' Common ancestor: '));
    if (view.ancestor.id) {
      anc.append(
        h('code', undefined, view.ancestor.id),
        document.createTextNode(` ${view.ancestor.text}`),
        h(
          'span',
          'muted',
          ` · ${thousands(view.ancestor.common)} shared entries${view.ancestor.time ? ` · ${localTime(view.ancestor.time)}` : ''}`,
        ),
      );
    } else anc.append(h('span', 'muted', 'none: the two paths share no entry'));
    this.header.replaceChildren(h('h1', 'title', `Compare: ${title}`), diffAll, codeDiff, anc);
    this.sides.replaceChildren(this.sideCard('a', view.a), this.sideCard('b', view.b));
    this.list.replaceChildren();
    this.loaded = 0;
    // What fits on the screen first; the rest of the page in the next frame (it is below the fold).
    this.addRows(rows.slice(0, FIRST_PAINT_ROWS));
    this.settling = true;
    this.firstScreenAt = performance.now();
    performance.mark('pi-tree:compare-rendered');
    // after the first frame is out (a timer after the frame), the rest of the page
    onFrame(() =>
      after(0, () => {
        this.settling = false;
        if (this.view !== view) return;
        this.addRows(rows.slice(FIRST_PAINT_ROWS));
        // the list may still end on screen (a short first page): then the next page comes now
        if (this.more.getBoundingClientRect().top < window.innerHeight) void this.loadMore();
      }),
    );
    this.announce(
      `Comparing ${view.a.entries} entries with ${view.b.entries} entries after the common ancestor, ${view.rows} rows of turns`,
    );
  }

  private sideCard(side: CompareSide, info: CompareSideInfo): HTMLElement {
    const card = h('section', `cmp-card side-${side}`);
    card.setAttribute('aria-label', `Side ${side.toUpperCase()}`);
    const head = h('h2');
    head.append(h('span', 'side-tag', side.toUpperCase()), document.createTextNode(` ${info.title}`));
    const node = h('p', 'cmp-node');
    node.append(h('code', undefined, info.nodeId), document.createTextNode(` ${info.nodeText}`));
    card.append(
      head,
      h('p', 'muted', info.fileName),
      node,
      h('p', 'cmp-totals muted', `${thousands(info.entries)} entries after the ancestor · totals are being summed…`),
    );
    this.cards[side] = card;
    return card;
  }

  private showTotals(side: CompareSide, t: CompareTotals, files: string[], exact?: boolean): void {
    const card = this.cards[side];
    if (!card) return;
    const dl = h('dl', 'kv cmp-totals');
    dl.dataset.side = side;
    const row = (k: string, v: string) => dl.append(h('dt', undefined, k), h('dd', undefined, v));
    row(
      'Messages',
      `${thousands(t.messages)} (${thousands(t.userMessages)} user, ${thousands(t.assistantMessages)} assistant, ${thousands(t.toolResults)} tool results)`,
    );
    row('Turns', thousands(t.turns));
    row(
      'Tokens',
      `${thousands(t.tokens.input)} in · ${thousands(t.tokens.output)} out${t.tokens.cacheRead ? ` · ${thousands(t.tokens.cacheRead)} cache read` : ''}`,
    );
    row('Cost', `$${t.cost.toFixed(4)}`);
    row('Models', t.models.map((m) => `${m.model} (${m.messages})`).join(', ') || '—');
    row('Wall time', duration(t.wallMs));
    row('Tool calls', thousands(t.toolCalls));
    card.querySelector('.cmp-totals')?.replaceWith(dl);
    const f = h('details', 'cmp-files');
    f.open = files.length > 0 && files.length <= 12;
    f.append(
      h(
        'summary',
        undefined,
        `${files.length} ${files.length === 1 ? 'file' : 'files'} ${exact ? 'changed since the ancestor (from checkpoints, bash included)' : 'edited or written'}`,
      ),
    );
    const ul = h('ul');
    for (const p of files) ul.append(h('li', undefined, p));
    f.append(ul);
    card.append(f);
    this.announce(
      `Side ${side.toUpperCase()}: ${t.messages} messages, ${t.tokens.input} tokens in, ${t.tokens.output} out, ${files.length} files changed`,
    );
  }

  // ───────────── rows ─────────────

  private addRows(rows: CompareRow[]): void {
    const frag = document.createDocumentFragment();
    for (const r of rows) frag.append(this.row(r));
    this.list.append(frag);
    this.loaded += rows.length;
    const total = this.view?.rows ?? 0;
    this.more.textContent =
      this.loaded < total
        ? `Showing ${thousands(this.loaded)} of ${thousands(total)} rows…`
        : total
          ? `${thousands(total)} rows`
          : 'Nothing after the common ancestor on either side.';
  }

  private async loadMore(): Promise<void> {
    if (!this.view || this.loadingMore || this.settling || this.loaded >= this.view.rows) return;
    this.loadingMore = true;
    try {
      this.addRows(await this.request({ kind: 'rows', from: this.loaded, count: PAGE }));
    } catch (e) {
      this.error((e as Error).message);
    } finally {
      this.loadingMore = false;
    }
  }

  private row(r: CompareRow): HTMLElement {
    const el = h('div', 'cmp-row');
    el.setAttribute('role', 'listitem');
    el.dataset.row = String(r.index);
    const num = h('div', 'cmp-num', String(r.index + 1));
    if (r.a && r.b) {
      const d = h('button', 'icon-button cmp-diff');
      d.type = 'button';
      d.title = 'Open these two turns in a diff editor';
      d.setAttribute('aria-label', `Diff row ${r.index + 1}`);
      d.dataset.action = 'diff-row';
      d.append(h('span', 'codicon codicon-diff'));
      d.addEventListener(
        'click',
        () => void this.run({ kind: 'diffRow', row: r.index }, `Opened row ${r.index + 1} in a diff editor`),
      );
      num.append(d);
    }
    if (r.a && r.b && r.a.user !== undefined && r.a.user === r.b.user) el.classList.add('same-prompt');
    el.append(num, this.cell('a', r.a), this.cell('b', r.b));
    return el;
  }

  private cell(side: CompareSide, t: CompareTurn | undefined): HTMLElement {
    const c = h('div', `cmp-cell side-${side}`);
    if (!t) {
      c.classList.add('empty');
      return c;
    }
    if (t.user !== undefined) c.append(this.line(side, t.userId!, 'user', t.user, undefined, false));
    else c.append(h('div', 'cmp-prelude muted', 'before the first message'));
    for (const it of t.items) c.append(this.line(side, it.id, it.role ?? it.type, it.text, it.calls, !!it.error));
    if (t.more > 0) c.append(h('div', 'muted', `… ${thousands(t.more)} more entries in this turn`));
    return c;
  }

  private line(
    side: CompareSide,
    id: string,
    kind: string,
    text: string,
    calls: string[] | undefined,
    error: boolean,
  ): HTMLElement {
    const wrap = h('div', `cmp-item k-${kind}${error ? ' error' : ''}`);
    const b = h('button', 'cmp-line', text.replace(/^(user|assistant): /, '') || `[${kind}]`);
    b.type = 'button';
    b.dataset.entryId = id;
    b.title = 'Show all of it';
    b.setAttribute('aria-expanded', 'false');
    b.addEventListener('click', () => void this.expand(side, id, wrap, b));
    const reveal = h('button', 'icon-button cmp-reveal');
    reveal.type = 'button';
    reveal.title = 'Show in the session tree';
    reveal.setAttribute('aria-label', 'Show in the session tree');
    reveal.append(h('span', 'codicon codicon-go-to-file'));
    reveal.addEventListener('click', () => void this.run({ kind: 'reveal', side, id }, 'Shown in the session tree'));
    wrap.append(h('span', `codicon codicon-${ICONS[kind] ?? 'circle-small'}`), b, reveal);
    if (calls?.length) {
      const cl = h('div', 'cmp-calls');
      for (const x of calls) cl.append(h('span', 'cmp-call', x));
      wrap.append(cl);
    }
    return wrap;
  }

  private async expand(side: CompareSide, id: string, wrap: HTMLElement, b: HTMLElement): Promise<void> {
    const open = wrap.querySelector('pre.cmp-full');
    if (open) {
      open.remove();
      b.setAttribute('aria-expanded', 'false');
      return;
    }
    try {
      const r = await this.request({ kind: 'entryText', side, id });
      const pre = h('pre', 'cmp-full', r.text);
      wrap.append(pre);
      b.setAttribute('aria-expanded', 'true');
    } catch (e) {
      this.error((e as Error).message);
    }
  }

  private async run(body: CompareRequest, done: string): Promise<void> {
    try {
      await this.request(body);
      this.announce(done);
    } catch (e) {
      this.error((e as Error).message);
    }
  }
}

const ICONS: Record<string, string> = {
  user: 'account',
  assistant: 'hubot',
  toolResult: 'tools',
  bashExecution: 'terminal',
  branch_summary: 'git-merge',
  compaction: 'file-zip',
  model_change: 'sparkle',
  thinking_level_change: 'lightbulb',
  label: 'tag',
};

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m} min`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}
