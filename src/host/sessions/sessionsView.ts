// The "Sessions" view: pi sessions of each workspace folder (or of every folder, like pi's /resume
// "All"), forks nested under the session they came from, live while pi writes them.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { SessionRepository, resolvePath } from '../../core/session/repository.js';
import type { SessionInfo } from '../../core/listing/sessionInfo.js';
import { arrangeSessions, relativeAge, type ListNode, type SortMode } from '../../core/listing/sessionList.js';
import { SessionTextIndex, type SearchText } from '../../core/listing/sessionText.js';
import { DirWatcher } from './dirWatcher.js';
import { RowTotals } from './rowTotals.js';
import { SessionNames } from './sessionNames.js';
import { log } from '../platform/log.js';

export type ViewNode =
  | { kind: 'group'; key: string; label: string; description?: string; cwd: string; sessions: ListNode[] }
  | { kind: 'session'; node: ListNode; group: string };

/** What the view is given (activate wires it once). */
export interface SessionsViewDeps {
  /** The repository of pi's layout (a new one when piTree.sessionDir changes: repoChanged()). */
  repo(): SessionRepository;
  /** Called with the path of every session file that changed on disk. */
  onFileChanged(path: string): void;
  /** Whether another writer appended to a file a moment ago (sessions/liveness.ts). */
  liveness: { observe(path: string, size: number, mtimeMs: number): boolean };
  /** The pid of a pi with the bridge running the session. */
  connectedPi(path: string): number | undefined;
  /** Where the kinds of the forks and clones pi-tree made are kept across restarts. */
  namesStore: vscode.Memento;
}

export interface SessionsViewState {
  scope: 'folder' | 'all';
  sort: SortMode;
  filter: string;
  liveWindowSeconds: number;
}

/** What a click on a session row runs (registered in commands/sessionCommands.ts, not in the palette). */
export const ROW_OPEN_COMMAND = 'piTree.openTreeFromRow';

/** How long a listing waits for new forks to be told from clones before it shows them (then it redraws). */
const NAMES_WAIT_MS = 500;

export class SessionsView implements vscode.TreeDataProvider<ViewNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<ViewNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private groups: ViewNode[] = [];
  private flat: ViewNode[] | undefined;
  private byPath = new Map<string, SessionInfo>();
  private skipped = new Map<string, string>();
  private readonly watcher: DirWatcher;
  /** Every session's message text for filters, bounded and read incrementally (core/sessionText.ts). */
  private readonly texts = new SessionTextIndex();
  /** The models, tokens and cost of each row's tooltip. */
  private readonly totals = new RowTotals();
  private refreshTimer: NodeJS.Timeout | undefined;
  private loading: Promise<void> | undefined;
  private readonly ageTimer: NodeJS.Timeout;
  /** VS Code's view of this provider (attach()). */
  private view: vscode.TreeView<ViewNode> | undefined;
  /** What each session is called (forks and clones told apart): the sidebar's rows, and the tabs and links asking here. */
  readonly names = new SessionNames();

  constructor(
    private readonly deps: SessionsViewDeps,
    public state: SessionsViewState,
  ) {
    this.names.useStore(deps.namesStore);
    this.watcher = new DirWatcher(
      (p) => {
        deps.onFileChanged(p);
        this.scheduleRefresh();
      },
      () => this.scheduleRefresh(),
      { nested: true },
    );
    this.ageTimer = setInterval(() => this.emitter.fire(undefined), 30_000);
    this.ageTimer.unref?.();
  }

  dispose(): void {
    this.watcher.dispose();
    clearInterval(this.ageTimer);
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.emitter.dispose();
  }

  get sessions(): SessionInfo[] {
    return [...this.byPath.values()];
  }

  info(path: string): SessionInfo | undefined {
    return this.byPath.get(path);
  }

  scheduleRefresh(delay = 150): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => void this.refresh(), delay);
  }

  /** Re-reads the lists (cheap: file infos are cached by size and mtime). */
  refresh(): Promise<void> {
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private folders(): { key: string; label: string; cwd: string }[] {
    return (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => ({ key: f.uri.fsPath, label: f.name, cwd: f.uri.fsPath }));
  }

  private async load(): Promise<void> {
    const t0 = performance.now();
    // A filter searches every message, as pi's /resume does: the texts are read (once, then only what
    // was appended) before the lists are arranged.
    const texts = new Map<string, SearchText>();
    const { all, arrangeInto, skipped } = await this.list();
    if (this.state.filter.trim()) await this.readTexts([...all.keys()], texts);
    // Forks and clones are told apart (each file once, ever); a first listing does not wait long for it.
    const named = this.names.update([...all.values()]).catch(() => false);
    const late = await Promise.race([
      named.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), NAMES_WAIT_MS)),
    ]);
    if (late) void named.then((changed) => changed && this.emitter.fire(undefined));
    const groups: ViewNode[] = [];
    arrangeInto(groups, (list) =>
      arrangeSessions(list, this.state.sort, this.state.filter, undefined, (i) => texts.get(i.path)),
    );
    for (const [file, reason] of skipped)
      if (this.skipped.get(file) !== reason) log().warn(`not listed: ${file}: ${reason}`);
    this.skipped = skipped;
    this.byPath = all;
    this.groups = groups;
    this.flat =
      this.state.scope === 'folder' && groups.length === 1
        ? (groups[0] as Extract<ViewNode, { kind: 'group' }>).sessions.map((node) => ({
            kind: 'session' as const,
            node,
            group: groups[0].kind === 'group' ? groups[0].key : '',
          }))
        : undefined;
    this.showListed(groups, all.size, skipped.size);
    log().debug(`sessions listed: ${all.size} in ${(performance.now() - t0).toFixed(0)} ms`);
    this.emitter.fire(undefined);
  }

  /**
   * The sessions of the scope (every folder's, or the workspace folders'), the files that could not be
   * listed, and how to make the view's groups once the arrangement (sort, filter) is known.
   */
  private async list(): Promise<{
    all: Map<string, SessionInfo>;
    arrangeInto: (groups: ViewNode[], arrange: (list: SessionInfo[]) => ListNode[]) => void;
    skipped: Map<string, string>;
  }> {
    const all = new Map<string, SessionInfo>();
    const make: ((groups: ViewNode[], arrange: (list: SessionInfo[]) => ListNode[]) => void)[] = [];
    // Files that are not sessions pi-tree can list (a FIFO named *.jsonl, an unreadable file): logged once each.
    const skipped = new Map<string, string>();
    const onSkip = (file: string, reason: string) => skipped.set(file, reason);
    // Rows of files the watcher saw no change of since they were last checked are used without a stat.
    const unchanged = (file: string, checkedAt: number) => this.watcher.unchanged(file, checkedAt);
    if (this.state.scope === 'all') {
      const list = await this.repo.listAll({ onSkip, unchanged });
      const byCwd = new Map<string, SessionInfo[]>();
      for (const i of list) {
        all.set(i.path, i);
        const k = i.cwd || '(unknown folder)';
        const group = byCwd.get(k);
        if (group) group.push(i);
        else byCwd.set(k, [i]);
      }
      for (const [cwd, infos] of byCwd) {
        make.push((groups, arrange) => {
          const sessions = arrange(infos);
          if (sessions.length)
            groups.push({ kind: 'group', key: cwd, label: basename(cwd) || cwd, description: cwd, cwd, sessions });
        });
      }
      this.watcher.setDirs([this.repo.customDir ?? this.repo.sessionsRoot]);
    } else {
      for (const f of this.folders()) {
        const list = await this.repo.list(f.cwd, { onSkip, unchanged });
        for (const i of list) all.set(i.path, i);
        make.push((groups, arrange) =>
          groups.push({
            kind: 'group',
            key: f.key,
            label: f.label,
            description: this.repo.dirFor(f.cwd),
            cwd: f.cwd,
            sessions: arrange(list),
          }),
        );
      }
      this.watcher.setDirs(this.folders().map((f) => this.repo.dirFor(f.cwd)));
    }
    return { all, skipped, arrangeInto: (groups, arrange) => make.forEach((m) => m(groups, arrange)) };
  }

  /** The view's context keys, its description and its message for what was listed. */
  private showListed(groups: ViewNode[], listed: number, skippedCount: number): void {
    void vscode.commands.executeCommand('setContext', 'piTree.empty', listed === 0);
    void vscode.commands.executeCommand('setContext', 'piTree.hasFolder', this.folders().length > 0);
    const filter = this.state.filter.trim();
    void vscode.commands.executeCommand('setContext', 'piTree.filtered', !!filter);
    if (!this.view) return;
    const shown = groups.reduce((n, g) => n + (g.kind === 'group' ? countNodes(g.sessions) : 0), 0);
    this.view.description = filter ? `filter: ${filter}` : this.state.scope === 'all' ? 'all folders' : undefined;
    // The description is not shown while the container has only this view: the message says that a
    // filter hides sessions (and the title bar shows a filled filter icon and a Clear button then).
    const skippedNote = skippedCount
      ? ` ${skippedCount} file${skippedCount === 1 ? '' : 's'} in the sessions folder could not be listed (Show Log for why).`
      : '';
    this.view.message =
      listed === 0 && this.state.scope === 'folder' && this.folders().length
        ? `No pi sessions yet. pi keeps this folder's sessions in ${this.repo.dirFor(this.folders()[0].cwd)}`
        : filter
          ? `${shown === 0 ? 'No session matches' : `${shown} of ${listed} sessions match`} the filter “${filter}” (names and all message text).${skippedNote}`
          : skippedNote.trim() || undefined;
  }

  /** The message text of every listed session, read with the view's progress bar while any is new. */
  private async readTexts(paths: string[], out: Map<string, SearchText>): Promise<void> {
    const work = async () => {
      let next = 0;
      const worker = async () => {
        while (next < paths.length) {
          const p = paths[next++];
          try {
            out.set(p, await this.texts.get(p));
          } catch (e) {
            // Gone or unreadable since it was listed: it is matched on its first message.
            log().debug(`message text of ${p} not read: ${String(e)}`);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(4, paths.length) }, worker));
    };
    const fresh = paths.every((p) => this.texts.peek(p));
    if (fresh) return work();
    await vscode.window.withProgress(
      { location: { viewId: 'piTree.sessions' }, title: 'Searching the sessions' },
      work,
    );
  }

  getChildren(el?: ViewNode): ViewNode[] {
    if (!el) {
      return this.flat ?? this.groups;
    }
    if (el.kind === 'group') return el.sessions.map((node) => ({ kind: 'session', node, group: el.key }));
    return el.node.children.map((node) => ({ kind: 'session', node, group: el.group }));
  }

  getParent(el: ViewNode): ViewNode | undefined {
    if (el.kind === 'group') return undefined;
    const find = (nodes: ListNode[], parent: ViewNode | undefined): ViewNode | undefined => {
      for (const n of nodes) {
        if (n === el.node) return parent;
        const r = find(n.children, { kind: 'session', node: n, group: el.group });
        if (r) return r;
      }
      return undefined;
    };
    for (const g of this.groups)
      if (g.kind === 'group') {
        const r = find(g.sessions, this.flat ? undefined : g);
        if (r || g.sessions.includes(el.node)) return r;
      }
    return undefined;
  }

  /** Redraws the rows (a pi connected or left). */
  redraw(): void {
    this.emitter.fire(undefined);
  }

  /** Appended to a moment ago by someone else than pi-tree (pi, most likely); never a file that merely appeared. */
  isLive(info: SessionInfo): boolean {
    return this.deps.liveness.observe(info.path, info.size, info.mtimeMs);
  }

  getTreeItem(el: ViewNode): vscode.TreeItem {
    if (el.kind === 'group') {
      const item = new vscode.TreeItem(el.label, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `group:${el.key}`;
      item.description = `${countNodes(el.sessions)}`;
      item.tooltip = el.description;
      item.iconPath = new vscode.ThemeIcon('folder');
      item.contextValue = 'piGroup';
      return item;
    }
    const i = el.node.info;
    // A fork that still carries its source's name or first message reads "… (fork 2 · 10:20)" (core/listing/sessionTitle.ts).
    const title = this.names.title(i);
    const item = new vscode.TreeItem(
      title,
      el.node.children.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `session:${i.path}`;
    // A pi with the bridge is known for sure; without one, "live" is a guess from the file's age.
    const pid = this.deps.connectedPi(i.path);
    const live = pid === undefined && this.isLive(i);
    item.description = `${relativeAge(i.modified)} · ${i.messageCount} msg${i.messageCount === 1 ? '' : 's'}${pid !== undefined ? ' · pi connected' : live ? ' · live' : ''}`;
    item.iconPath = new vscode.ThemeIcon(
      pid !== undefined
        ? 'plug'
        : live
          ? 'pulse'
          : i.parentSessionPath
            ? 'repo-forked'
            : i.name
              ? 'bookmark'
              : 'comment-discussion',
    );
    item.contextValue = pid !== undefined ? 'piSession.connected' : live ? 'piSession.live' : 'piSession';
    // A click shows the tree and leaves the keyboard here; a double click or Enter takes it (sessionCommands.ts).
    item.command = { command: ROW_OPEN_COMMAND, title: 'Open Session Tree', arguments: [el] };
    item.accessibilityInformation = {
      label: `${title}, ${item.description as string}${i.parentSessionPath ? `, ${this.names.place(i.path)?.kind ?? 'fork'}` : ''}`,
    };
    return item;
  }

  async resolveTreeItem(
    item: vscode.TreeItem,
    el: ViewNode,
    token: vscode.CancellationToken,
  ): Promise<vscode.TreeItem> {
    if (el.kind !== 'session') return item;
    const i = el.node.info;
    const md = new vscode.MarkdownString(undefined, true);
    md.supportHtml = false;
    md.isTrusted = false;
    md.appendText(this.names.title(i, 200));
    md.appendMarkdown('\n\n');
    const pid = this.deps.connectedPi(i.path);
    if (pid !== undefined)
      md.appendText(`pi ${pid} runs this session with the pi-tree bridge: changes go through it.\n`);
    md.appendText(
      `Created ${i.created.toLocaleString()}\nModified ${i.modified.toLocaleString()}\n${i.messageCount} messages\n`,
    );
    const totals = await this.totals.of(i, token);
    if (totals) md.appendText(totals);
    md.appendText(`${i.path}`);
    item.tooltip = md;
    return item;
  }

  setState(patch: Partial<SessionsViewState>): void {
    this.state = { ...this.state, ...patch };
    void vscode.commands.executeCommand('setContext', 'piTree.scope', this.state.scope);
    void this.refresh();
  }

  /** The view VS Code made of this provider: its message and description follow the state. */
  attach(view: vscode.TreeView<ViewNode>): void {
    this.view = view;
  }

  private get repo(): SessionRepository {
    return this.deps.repo();
  }

  /**
   * Lists `file` (a fork or clone just made) and selects its row. Listed first: a listing already under
   * way may have started before the file existed. VS Code's reveal() waits for its own pending refresh
   * and asks getParent() for the row's place, so nothing here waits on a clock.
   */
  async reveal(file: string): Promise<boolean> {
    if (!this.view) return false;
    for (let attempt = 0; attempt < 3; attempt++) {
      await this.refresh();
      const node = this.nodeFor(file);
      if (!node) continue;
      try {
        await this.view.reveal(node, { select: true, focus: false, expand: true });
        return true;
      } catch (e) {
        log().debug(`reveal ${file}: ${String(e)}`);
      }
    }
    return false;
  }

  /** The title of a listed session (the row's), cut to `max`; undefined when it is not listed. */
  titleOf(path: string, max = 80): string | undefined {
    const i = this.byPath.get(path);
    return i && this.names.title(i, max);
  }

  /** The view node of a session file, for reveal(). */
  nodeFor(path: string): ViewNode | undefined {
    const want = resolvePath(path);
    const walk = (nodes: ListNode[], group: string): ViewNode | undefined => {
      for (const n of nodes) {
        if (resolvePath(n.info.path) === want) return { kind: 'session', node: n, group };
        const r = walk(n.children, group);
        if (r) return r;
      }
      return undefined;
    };
    for (const g of this.groups)
      if (g.kind === 'group') {
        const r = walk(g.sessions, g.key);
        if (r) return r;
      }
    return undefined;
  }
}

function countNodes(nodes: ListNode[]): number {
  let n = 0;
  const stack = [...nodes];
  while (stack.length) {
    const x = stack.pop()!;
    n++;
    for (const c of x.children) stack.push(c); // not spread: a session can have any number of forks
  }
  return n;
}
