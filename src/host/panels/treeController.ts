// One session's tree in a webview (a panel from the sidebar, or the custom editor of a .jsonl file):
// its lifecycle, the snapshot and the deltas that keep the webview in step with the file, and the
// dispatch of the webview's requests (requestHandlers.ts) once they pass the gate (webviewGate.ts).
// The host owns the Session; the webview gets a light projection and never sees or sends a path.
import { nanoid } from 'nanoid';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { Session, SessionChange } from '../../core/session/session.js';
import type { HostMessage, InvokeAction, SessionMeta } from '../../protocol.js';
import { LiveSession } from '../runningPi/liveSession.js';
import { log } from '../platform/log.js';
import { answer, refuse } from '../platform/replies.js';
import { projectAppended, Projector } from '../projection/projection.js';
import { handleRequest, type HandlerContext } from './requestHandlers.js';
import { CodeMarks } from '../checkpoints/codeMarks.js';
import { SessionActions } from './sessionActions.js';
import type { TreeDeps } from './treeDeps.js';
import { SnapshotSource } from './treeSnapshots.js';
import { PanelFamily } from './panelFamily.js';
import { earlyMeta, sessionMeta, type MetaSources } from './panelMeta.js';
import { WebviewGate } from './webviewGate.js';
import { firstUserTexts, TAB_TITLE_MAX, titleOf, unreadTitle, type FirstTexts } from './sessionTitles.js';
import { setPanelDocument } from './panelHtml.js';
import { errorHtml } from './webviewHtml.js';
import { AskSlot } from '../runs/askFlow.js';

// (re-exported: the panel manager makes the deps it hands every panel)
export type { TreeDeps } from './treeDeps.js';

export const PANEL_VIEW_TYPE = 'piTree.tree';
export const EDITOR_VIEW_TYPE = 'piTree.sessionEditor';

export class TreeController implements vscode.Disposable {
  private session: Session | undefined;
  private release: (() => void) | undefined;
  private disposables: vscode.Disposable[] = [];
  private rev = 0;
  private projector: Projector | undefined;
  private lastLeaf: string | null = null;
  private lastName: string | undefined;
  private ready = false;
  private stale = false;
  /** A first screen from the file's end was shown: the first snapshot goes without its own. */
  private firstScreenShown = false;
  /** Whether a big session's first screen was posted (see sendEarlyFirstScreen). */
  private readonly firstScreen: Promise<boolean>;
  private loading: Promise<void> | undefined;
  private selected: string | null = null;
  private readonly token = nanoid(16);
  private readonly gate = new WebviewGate();
  private actions: SessionActions | undefined;
  private readonly queuedInvokes: [InvokeAction, string | undefined, string | undefined][] = [];
  /** The first user message's text and a fork's own first one (titles), read once they exist. */
  private texts: FirstTexts = {};
  private readonly cancels = new Map<number, vscode.CancellationTokenSource>();
  private disposed = false;
  private readonly closing = new AbortController();
  private readonly live: LiveSession;
  /** Deltas are sent in order, and before the reply of the request that caused them. */
  private deltas: Promise<void> = Promise.resolve();
  private readonly family: PanelFamily;
  onDidDispose: (() => void) | undefined;
  /** Resolves once the first snapshot has been sent (or the panel failed or closed). */
  private markOpened: () => void = () => {};
  private readonly source: SnapshotSource;
  private marks: CodeMarks | undefined;
  /** The turn this tree asked pi for, while it runs (it outlives the tree: see AskSlot). */
  private readonly asking = new AskSlot();

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly file: string,
    private readonly deps: TreeDeps,
  ) {
    panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'pi-tree.svg');
    panel.title = this.title();
    setPanelDocument(panel, deps.extensionUri, basename(file));
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m) => void this.onMessage(m)),
      panel.onDidChangeViewState(() => {
        if (panel.active) this.deps.acted?.();
        if (panel.visible && this.stale && this.ready) void this.sendSnapshot();
      }),
      panel.onDidDispose(() => this.dispose()),
    );
    this.live = new LiveSession(file, deps.bridges, (m) => log().info(m));
    this.family = new PanelFamily({
      family: deps.compareServices.family,
      file,
      session: () => (this.ready && !this.disposed ? this.session : undefined),
      send: (links) =>
        void (this.deltas = this.deltas.then(() => void this.post({ type: 'family', rev: ++this.rev, links }))),
      signal: this.closing.signal,
    });
    this.disposables.push(
      this.live,
      this.live.onDidChange(() => this.sendMeta()),
      deps.compareServices.family.onDidChange(() => this.family.schedule()),
      this.family,
    );
    this.source = new SnapshotSource(file, this.closing.signal);
    // (a big file's whole read waits while VS Code makes the webview: see SnapshotSource.released)
    const loading = (this.loading = this.source.released.then(() => this.open()));
    this.firstScreen = this.sendEarlyFirstScreen();
    // The window's progress (status bar) while the session is read and sent; the webview shows its own bar.
    const opened = new Promise<void>((resolve) => (this.markOpened = resolve));
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'pi Tree: opening a session' },
      (progress) => {
        void loading.then(() => progress.report({ message: this.title() }));
        return opened;
      },
    );
  }

  /** The header's facts changed (pi connected, busy, gone; a setting): the webview gets the new meta. */
  sendMeta(): void {
    if (!this.session || !this.ready) return;
    // In order with the deltas (never between the parts of a snapshot).
    this.deltas = this.deltas.then(() => void this.post({ type: 'meta', rev: ++this.rev, meta: this.meta() }));
  }

  /**
   * The tab's title: the session's name, else its first message; a fork that still carries its source's
   * is "… (fork 2 · 10:20)" (core/listing/sessionTitle.ts, as the sidebar names it).
   */
  private title(max = TAB_TITLE_MAX): string {
    const s = this.session;
    if (!s) return unreadTitle(this.file, this.deps.listedTitle, max);
    return titleOf(
      s,
      this.texts,
      this.deps.listedFirst?.(this.file) ?? basename(this.file),
      max,
      this.deps.placeOf?.(this.file),
      typeof s.header.parentSession === 'string' ? this.deps.sourceText?.(s.header.parentSession) : undefined,
    );
  }

  /** What the session is called may have changed (a sibling fork was made): the tab and the header follow. */
  retitle(): void {
    if (!this.session || this.disposed) return;
    const t = this.title();
    if (t === this.panel.title) return;
    this.panel.title = t;
    this.sendMeta();
  }

  /** Opaque id the webview keeps in its state so the serializer can restore this panel. */
  get restoreToken(): string {
    return this.token;
  }

  get selectedId(): string | null {
    return this.selected;
  }

  private async open(): Promise<void> {
    if (this.disposed) return; // closed while its read was held
    try {
      const { session, release } = await this.deps.store.acquire(this.file);
      if (this.disposed) return release();
      this.session = session;
      this.release = release;
      this.source.mark('open');
      this.actions = new SessionActions(session, this.file, this.deps);
      this.lastLeaf = session.leafId;
      this.lastName = session.name;
      this.disposables.push({
        dispose: session.onChange(
          (c) =>
            void (this.deltas = this.deltas
              .then(() => this.onSessionChange(c))
              .catch((e) => log().warn(`delta failed: ${String(e)}`))),
        ),
      });
      this.texts = await firstUserTexts(session).catch(() => ({}));
      this.panel.title = this.title();
      this.projector = new Projector(session.index);
      this.marks = new CodeMarks(session, {
        agentDir: this.deps.agentDir,
        send: (ids, off) => {
          if (this.ready && !this.disposed)
            this.deltas = this.deltas.then(
              () => void this.post({ type: 'codeMarks', rev: ++this.rev, ids, ...(off ? { off } : {}) }),
            );
        },
      });
      this.disposables.push(this.marks);
      // Not awaited: `loading` is this open, and the snapshot awaits it (a webview ready before the
      // session was open used to wait for itself here, and the tree never came).
      if (this.ready) void this.sendSnapshot().finally(() => this.markOpened());
    } catch (e) {
      log().error(`open ${this.file}: ${String(e)}`);
      this.panel.webview.html = errorHtml(e instanceof Error ? e.message : String(e));
      this.markOpened();
    }
  }

  meta(): SessionMeta {
    const s = this.session!;
    return sessionMeta(this.metaSources(s.header.id), s, this.title(120));
  }

  private metaSources(sessionId: string): MetaSources {
    return {
      file: this.file,
      restoreToken: this.token,
      firstMessage: this.texts.first,
      listedTitle: this.deps.listedTitle?.(this.file, 120),
      listedFirst: this.deps.listedFirst?.(this.file),
      live: this.live.state,
      isLive: this.deps.isLive(this.file),
      summariesAvailable: this.deps.summaries.available(),
      hidden: this.deps.compareServices.hidden.get(sessionId),
    };
  }

  /** Posts `m`; settles once VS Code has taken it (or refused it: logged). Most callers need not wait. */
  private post(m: HostMessage): Promise<void> {
    if (this.disposed) return Promise.resolve();
    return Promise.resolve(this.panel.webview.postMessage(m)).then(
      () => undefined,
      (e) => log().warn(`postMessage failed: ${String(e)}`),
    );
  }

  /** Queued with the deltas, so no delta lands between the parts of a snapshot. */
  private sendSnapshot(): Promise<void> {
    const run = this.deltas.then(() => this.snapshotNow());
    this.deltas = run.catch((e) => log().warn(`snapshot failed: ${String(e)}`));
    return run;
  }

  private async snapshotNow(): Promise<void> {
    if (!this.session) return;
    await this.loading;
    if (!this.panel.visible) {
      this.source.skip();
      this.stale = true;
      return;
    }
    this.stale = false;
    // Projected from the file and posted in parts of a thousand nodes, none kept here: 100k nodes held
    // at once would make the collector pause this (shared) thread for tens of ms.
    const s = this.session;
    // Live entries (one per id), counted without making a record object each.
    const count = s.index.size;
    const leafId = s.leafId;
    const projector = await this.source.project(
      s,
      () => ++this.rev,
      (rev, body, n, from) => {
        if (from === 0)
          this.post({
            type: 'snapshot',
            rev,
            meta: this.meta(),
            leafId,
            total: count > n ? count : undefined,
            ...body,
          });
        else this.post({ type: 'snapshotPart', rev, ...body });
      },
      () => this.disposed,
      this.firstScreenShown
        ? undefined
        : (rev, nodes) => void this.post({ type: 'firstScreen', rev, meta: this.meta(), leafId, nodes, total: count }),
    );
    this.firstScreenShown = false;
    if (!projector) return;
    this.projector = projector;
    this.family.resend();
    this.marks?.schedule(0, true);
  }

  /**
   * A big session's first screen, read from the file's end when the panel was made: posted as soon as
   * it is read, before the webview is ready. VS Code keeps it for the loading document and hands it over
   * at its load event, which nothing holds back (webviewHtml.ts): sooner than a round trip after `ready`.
   * The snapshot follows and replaces it. If the session is open by then and ends elsewhere (it changed
   * since), its own first screen goes.
   */
  private async sendEarlyFirstScreen(): Promise<boolean> {
    const early = await this.source.earlyFirstScreen();
    if (!early || this.disposed || !this.panel.visible) return false;
    const s = this.session;
    if (s && s.leafId !== early.leafId) return false;
    this.firstScreenShown = true;
    this.source.mark('firstScreen');
    log().info(
      `${basename(this.file)}: first screen of ${early.nodes.length} entries read from the file's end${s ? '' : ', before the whole file was read'}`,
    );
    const taken = this.post({
      type: 'firstScreen',
      rev: ++this.rev,
      meta: s ? this.meta() : earlyMeta(this.metaSources(early.sessionId), early),
      leafId: early.leafId,
      nodes: early.nodes,
      ...(s ? { total: s.index.size } : {}),
    });
    // The snapshot's parts wait until VS Code has taken the first screen (so they do not queue with it),
    // but never long: a message VS Code never acknowledged must not hold the tree back.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([taken, new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_SCREEN_ACK_MS)))]);
    clearTimeout(timer);
    return true;
  }

  private async onSessionChange(c: SessionChange): Promise<void> {
    const s = this.session!;
    this.marks?.schedule();
    if (c.kind === 'reloaded') {
      // The tool calls seen so far belong to the file as it was; nodes are projected when sent.
      this.projector = new Projector(s.index);
      this.lastLeaf = s.leafId;
      this.lastName = s.name;
      return this.snapshotNow();
    }
    const { fresh, nodes, labelChanges } = await projectAppended(this.projector!, s, c.records);
    if (!this.ready || !this.panel.visible) {
      this.stale = true;
      return;
    }
    const moved = s.leafId !== this.lastLeaf;
    this.lastLeaf = s.leafId;
    if (nodes.length) this.post({ type: 'appended', rev: ++this.rev, nodes, ...(moved ? { leafId: s.leafId } : {}) });
    else if (moved) this.post({ type: 'leafMoved', rev: ++this.rev, leafId: s.leafId });
    for (const l of labelChanges)
      this.post({ type: 'labelChanged', rev: ++this.rev, targetId: l.targetId, label: l.label });
    // A new session gets its first message later, and a fork its own one: its title comes from it then.
    const firstNow =
      (this.texts.first === undefined ||
        (this.texts.own === undefined && typeof s.header.parentSession === 'string')) &&
      fresh.some((r) => r.type === 'message' && r.role === 'user');
    if (firstNow) this.texts = await firstUserTexts(s).catch(() => this.texts);
    if (s.name !== this.lastName || firstNow) {
      this.lastName = s.name;
      this.panel.title = this.title();
      this.post({ type: 'renamed', rev: ++this.rev, name: s.name });
      this.sendMeta();
    }
  }

  private async onMessage(raw: unknown): Promise<void> {
    const check = this.gate.check(raw);
    if (!check.ok) return refuse(check, (r) => this.post(r), 'webview');
    const m = check.message;
    if (m.type === 'ready') {
      this.ready = true;
      this.source.mark('ready');
      // Posted: the whole file is read once the webview has painted it (its `shown`), else now.
      if (await this.firstScreen) this.source.releaseWhenShown();
      else this.source.release();
      await this.sendSnapshot().finally(() => this.markOpened());
      // Actions asked for before the webview could take them (open with a selection) go after the snapshot.
      for (const [action, id, text] of this.queuedInvokes.splice(0))
        this.post({ type: 'invoke', action, id, ...(text !== undefined ? { text } : {}) });
      return;
    }
    if (m.type === 'shown') return this.source.release();
    if (m.type === 'selected') {
      if (this.panel.active) this.deps.acted?.();
      this.selected = m.id;
      return;
    }
    const seq = m.seq;
    await answer(
      seq,
      m.body.kind,
      async () => {
        await this.loading;
        const data = await handleRequest(m.body, seq, this.handlerContext());
        await this.deltas; // the reply after the deltas its change made
        return data;
      },
      (r) => this.post(r),
    ).finally(() => this.cancels.delete(seq));
  }

  private handlerContext(): HandlerContext {
    if (!this.session || !this.actions) throw new Error('The session could not be opened.');
    return {
      session: this.session,
      file: this.file,
      actions: this.actions,
      summaries: this.deps.summaries,
      continueInPi: this.deps.continueInPi,
      cancellation: (seq) => {
        const cts = new vscode.CancellationTokenSource();
        this.cancels.set(seq, cts);
        return cts;
      },
      compareServices: this.deps.compareServices,
      code: this.deps.code,
      ask: this.deps.ask,
      asking: this.asking,
      tryVariants: this.deps.tryVariants,
      openLink: async (token) => {
        const link = this.family.resolve(token);
        if (!link) throw new Error('This link is out of date: the family of the session changed. Try again.');
        await this.deps.compareServices.openTree(link.file, link.at ?? undefined);
      },
    };
  }

  /** The open session, once read. */
  get openSession(): Session | undefined {
    return this.session;
  }

  /** The session's actions (move, fork, …), once it is open: native menu commands use them too. */
  get sessionActions(): SessionActions | undefined {
    return this.actions;
  }

  /** Asks the webview to start an action (from a native menu or the palette). */
  invoke(action: InvokeAction, id?: string, text?: string): void {
    if (this.ready) this.post({ type: 'invoke', action, id, ...(text !== undefined ? { text } : {}) });
    else this.queuedInvokes.push([action, id, text]);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.markOpened();
    this.closing.abort(); // a projection worker still running is stopped
    for (const c of this.cancels.values()) c.cancel();
    for (const d of this.disposables) d.dispose();
    this.release?.();
    this.onDidDispose?.();
  }
}

/** How long the snapshot waits for VS Code to take the first screen before it goes anyway. */
const FIRST_SCREEN_ACK_MS = 1000;
