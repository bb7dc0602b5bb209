// Activation: the sessions view, the tree panels and custom editor, commands, CodeLens, trust.
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { SessionRepository, resolvePath } from '../core/repository.js';
import { Session } from '../core/session.js';
import { SessionInfoCache } from '../core/sessionInfo.js';
import { readConfig } from './config.js';
import { confirmLiveWrite } from './liveGuard.js';
import { log, showError } from './log.js';
import { continueInPi } from './piTerminal.js';
import { SessionCodeLens } from './codeLens.js';
import { SessionStore } from './sessionStore.js';
import { SessionsView, type ViewNode } from './sessionsView.js';
import { createSummaryService } from './summaries.js';
import { EDITOR_VIEW_TYPE, PANEL_VIEW_TYPE, TreeController, type TreeDeps } from './treePanel.js';

const UNTRUSTED = 'the workspace is not trusted (pi-tree only reads sessions in Restricted Mode)';

export function activateHost(context: vscode.ExtensionContext): { view: SessionsView; controllers: Map<string, TreeController> } {
  const out = log();
  context.subscriptions.push(out);
  const cfg = readConfig();
  const cache = new SessionInfoCache();
  // Files pi-tree creates (fork, clone, new) are its own writes: they must not look "live".
  const onCreated = (file: string) => {
    try {
      store.noteOwnFile(file, statSync(file).size);
    } catch {
      // gone already
    }
  };
  const makeRepo = () => new SessionRepository({ sessionDir: readConfig().sessionDir || undefined, cache, onCreated });
  const store = new SessionStore();
  let repo: SessionRepository = makeRepo();
  const applyTrust = () => {
    store.setWriteBlocked(vscode.workspace.isTrusted ? undefined : UNTRUSTED);
    void vscode.commands.executeCommand('setContext', 'piTree.readOnly', !vscode.workspace.isTrusted);
  };
  applyTrust();
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(applyTrust));

  const view = new SessionsView(repo, {
    scope: context.workspaceState.get('piTree.scope', cfg.scope),
    sort: context.workspaceState.get('piTree.sort', cfg.sort),
    filter: context.workspaceState.get('piTree.filter', cfg.filter),
    liveWindowSeconds: cfg.liveWindowSeconds,
  });
  const treeView = vscode.window.createTreeView('piTree.sessions', { treeDataProvider: view, showCollapseAll: true });
  view.view = treeView;
  context.subscriptions.push(view, treeView);
  void vscode.commands.executeCommand('setContext', 'piTree.scope', view.state.scope);
  view.onFileChanged = (p) => void store.refresh(p);
  view.ownWrite = (p, size) => store.lastWriteWasOurs(p, size);
  void view.refresh();

  // ── tree panels ──
  const controllers = new Map<string, TreeController>();
  const restoreMap = context.workspaceState.get<Record<string, string>>('piTree.panels', {});
  const isLive = (file: string) => {
    let stat;
    try {
      stat = statSync(file);
    } catch {
      return false;
    }
    // Fresh facts, not the list's cache: a write pi made a moment ago counts.
    return Date.now() - stat.mtimeMs < view.state.liveWindowSeconds * 1000 && !store.lastWriteWasOurs(file, stat.size);
  };
  const summaries = createSummaryService(context);
  const deps: TreeDeps = {
    extensionUri: context.extensionUri,
    store,
    repo: () => repo,
    openTree: (file) => openTree(file),
    confirmLiveWrite: (file, action) => confirmLiveWrite(isLive(file), action),
    continueInPi: async (file, text) => {
      const s = await Session.open(file).catch(() => undefined);
      await continueInPi(file, s ? String(s.header.cwd ?? '') : undefined, readConfig().piCommand, text);
    },
    summaries,
    isLive,
    describe: (file) => {
      const i = view.info(file);
      return i ? (i.name ?? (i.messageCount ? i.firstMessage.replace(/\s+/g, ' ').trim() : undefined)) : undefined;
    },
  };
  const track = (c: TreeController) => {
    const key = c.panel.viewType === EDITOR_VIEW_TYPE ? `editor:${c.file}` : c.file;
    controllers.set(key, c);
    restoreMap[c.restoreToken] = c.file;
    void context.workspaceState.update('piTree.panels', restoreMap);
    c.onDidDispose = () => {
      if (controllers.get(key) === c) controllers.delete(key);
      delete restoreMap[c.restoreToken];
      void context.workspaceState.update('piTree.panels', restoreMap);
    };
    return c;
  };
  async function openTree(file: string, select?: string): Promise<void> {
    const path = resolvePath(file);
    const existing = controllers.get(path);
    if (existing) {
      existing.panel.reveal();
      if (select) existing.invoke('select', select);
      return;
    }
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, basename(path), vscode.ViewColumn.Active, { retainContextWhenHidden: false, enableFindWidget: false });
    const c = track(new TreeController(panel, path, deps));
    if (select) setTimeout(() => c.invoke('select', select), 500);
  }
  const activeController = (): TreeController | undefined => [...controllers.values()].find((c) => c.panel.active) ?? [...controllers.values()].find((c) => c.panel.visible);

  context.subscriptions.push(
    vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
      async deserializeWebviewPanel(panel, state: unknown) {
        const token = (state as { restoreToken?: unknown } | undefined)?.restoreToken;
        const file = typeof token === 'string' ? restoreMap[token] : undefined;
        if (!file) {
          panel.dispose();
          return;
        }
        delete restoreMap[token as string];
        track(new TreeController(panel, file, deps));
      },
    }),
    vscode.window.registerCustomEditorProvider(
      EDITOR_VIEW_TYPE,
      {
        openCustomDocument: (uri) => ({ uri, dispose: () => {} }),
        resolveCustomEditor: async (doc, panel) => {
          track(new TreeController(panel, doc.uri.fsPath, deps));
        },
      } satisfies vscode.CustomReadonlyEditorProvider,
      { webviewOptions: { retainContextWhenHidden: false }, supportsMultipleEditorsPerDocument: true },
    ),
  );

  // ── resolving "which session" for a command ──
  async function targetFile(arg: unknown): Promise<string | undefined> {
    if (arg && typeof arg === 'object' && 'kind' in arg && (arg as ViewNode).kind === 'session') return (arg as Extract<ViewNode, { kind: 'session' }>).node.info.path;
    if (arg instanceof vscode.Uri) return arg.fsPath;
    const sel = treeView.selection.find((n) => n.kind === 'session');
    if (sel && sel.kind === 'session' && treeView.visible && !activeController()) return sel.node.info.path;
    const c = activeController();
    if (c) return c.file;
    const ed = vscode.window.activeTextEditor?.document;
    if (ed?.uri.scheme === 'file' && ed.fileName.endsWith('.jsonl')) return ed.fileName;
    const items = view.sessions.map((i) => ({ label: i.name ?? i.firstMessage.slice(0, 80), description: `${i.messageCount} msgs`, detail: i.path, path: i.path }));
    if (!items.length) {
      void vscode.window.showInformationMessage('No pi sessions to choose from in this folder.');
      return undefined;
    }
    return (await vscode.window.showQuickPick(items, { placeHolder: 'Choose a pi session', matchOnDetail: true }))?.path;
  }
  const withSession = async <T>(file: string, fn: (s: Session) => Promise<T>): Promise<T> => {
    const { session, release } = await store.acquire(file);
    try {
      return await fn(session);
    } finally {
      release();
    }
  };
  const command = (id: string, fn: (...args: unknown[]) => unknown) =>
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await fn(...args);
        } catch (e) {
          await showError(`pi-tree: ${id.replace('piTree.', '')} failed`, e);
        }
      }),
    );
  const ensureWritable = (s: Session) => {
    if (s.readOnly) throw new Error(`This session is read-only: ${s.readOnly}.`);
  };

  command('piTree.refresh', () => view.refresh());
  command('piTree.showAll', () => {
    view.setState({ scope: 'all' });
    void context.workspaceState.update('piTree.scope', 'all');
  });
  command('piTree.showFolder', () => {
    view.setState({ scope: 'folder' });
    void context.workspaceState.update('piTree.scope', 'folder');
  });
  command('piTree.toggleScope', () => vscode.commands.executeCommand(view.state.scope === 'all' ? 'piTree.showFolder' : 'piTree.showAll'));
  command('piTree.sort', async () => {
    const pick = await vscode.window.showQuickPick(
      [
        { label: 'Threaded', description: 'forks under the session they came from', value: 'threaded' as const },
        { label: 'Recent', description: 'newest activity first', value: 'recent' as const },
        { label: 'Name', description: 'alphabetical by name or first message', value: 'name' as const },
      ].map((x) => ({ ...x, picked: x.value === view.state.sort })),
      { placeHolder: 'Sort sessions by' },
    );
    if (pick) {
      view.setState({ sort: pick.value });
      void context.workspaceState.update('piTree.sort', pick.value);
    }
  });
  command('piTree.filter', async () => {
    const q = await vscode.window.showInputBox({
      prompt: 'Filter sessions: words (fuzzy), "exact phrase", or re:regex. Matches name, first message, id and folder.',
      value: view.state.filter,
      placeHolder: 'e.g. refactor "session tree" or re:^fix',
    });
    if (q === undefined) return;
    view.setState({ filter: q });
    void context.workspaceState.update('piTree.filter', q);
  });
  command('piTree.clearFilter', () => {
    view.setState({ filter: '' });
    void context.workspaceState.update('piTree.filter', '');
  });
  command('piTree.openTree', async (arg) => {
    const file = await targetFile(arg);
    if (file) await openTree(file);
  });
  command('piTree.rename', async (arg) => {
    const file = await targetFile(arg);
    if (!file) return;
    await withSession(file, async (s) => {
      ensureWritable(s);
      const name = await vscode.window.showInputBox({ prompt: 'Session name (empty clears it)', value: s.name ?? '' });
      if (name === undefined) return;
      const ok = await confirmLiveWrite(isLive(file), 'rename it');
      if (ok !== true) return;
      await s.setName(name);
      view.scheduleRefresh(0);
    });
  });
  command('piTree.forkFromMessage', async (arg) => {
    const file = await targetFile(arg);
    if (!file) return;
    await withSession(file, async (s) => {
      const users = s.index.live().filter((r) => r.type === 'message' && r.role === 'user');
      const entries = await s.load(users);
      const items = users
        .map((r, i) => ({ r, e: entries[i] }))
        .filter((x) => x.e)
        .map(({ r, e }) => ({ label: oneLine(textOf(e!)), description: new Date(r.time).toLocaleString(), id: r.id }))
        .filter((x) => x.label.trim())
        .reverse();
      if (!items.length) return void vscode.window.showInformationMessage('This session has no user messages to fork from.');
      const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Fork from message (the new session starts just before it)', matchOnDescription: true });
      if (!pick) return;
      const { file: forked, text } = await repo.fork(s, pick.id);
      await vscode.env.clipboard.writeText(text);
      view.scheduleRefresh(0);
      await openTree(forked);
      void vscode.window.showInformationMessage(`Forked into ${basename(forked)}. The message text is on the clipboard.`, 'Continue in pi').then((p) => p && deps.continueInPi(forked, text));
    });
  });
  command('piTree.forkAt', async (uri, id) => {
    const file = uri instanceof vscode.Uri ? uri.fsPath : await targetFile(uri);
    if (!file || typeof id !== 'string') return;
    await withSession(file, async (s) => {
      const { file: forked } = await repo.fork(s, id);
      view.scheduleRefresh(0);
      await openTree(forked);
    });
  });
  command('piTree.showInTree', async (uri, id) => {
    const file = uri instanceof vscode.Uri ? uri.fsPath : await targetFile(uri);
    if (file) await openTree(file, typeof id === 'string' ? id : undefined);
  });
  command('piTree.clone', async (arg) => {
    const file = await targetFile(arg);
    if (!file) return;
    await withSession(file, async (s) => {
      const cloned = await repo.clone(s, s.leafId);
      view.scheduleRefresh(0);
      await openTree(cloned);
    });
  });
  command('piTree.delete', async (arg) => {
    const file = await targetFile(arg);
    if (!file) return;
    if (!vscode.workspace.isTrusted) throw new Error(UNTRUSTED);
    const info = view.info(file);
    const live = info && view.isLive(info) ? ' pi is writing it right now.' : '';
    const pick = await vscode.window.showWarningMessage(`Move the session "${info?.name ?? basename(file)}" to the trash?${live}`, { modal: true, detail: file }, 'Move to Trash');
    if (pick !== 'Move to Trash') return;
    try {
      await vscode.workspace.fs.delete(vscode.Uri.file(file), { useTrash: true });
    } catch (e) {
      // Remote/web hosts may not offer a trash: fall back to the freedesktop/macOS trash, never unlink.
      log().info(`workspace.fs trash failed (${String(e)}); using pi-tree's trash`);
      await repo.delete(file);
    }
    controllers.get(file)?.panel.dispose();
    repo.cache.forget(file);
    view.scheduleRefresh(0);
  });
  command('piTree.revealInExplorer', async (arg) => {
    const file = await targetFile(arg);
    if (file) await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(file));
  });
  command('piTree.copyPath', async (arg) => {
    const file = await targetFile(arg);
    if (file) await vscode.env.clipboard.writeText(file);
  });
  command('piTree.openAsText', async (arg) => {
    const file = await targetFile(arg);
    if (file) await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), 'default');
  });
  command('piTree.continueInPi', async (arg) => {
    const file = await targetFile(arg);
    if (file) await deps.continueInPi(file);
  });
  command('piTree.showLog', () => out.show());

  // ── native context menu of the tree webview (args come from data-vscode-context) ──
  const nodeCommand = (id: string, fn: (c: TreeController, entryId: string) => unknown) =>
    command(id, async (ctx) => {
      const c = activeController();
      const entryId = (ctx as { entryId?: unknown } | undefined)?.entryId ?? c?.selectedId;
      if (!c || typeof entryId !== 'string') return;
      return fn(c, entryId);
    });
  nodeCommand('piTree.node.moveHere', async (c, id) => {
    const r = await c.moveTo(id);
    if (r.editorText) {
      await vscode.env.clipboard.writeText(r.editorText);
      void vscode.window.showInformationMessage('Moved before this message; its text is on the clipboard for re-editing.');
    }
  });
  nodeCommand('piTree.node.moveWithSummary', (c, id) => c.invoke('summaryMove', id));
  nodeCommand('piTree.node.fork', (c, id) => c.fork(id));
  nodeCommand('piTree.node.clone', (c, id) => c.clone(id));
  nodeCommand('piTree.node.label', (c, id) => c.invoke('editLabel', id));
  nodeCommand('piTree.node.details', (c, id) => c.invoke('details', id));
  nodeCommand('piTree.node.copyText', async (c, id) => {
    await withSession(c.file, async (s) => {
      const e = await s.getEntry(id);
      const { copyText } = await import('../core/preview.js');
      const t = e ? copyText(e) : undefined;
      if (!t) throw new Error('This entry has no text to copy.');
      await vscode.env.clipboard.writeText(t);
    });
  });
  nodeCommand('piTree.node.continueInPi', async (c, id) => {
    const r = await c.moveTo(id);
    if (!r.cancelled) await deps.continueInPi(c.file, r.editorText);
  });
  for (const [cmd, action] of [
    ['piTree.tree.find', 'find'],
    ['piTree.tree.focusLeaf', 'focusLeaf'],
    ['piTree.tree.fit', 'fit'],
    ['piTree.tree.shortcuts', 'showShortcuts'],
  ] as const) {
    command(cmd, () => activeController()?.invoke(action));
  }

  // ── text editors of session files ──
  const lens = new SessionCodeLens(() => readConfig().codeLens);
  context.subscriptions.push(vscode.languages.registerCodeLensProvider([{ scheme: 'file', pattern: '**/*.jsonl' }], lens));

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('piTree')) return;
      const c = readConfig();
      if (e.affectsConfiguration('piTree.sessionDir')) {
        repo = makeRepo();
        view.setRepo(repo);
      }
      view.setState({ liveWindowSeconds: c.liveWindowSeconds });
      lens.refresh();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => view.scheduleRefresh(0)),
  );
  out.info(`pi-tree activated; sessions root ${repo.sessionsRoot}${repo.customDir ? `, custom dir ${repo.customDir}` : ''}`);
  return { view, controllers };
}

function textOf(e: { type: string; message?: unknown }): string {
  const m = e.message as { content?: unknown } | undefined;
  const c = m?.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.filter((b) => (b as { type?: string })?.type === 'text').map((b) => String((b as { text?: unknown }).text ?? '')).join(' ');
  return '';
}

function oneLine(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > 100 ? `${t.slice(0, 99)}…` : t;
}
