// One compare view: two nodes (of one session, or of two sessions of a family) side by side from their
// common ancestor. The first screen (the ancestor, each side's facts, the first rows of aligned turns)
// is posted as soon as it is read; each side's totals follow, summed in slices so the host stays free;
// more rows come a page at a time as the view scrolls. Diffs open in VS Code's diff editor.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import {
  prepareCompare,
  recordsOf,
  summarizeSide,
  turnViews,
  type AlignedRow,
  type Split,
  type Turn,
  type TurnView,
} from '../../core/changes/compare.js';
import { entriesMarkdown, MarkdownWriter } from '../../core/changes/exportMarkdown.js';
import { entryText } from '../../core/context/entryText.js';
import type { Session } from '../../core/session/session.js';
import type { EntryRecord } from '../../core/index/sessionIndex.js';
import {
  validateCompareMessage,
  type CompareHostMessage,
  type CompareReplies,
  type CompareRequest,
  type CompareRow,
  type CompareSide,
  type CompareSideInfo,
} from '../../compareProtocol.js';
import { dispatch, type HandlerTable } from '../../shared/messaging.js';
import { log } from '../platform/log.js';
import { answer, refuse } from '../platform/replies.js';
import { truncateStrings } from '../panels/entryDetails.js';
import { WebviewGate } from '../panels/webviewGate.js';
import { setPanelDocument } from '../panels/panelHtml.js';
import { textHtml } from '../panels/webviewHtml.js';
import type { ChangeDocuments } from './changeDocuments.js';

export const COMPARE_VIEW_TYPE = 'piTree.compare';
/** Rows in the first screen, and the most a page may ask for. */
export const FIRST_ROWS = 30;
/** Longest side a "diff both sides" writes, in entries (beyond: the first ones, and a note). */
const MAX_DIFF_ENTRIES = 20_000;

export interface CompareTarget {
  file: string;
  /** The node; null = the session's current leaf. */
  id: string | null;
}

export interface CompareDeps {
  extensionUri: vscode.Uri;
  acquire(file: string): Promise<{ session: Session; release: () => void }>;
  docs: ChangeDocuments;
  openTree(file: string, select?: string): Promise<void>;
  describe(file: string): string | undefined;
  code?: CompareCode;
}

/** What the compare view needs of checkpoints: exact file lists, and the code of both sides in a diff. */
export interface CompareCode {
  /** Files whose code differs between `from` and `to` (one session); undefined without checkpoints. */
  exactFiles(session: Session, from: string | null, to: string): Promise<string[] | undefined>;
  showDiff(a: { session: Session; id: string }, b: { session: Session; id: string }): Promise<unknown>;
}

interface SideState {
  target: CompareTarget;
  session: Session;
  /** The side's records after the ancestor (record numbers in its session). */
  recs: Int32Array;
  turns: Turn[];
}

export class ComparePanel implements vscode.Disposable {
  private readonly gate = new WebviewGate(undefined, undefined, validateCompareMessage);
  private readonly disposables: vscode.Disposable[] = [];
  private readonly releases: (() => void)[] = [];
  private readonly closing = new AbortController();
  private sides: { a: SideState; b: SideState } | undefined;
  private rows: AlignedRow[] = [];
  private split: Split | undefined;
  private loading: Promise<void>;
  private disposed = false;
  onDidDispose: (() => void) | undefined;
  /** When the first screen was posted (ms after the panel was made), for the log and the benchmark. */
  firstScreenMs: number | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly a: CompareTarget,
    private readonly b: CompareTarget,
    private readonly deps: CompareDeps,
  ) {
    panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'pi-tree.svg');
    setPanelDocument(panel, deps.extensionUri, panel.title, 'compare');
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m) => void this.onMessage(m)),
      panel.onDidDispose(() => this.dispose()),
    );
    this.loading = this.open();
  }

  private async open(): Promise<void> {
    const t0 = performance.now();
    const sa = await this.deps.acquire(this.a.file);
    this.releases.push(sa.release);
    const sb = this.b.file === this.a.file ? sa : await this.deps.acquire(this.b.file);
    if (sb !== sa) this.releases.push(sb.release);
    if (this.disposed) return;
    const p = await prepareCompare(
      sa.session,
      this.a.id ?? sa.session.leafId,
      sb.session,
      this.b.id ?? sb.session.leafId,
    );
    this.split = p.split;
    this.sides = {
      a: { target: this.a, session: sa.session, recs: p.split.a, turns: p.turnsA },
      b: { target: this.b, session: sb.session, recs: p.split.b, turns: p.turnsB },
    };
    this.rows = p.rows;
    log().info(
      `compare ${basename(this.a.file)}: ${p.split.common} shared entries, sides of ${p.split.a.length} and ${p.split.b.length} split at ${p.split.ancestorId ?? '(none)'} in ${(performance.now() - t0).toFixed(0)} ms`,
    );
  }

  private post(m: CompareHostMessage): void {
    if (this.disposed) return;
    void this.panel.webview
      .postMessage(m)
      .then(undefined, (e) => log().warn(`compare postMessage failed: ${String(e)}`));
  }

  private async onMessage(raw: unknown): Promise<void> {
    const check = this.gate.check(raw);
    if (!check.ok) return refuse(check, (r) => this.post(r), 'compare webview');
    const m = check.message;
    if (m.type === 'ready') return this.sendFirstScreen();
    await answer(
      m.seq,
      `compare ${m.body.kind}`,
      async () => {
        await this.loading;
        return dispatch(this.handlers, m.body, m.seq, undefined);
      },
      (r) => this.post(r),
    );
  }

  private async sendFirstScreen(): Promise<void> {
    const t0 = performance.now();
    try {
      await this.loading;
    } catch (e) {
      this.panel.webview.html = textHtml([e instanceof Error ? e.message : String(e)]);
      return;
    }
    const { a, b } = this.sides!;
    const split = this.split!;
    const ancestor = split.ancestorId ? a.session.index.get(split.ancestorId) : undefined;
    const [ancestorEntry] = ancestor ? await a.session.load([ancestor]) : [undefined];
    const rows = await this.rowViews(0, FIRST_ROWS);
    this.post({
      type: 'compareView',
      view: {
        ancestor: {
          id: split.ancestorId,
          text: ancestorEntry ? entryText(ancestorEntry).slice(0, 240) : '',
          time: ancestor?.time ?? 0,
          common: split.common,
        },
        a: await this.sideInfo(a),
        b: await this.sideInfo(b),
        rows: this.rows.length,
      },
      rows,
    });
    this.firstScreenMs = performance.now() - t0;
    log().info(
      `compare: first screen (${rows.length} of ${this.rows.length} rows) posted in ${this.firstScreenMs.toFixed(0)} ms`,
    );
    // Totals after the first screen: every assistant line of both sides is read for them.
    for (const side of ['a', 'b'] as const) {
      const s = this.sides![side];
      try {
        const sum = await summarizeSide(s.session, s.recs, ancestor?.time, this.closing.signal);
        // With checkpoints, the files are the code's own difference (bash changes included).
        const node = s.target.id ?? s.session.leafId;
        const exact = node
          ? await this.deps.code?.exactFiles(s.session, split.ancestorId, node).catch(() => undefined)
          : undefined;
        this.post({
          type: 'compareSide',
          side,
          totals: sum.totals,
          files: exact ?? sum.files,
          ...(exact ? { exact: true } : {}),
        });
      } catch (e) {
        if (!this.disposed) log().warn(`compare totals of side ${side}: ${String(e)}`);
      }
    }
  }

  private async sideInfo(s: SideState): Promise<CompareSideInfo> {
    const nodeId = s.target.id ?? s.session.leafId ?? '';
    const rec = nodeId ? s.session.index.get(nodeId) : undefined;
    const [e] = rec ? await s.session.load([rec]) : [undefined];
    return {
      title: this.deps.describe(s.target.file) ?? s.session.name ?? basename(s.target.file),
      fileName: basename(s.target.file),
      nodeId,
      nodeText: e ? entryText(e).slice(0, 240) : '',
      entries: s.recs.length,
    };
  }

  /** Rows [from, from + count) with each side's turns read. */
  private async rowViews(from: number, count: number): Promise<CompareRow[]> {
    const { a, b } = this.sides!;
    const chosen = this.rows.slice(from, from + count);
    const views = async (s: SideState, pick: (r: AlignedRow) => Turn | undefined) => {
      const turns = chosen.map(pick).filter((t): t is Turn => !!t);
      if (!turns.length) return new Map<Turn, TurnView>();
      const first = s.turns.indexOf(turns[0]);
      const list = await turnViews(s.session, s.recs, s.turns, first, first + turns.length, this.closing.signal);
      return new Map(turns.map((t, k) => [t, list[k]]));
    };
    const [va, vb] = [await views(a, (r) => r.a), await views(b, (r) => r.b)];
    return chosen.map((r, k) => ({
      index: from + k,
      ...(r.a ? { a: va.get(r.a) } : {}),
      ...(r.b ? { b: vb.get(r.b) } : {}),
    }));
  }

  private side(side: CompareSide): SideState {
    return this.sides![side];
  }

  /** The record `id` on a side's path after the ancestor (the webview may only name those). */
  private onSide(side: CompareSide, id: string): EntryRecord {
    const s = this.side(side);
    const i = s.session.index.lookup(id);
    if (i < 0 || !s.recs.includes(i))
      throw new Error(`Entry ${id} is not on side ${side.toUpperCase()} of this comparison.`);
    return s.session.index.view(i);
  }

  /** One handler per request kind of the compare view (compareProtocol.ts), as the tree's (requestHandlers.ts). */
  private readonly handlers: HandlerTable<CompareRequest, CompareReplies, undefined> = {
    rows: async (body) => this.rowViews(body.from, Math.min(body.count, 100)),
    entryText: async (body) => {
      const s = this.side(body.side);
      const [e] = await s.session.load([this.onSide(body.side, body.id)]);
      if (!e) throw new Error(`Entry ${body.id} could not be read from the file.`);
      const text = entriesMarkdown([e]);
      const state = { cut: false };
      return { text: truncateStrings(text, state) as string, truncated: state.cut };
    },
    diffRow: async (body) => {
      const row = this.rows[body.row];
      if (!row) throw new Error(`There is no row ${body.row + 1}.`);
      const text = async (s: SideState, t: Turn | undefined) =>
        t
          ? entriesMarkdown(
              (await s.session.load(recordsOf(s.session, s.recs.subarray(t.start, t.end)))).filter((e) => !!e),
            )
          : '';
      const { a, b } = this.sides!;
      await this.deps.docs.openDiff(
        { text: await text(a, row.a), name: 'turn.md', tag: 'A' },
        { text: await text(b, row.b), name: 'turn.md', tag: 'B' },
        `Turn ${body.row + 1}: A ↔ B (${basename(a.target.file)})`,
      );
      return {};
    },
    diffSides: async () => {
      const { a, b } = this.sides!;
      await this.deps.docs.openDiff(
        { text: await this.sideMarkdown(a), name: 'branch.md', tag: 'A' },
        { text: await this.sideMarkdown(b), name: 'branch.md', tag: 'B' },
        `Branches from ${this.split!.ancestorId ?? 'the start'}: A ↔ B`,
      );
      return {};
    },
    codeDiff: async () => {
      const { a, b } = this.sides!;
      const ida = a.target.id ?? a.session.leafId;
      const idb = b.target.id ?? b.session.leafId;
      if (!ida || !idb || !this.deps.code) throw new Error('There is no code to compare here.');
      await this.deps.code.showDiff({ session: a.session, id: ida }, { session: b.session, id: idb });
      return {};
    },
    reveal: async (body) => {
      this.onSide(body.side, body.id);
      await this.deps.openTree(this.side(body.side).target.file, body.id);
      return {};
    },
  };

  private async sideMarkdown(s: SideState): Promise<string> {
    const parts: string[] = [];
    const w = new MarkdownWriter((x) => parts.push(x), { asText: true });
    const recs = s.recs.subarray(0, MAX_DIFF_ENTRIES);
    for (let i = 0; i < recs.length; i += 500)
      for (const e of await s.session.load(recordsOf(s.session, recs.subarray(i, i + 500)), this.closing.signal))
        if (e) w.push(e);
    w.flush();
    if (s.recs.length > MAX_DIFF_ENTRIES)
      parts.push(`\n… ${s.recs.length - MAX_DIFF_ENTRIES} more entries not shown\n`);
    return parts.join('');
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.closing.abort();
    for (const d of this.disposables) d.dispose();
    for (const r of this.releases) r();
    this.onDidDispose?.();
  }
}

/** Opens compare panels and closes them with the extension. */
export class ComparePanels implements vscode.Disposable {
  private readonly open = new Set<ComparePanel>();

  constructor(private readonly deps: CompareDeps) {}

  show(a: CompareTarget, b: CompareTarget, title: string): ComparePanel {
    const panel = vscode.window.createWebviewPanel(COMPARE_VIEW_TYPE, title, vscode.ViewColumn.Active, {
      retainContextWhenHidden: false,
      enableFindWidget: true,
    });
    const p = new ComparePanel(panel, a, b, this.deps);
    this.open.add(p);
    p.onDidDispose = () => this.open.delete(p);
    return p;
  }

  dispose(): void {
    for (const p of [...this.open]) p.panel.dispose();
  }
}
