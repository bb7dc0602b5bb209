// One session's tree in a webview (a panel from the sidebar, or the custom editor of a .jsonl file).
// The host owns the Session: it sends the webview a light projection, then deltas as the file grows,
// and answers the webview's requests after validating them. The webview never sees or sends a path.
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import { convertToLlm } from '../core/context.js';
import { copyText, fullText } from '../core/preview.js';
import type { SessionRepository } from '../core/repository.js';
import type { Session, SessionChange } from '../core/session.js';
import type { EntryRecord } from '../core/sessionIndex.js';
import { messageOf, type AgentMessage, type CompactionEntry, type SessionEntry } from '../core/types.js';
import { validateWebviewMessage, type ContextView, type EntryDetails, type HostMessage, type InvokeAction, type MoveReply, type NodeView, type RequestBody, type SessionMeta } from '../protocol.js';
import { readConfig } from './config.js';
import { log } from './log.js';
import { Projector, projectParts } from './projection.js';
import { projectInWorker } from './workerProjection.js';
import type { SessionStore } from './sessionStore.js';
import { renderWebviewHtml } from './webviewHtml.js';

export const PANEL_VIEW_TYPE = 'piTree.tree';
export const EDITOR_VIEW_TYPE = 'piTree.sessionEditor';

/** What the panel needs from the rest of the host. */
export interface TreeDeps {
  extensionUri: vscode.Uri;
  store: SessionStore;
  repo: () => SessionRepository;
  openTree: (file: string) => Promise<void>;
  /** Asks before changing a session pi is writing; resolves false to cancel, 'fork' to fork instead. */
  confirmLiveWrite: (file: string, action: string) => Promise<boolean | 'fork'>;
  continueInPi: (file: string, text?: string) => Promise<void>;
  summaries: SummaryService;
  isLive: (file: string) => boolean;
  /** A short title for an unnamed session (its first message), when known. */
  describe: (file: string) => string | undefined;
}

/** Branch summaries and compaction (model side); the panel only routes requests to it. */
export interface SummaryService {
  available(): boolean;
  /** `targetId`: the node picked; `newLeaf`: where the leaf goes (its parent for a user message). */
  previewBranch(session: Session, targetId: string | null, newLeaf: string | null, focus: string | undefined, token: vscode.CancellationToken): Promise<{ previewId: string; summary: string; details: { readFiles: string[]; modifiedFiles: string[] }; entryCount: number; model?: string }>;
  commitBranch(session: Session, targetId: string | null, newLeaf: string | null, summary: string, previewId?: string): Promise<{ leafId: string | null }>;
  cancel(previewId: string): void;
  previewCompaction(session: Session, token: vscode.CancellationToken): Promise<unknown>;
  commitCompaction(session: Session, previewId: string, summary: string): Promise<unknown>;
}

const SNAPSHOT_PART = 1000;
/** Sessions with at least this many entries are projected in a worker thread. */
const WORKER_MIN = 5000;
const MAX_STRING = 64 * 1024;
const MAX_IMAGE = 4 * 1024 * 1024;
const MAX_MESSAGE_BYTES = 2 * 1024 * 1024;

/** Copies an entry, cutting long strings (a 60 MB tool output must not cross the bridge whole). */
function truncateStrings(v: unknown, state: { cut: boolean }, key = ''): unknown {
  if (typeof v === 'string') {
    const limit = key === 'data' ? MAX_IMAGE : MAX_STRING;
    if (v.length > limit) {
      state.cut = true;
      return key === 'data' ? '' : `${v.slice(0, limit)}\n… [${(v.length - limit).toLocaleString()} more characters]`;
    }
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => truncateStrings(x, state));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = truncateStrings(x, state, k);
    return out;
  }
  return v;
}

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
  private loading: Promise<void> | undefined;
  private selected: string | null = null;
  private readonly token = randomBytes(8).toString('hex');
  private requestTimes: number[] = [];
  private readonly cancels = new Map<number, vscode.CancellationTokenSource>();
  private disposed = false;
  private readonly closing = new AbortController();
  /** Deltas are sent in order, and before the reply of the request that caused them. */
  private deltas: Promise<void> = Promise.resolve();
  onDidDispose: (() => void) | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly file: string,
    private readonly deps: TreeDeps,
  ) {
    const dist = vscode.Uri.joinPath(deps.extensionUri, 'dist');
    panel.webview.options = { enableScripts: true, localResourceRoots: [dist, vscode.Uri.joinPath(deps.extensionUri, 'media')] };
    panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'pi-tree.svg');
    panel.title = basename(file);
    panel.webview.html = renderWebviewHtml({
      cspSource: panel.webview.cspSource,
      nonce: randomBytes(18).toString('base64url'),
      scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
      styleUris: [panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css')).toString()],
      codiconUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codicons', 'codicon.css')).toString(),
      title: basename(file),
    });
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m) => void this.onMessage(m)),
      panel.onDidChangeViewState(() => {
        if (panel.visible && this.stale && this.ready) void this.sendSnapshot();
      }),
      panel.onDidDispose(() => this.dispose()),
    );
    this.loading = this.open();
  }

  private title(): string {
    const t = this.session?.name ?? this.deps.describe(this.file) ?? basename(this.file);
    return t.length > 40 ? `${t.slice(0, 39)}…` : t;
  }

  /** Opaque id the webview keeps in its state so the serializer can restore this panel. */
  get restoreToken(): string {
    return this.token;
  }

  get selectedId(): string | null {
    return this.selected;
  }

  private async open(): Promise<void> {
    try {
      const { session, release } = await this.deps.store.acquire(this.file);
      if (this.disposed) return release();
      this.session = session;
      this.release = release;
      this.lastLeaf = session.leafId;
      this.lastName = session.name;
      this.disposables.push({ dispose: session.onChange((c) => void (this.deltas = this.deltas.then(() => this.onSessionChange(c)).catch((e) => log().warn(`delta failed: ${String(e)}`)))) });
      this.panel.title = this.title();
      this.projector = new Projector(session.index);
      if (this.ready) await this.sendSnapshot();
    } catch (e) {
      log().error(`open ${this.file}: ${String(e)}`);
      this.panel.webview.html = errorHtml(e instanceof Error ? e.message : String(e));
    }
  }

  meta(): SessionMeta {
    const s = this.session!;
    return {
      fileName: basename(this.file),
      sessionId: s.header.id,
      cwd: String(s.header.cwd ?? ''),
      name: s.name,
      firstMessage: this.deps.describe(this.file)?.slice(0, 200),
      readOnly: s.readOnly,
      live: this.deps.isLive(this.file),
      diagnostics: s.diagnostics.filter((d) => d.severity !== 'info').slice(0, 200).map((d) => ({ line: d.line, severity: d.severity, message: d.message })),
      clickAction: readConfig().clickAction,
      summariesAvailable: this.deps.summaries.available(),
      restoreToken: this.token,
    };
  }

  private post(m: HostMessage): void {
    if (this.disposed) return;
    void this.panel.webview.postMessage(m).then(undefined, (e) => log().warn(`postMessage failed: ${String(e)}`));
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
      this.stale = true;
      return;
    }
    this.stale = false;
    // Projected from the file and posted in parts of a thousand nodes, none kept here: VS Code
    // serializes each message on this (shared) thread, and 100k nodes held at once would make the
    // collector pause it for tens of ms.
    const s = this.session;
    const t0 = performance.now();
    const live = s.index.live();
    const leafId = s.leafId;
    const send = (rev: number) => (nodes: NodeView[], from: number) => {
      if (from === 0) this.post({ type: 'snapshot', rev, meta: this.meta(), leafId, nodes, total: live.length > nodes.length ? live.length : undefined });
      else this.post({ type: 'snapshotPart', rev, nodes });
    };
    this.projector = new Projector(s.index);
    // A big session is read and projected again in a worker thread (same bytes, same result): its
    // parsing and garbage stay off this thread. Small ones, migrated ones (ids made in memory) and any
    // worker failure: here, in slices.
    if (s.path && !s.legacy && live.length >= WORKER_MIN) {
      try {
        await projectInWorker(join(__dirname, 'projector.js'), { file: s.path, until: s.readSize, part: SNAPSHOT_PART }, { count: live.length, leafId }, send(++this.rev), this.closing.signal);
        this.projector.workerMade = true;
        log().info(`${basename(this.file)}: ${live.length} entries projected in a worker thread and sent in ${(performance.now() - t0).toFixed(0)} ms`);
        return;
      } catch (e) {
        if (this.disposed) return;
        log().info(`${basename(this.file)}: projected on the extension host instead of a worker (${String(e)})`);
      }
    }
    await projectParts(s.index, live, s, this.projector, SNAPSHOT_PART, send(++this.rev));
    log().debug(`sent ${live.length} entries of ${basename(this.file)} in ${(performance.now() - t0).toFixed(0)} ms`);
  }

  /**
   * After a worker projected the snapshot, this thread's projector has not seen the tool calls that
   * new tool results answer: they are read from the assistant messages above the new entries.
   */
  private async learnCallsFor(fresh: EntryRecord[], entries: (SessionEntry | undefined)[]): Promise<void> {
    const projector = this.projector!;
    const s = this.session!;
    const wanted = new Set<string>();
    entries.forEach((e) => {
      const m = e?.type === 'message' ? (e.message as { role?: unknown; toolCallId?: unknown }) : undefined;
      if (m?.role === 'toolResult' && typeof m.toolCallId === 'string' && !projector.toolCalls.has(m.toolCallId)) wanted.add(m.toolCallId);
    });
    if (!wanted.size) return;
    const seen = new Set(fresh);
    const above: EntryRecord[] = [];
    for (const r of fresh) {
      let p = r.parent;
      for (let steps = 0; p && steps < 200; steps++, p = p.parent) {
        if (!seen.has(p) && p.type === 'message' && p.role === 'assistant') {
          seen.add(p);
          above.push(p);
        }
      }
    }
    for (const e of await s.load(above)) if (e) projector.learn(e);
  }

  private async onSessionChange(c: SessionChange): Promise<void> {
    const s = this.session!;
    if (c.kind === 'reloaded') {
      // The tool calls seen so far belong to the file as it was; nodes are projected when sent.
      this.projector = new Projector(s.index);
      this.lastLeaf = s.leafId;
      this.lastName = s.name;
      return this.snapshotNow();
    }
    const fresh = c.records.filter((r) => s.index.get(r.id) === r);
    const entries = await s.load(fresh);
    if (this.projector!.workerMade) await this.learnCallsFor(fresh, entries);
    const nodes = fresh.map((r, i) => this.projector!.project(r, entries[i]));
    const labelChanges: { targetId: string; label?: string }[] = [];
    for (const r of fresh) {
      if (r.type !== 'label') continue;
      const target = (r.entry as { targetId?: string } | undefined)?.targetId;
      if (!target) continue;
      labelChanges.push({ targetId: target, label: s.index.labels.get(target)?.label });
    }
    if (!this.ready || !this.panel.visible) {
      this.stale = true;
      return;
    }
    if (nodes.length) this.post({ type: 'appended', rev: ++this.rev, nodes });
    for (const l of labelChanges) this.post({ type: 'labelChanged', rev: ++this.rev, targetId: l.targetId, label: l.label });
    if (s.leafId !== this.lastLeaf) {
      this.lastLeaf = s.leafId;
      this.post({ type: 'leafMoved', rev: ++this.rev, leafId: s.leafId });
    }
    if (s.name !== this.lastName) {
      this.lastName = s.name;
      this.panel.title = this.title();
      this.post({ type: 'renamed', rev: ++this.rev, name: s.name });
    }
  }

  private async onMessage(raw: unknown): Promise<void> {
    // Floods and oversized payloads are dropped before anything else looks at them.
    const now = Date.now();
    this.requestTimes = this.requestTimes.filter((t) => now - t < 1000);
    if (this.requestTimes.length >= 300) {
      if (this.requestTimes.length === 300) log().warn('webview: more than 300 messages in a second; dropping until it calms down');
      this.requestTimes.push(now);
      return;
    }
    this.requestTimes.push(now);
    let size = 0;
    try {
      size = JSON.stringify(raw)?.length ?? 0;
    } catch {
      size = Infinity;
    }
    if (size > MAX_MESSAGE_BYTES) return log().warn(`webview: message of ${size} bytes rejected (limit ${MAX_MESSAGE_BYTES})`);
    const check = validateWebviewMessage(raw);
    if (!check.ok) {
      log().warn(`webview: rejected message: ${check.reason}`);
      const seq = (raw as { seq?: unknown })?.seq;
      if (typeof seq === 'number' && Number.isSafeInteger(seq)) this.post({ type: 'reply', seq, ok: false, error: `Rejected: ${check.reason}` });
      return;
    }
    const m = check.value;
    if (m.type === 'ready') {
      this.ready = true;
      return this.sendSnapshot();
    }
    if (m.type === 'selected') {
      this.selected = m.id;
      return;
    }
    const seq = m.seq;
    try {
      const data = await this.handle(m.body, seq);
      await this.deltas;
      this.post({ type: 'reply', seq, ok: true, data: data ?? null });
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      log().info(`request ${m.body.kind} failed: ${msg}`);
      this.post({ type: 'reply', seq, ok: false, error: msg });
    } finally {
      this.cancels.delete(seq);
    }
  }

  private need(id: string): EntryRecord {
    const rec = this.session!.index.get(id);
    if (!rec) throw new Error(`Entry ${id} is not in this session.`);
    return rec;
  }

  private async handle(body: RequestBody, seq: number): Promise<unknown> {
    await this.loading;
    const s = this.session;
    if (!s) throw new Error('The session could not be opened.');
    switch (body.kind) {
      case 'getEntry':
        return this.entryDetails(body.id);
      case 'getContext':
        if (body.id !== null) this.need(body.id);
        return this.contextView(body.id);
      case 'moveTo':
        return this.moveTo(body.id);
      case 'fork':
        return this.fork(body.id);
      case 'clone':
        return this.clone(body.id);
      case 'setLabel': {
        this.need(body.id);
        if (!(await this.guard('label an entry'))) return { cancelled: true };
        await s.setLabel(body.id, body.label);
        return { label: s.index.labels.get(body.id)?.label ?? null };
      }
      case 'rename':
        if (!(await this.guard('rename the session'))) return { cancelled: true };
        await s.setName(body.name);
        return { name: s.name ?? null };
      case 'copyText': {
        this.need(body.id);
        const e = await s.getEntry(body.id);
        const text = e ? copyText(e) : undefined;
        if (!text) throw new Error('This entry has no text to copy.');
        await vscode.env.clipboard.writeText(text);
        return { copied: text.length };
      }
      case 'continueInPi': {
        if (body.id) {
          const r = await this.moveTo(body.id);
          if (r.cancelled) return r;
          return this.deps.continueInPi(this.file, body.text ?? r.editorText).then(() => r);
        }
        await this.deps.continueInPi(this.file, body.text);
        return {};
      }
      case 'summaryPreview': {
        if (body.id !== null) this.need(body.id);
        const { leaf } = await this.piTarget(body.id);
        const cts = new vscode.CancellationTokenSource();
        this.cancels.set(seq, cts);
        return vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: 'Summarizing the branch being left…', cancellable: true },
          (_p, token) => {
            token.onCancellationRequested(() => cts.cancel());
            return this.deps.summaries.previewBranch(s, body.id, leaf, body.focus, cts.token);
          },
        );
      }
      case 'moveWithSummary': {
        if (body.id !== null) this.need(body.id);
        const { leaf, editorText } = await this.piTarget(body.id);
        const ok = await this.guard('move the leaf');
        if (ok === false) return { cancelled: true };
        if (ok === 'fork') return this.forkInstead(leaf);
        const r = await this.deps.summaries.commitBranch(s, body.id, leaf, body.summary, body.previewId);
        return { leafId: r.leafId, editorText, moved: true } satisfies MoveReply;
      }
      case 'cancelPreview':
        this.deps.summaries.cancel(body.previewId);
        return {};
    }
  }

  /** pi's /tree rule: a user (or custom) message puts the leaf on its parent and hands back its text. */
  async piTarget(id: string | null): Promise<{ leaf: string | null; editorText?: string }> {
    if (id === null) return { leaf: null };
    const rec = this.need(id);
    if (rec.type === 'message' && rec.role === 'user') {
      const e = await this.session!.getEntry(id);
      return { leaf: rec.parentId && this.session!.index.get(rec.parentId) ? rec.parentId : null, editorText: e ? fullText(messageOf(e)?.content) : '' };
    }
    if (rec.type === 'custom_message') {
      const e = await this.session!.getEntry(id);
      return { leaf: rec.parentId && this.session!.index.get(rec.parentId) ? rec.parentId : null, editorText: e ? fullText(e.content) : '' };
    }
    return { leaf: id };
  }

  private async guard(action: string): Promise<boolean | 'fork'> {
    const ro = this.session!.readOnly;
    if (ro) throw new Error(`This session is read-only: ${ro}.`);
    return this.deps.confirmLiveWrite(this.file, action);
  }

  async moveTo(id: string | null): Promise<MoveReply & { cancelled?: boolean }> {
    const s = this.session!;
    const { leaf, editorText } = await this.piTarget(id);
    if (leaf === s.leafId) return { leafId: leaf, editorText, moved: false };
    const ok = await this.guard('move the leaf');
    if (ok === false) return { leafId: s.leafId, moved: false, cancelled: true };
    if (ok === 'fork') {
      await this.forkInstead(leaf);
      return { leafId: s.leafId, editorText, moved: false };
    }
    const r = await s.moveTo(leaf);
    return { leafId: r.leafId, editorText, moved: r.moved };
  }

  private async forkInstead(leaf: string | null): Promise<{ fileName: string }> {
    const file = leaf === null ? await this.deps.repo().create(String(this.session!.header.cwd ?? ''), { parentSession: this.file }) : await this.deps.repo().clone(this.session!, leaf);
    await this.deps.openTree(file);
    return { fileName: basename(file) };
  }

  async fork(id: string): Promise<{ fileName: string; text: string }> {
    this.need(id);
    const { file, text } = await this.deps.repo().fork(this.session!, id);
    await this.deps.openTree(file);
    return { fileName: basename(file), text };
  }

  async clone(id: string): Promise<{ fileName: string }> {
    this.need(id);
    const file = await this.deps.repo().clone(this.session!, id);
    await this.deps.openTree(file);
    return { fileName: basename(file) };
  }

  private async entryDetails(id: string): Promise<EntryDetails> {
    const s = this.session!;
    this.need(id);
    const e = await s.getEntry(id);
    if (!e) throw new Error(`Entry ${id} could not be read from the file (damaged line).`);
    const state = { cut: false };
    const entry = truncateStrings(e, state);
    const onPath = s.index.branch(s.leafId).some((r) => r.id === id);
    return { id, entry, truncated: state.cut, label: s.index.labels.get(id)?.label, onPath, isLeaf: s.leafId === id };
  }

  private async contextView(id: string | null): Promise<ContextView> {
    const s = this.session!;
    const ctx = await s.buildContext(id);
    const path = s.index.branch(id);
    const compaction = [...path].reverse().find((r) => r.type === 'compaction');
    // In slices: a 100k-entry session's context has tens of thousands of messages.
    const messages: ContextView['messages'] = [];
    let t0 = performance.now();
    for (const m of ctx.messages) {
      const llm = convertToLlm([m])[0];
      const text = llm ? fullText(llm.content) || summarizeContent(llm) : summarizeContent(m);
      messages.push({ role: String(m.role), text: text.slice(0, 400), tokens: estimate(m) });
      if (performance.now() - t0 > 8) {
        await new Promise<void>((r) => setImmediate(r));
        t0 = performance.now();
      }
    }
    const at = compaction ? ctx.messages.findIndex((m) => m.role === 'compactionSummary' && m.summary === (compaction.entry as CompactionEntry | undefined)?.summary) : -1;
    return {
      leafId: id,
      messages,
      tokens: messages.reduce((n, m) => n + m.tokens, 0),
      compactionAt: at >= 0 ? at : undefined,
      thinkingLevel: ctx.thinkingLevel,
      model: ctx.model ? `${ctx.model.provider}/${ctx.model.modelId}` : null,
    };
  }

  /** Asks the webview to start an action (from a native menu or the palette). */
  invoke(action: InvokeAction, id?: string): void {
    this.post({ type: 'invoke', action, id });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.closing.abort(); // a projection worker still running is stopped
    for (const c of this.cancels.values()) c.cancel();
    for (const d of this.disposables) d.dispose();
    this.release?.();
    this.onDidDispose?.();
  }
}

/** pi's estimateTokens (chars / 4) for the context view; images count 4800 characters. */
function estimate(m: AgentMessage): number {
  let chars = 0;
  const add = (v: unknown) => {
    if (typeof v === 'string') chars += v.length;
    else if (Array.isArray(v)) for (const b of v) add(b);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.type === 'image') chars += 4800;
      else if (o.type === 'text') chars += String(o.text ?? '').length;
      else if (o.type === 'thinking') chars += String(o.thinking ?? '').length;
      else if (o.type === 'toolCall') chars += String(o.name ?? '').length + JSON.stringify(o.arguments ?? {}).length;
    }
  };
  if (m.role === 'branchSummary' || m.role === 'compactionSummary') chars = String(m.summary ?? '').length;
  else if (m.role === 'bashExecution') chars = String(m.command ?? '').length + String(m.output ?? '').length;
  else add(m.content);
  return Math.ceil(chars / 4);
}

function summarizeContent(m: AgentMessage): string {
  if (Array.isArray(m.content)) {
    const calls = (m.content as { type?: string; name?: string }[]).filter((b) => b?.type === 'toolCall').map((b) => b.name);
    if (calls.length) return `(tool calls: ${calls.join(', ')})`;
  }
  if (m.role === 'bashExecution') return `$ ${String(m.command ?? '')}`;
  return '';
}

function errorHtml(message: string): string {
  const esc = message.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
  return `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head><body><h3>This file cannot be shown as a pi session tree</h3><p>${esc}</p><p>The file was not changed.</p></body></html>`;
}

