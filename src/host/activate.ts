// Activation: makes the host's services once and registers the views, panels, commands and CodeLens.
// Each concern lives in the module named for it; this file only wires them together.
import { statSync } from 'node:fs';
import * as vscode from 'vscode';
import { collectLeftovers } from '../core/session/leftovers.js';
import { SessionRepository } from '../core/session/repository.js';
import { SessionInfoCache } from '../core/listing/sessionInfo.js';
import { BridgeRegistry } from './bridge/bridgeRegistry.js';
import { refreshBridgeCopy } from '../core/bridge/piConnect.js';
import { PiGateway } from './bridge/piGateway.js';
import { findBridge, PiUnresponsiveError } from '../core/bridge/discovery.js';
import type { Host } from './commands/host.js';
import { registerNodeCommands } from './commands/nodeCommands.js';
import { registerPiConnectCommands } from './commands/piConnectCommands.js';
import { registerSessionCommands, UNTRUSTED } from './commands/sessionCommands.js';
import { registerViewCommands } from './commands/viewCommands.js';
import { createCodeViews } from './compare/codeViews.js';
import { registerCompareCommands } from './commands/compareCommands.js';
import { registerCodeCommands } from './commands/codeCommands.js';
import { createCheckpoints } from './checkpoints/checkpointsHost.js';
import { describeEntry } from './checkpoints/entryWords.js';
import { compareCode } from './checkpoints/compareCode.js';
import { SessionActions, type ActionDeps } from './panels/sessionActions.js';
import { TreePanelManager } from './panels/treePanelManager.js';
import { SessionCodeLens } from './platform/codeLens.js';
import { readConfig } from './platform/config.js';
import { confirmLiveWrite } from './platform/liveGuard.js';
import { log } from './platform/log.js';
import { WorkspaceState } from './platform/workspaceState.js';
import { piToStart, startPi, type BeforePi } from './platform/piTerminal.js';
import { Liveness } from './sessions/liveness.js';
import { SessionStore } from './sessions/sessionStore.js';
import { SessionsView } from './sessions/sessionsView.js';
import { createSummaryService } from './summaries/summaryService.js';

export function activateHost(context: vscode.ExtensionContext): Host {
  const out = log();
  context.subscriptions.push(out);
  const cfg = readConfig();
  const state = new WorkspaceState(context.workspaceState);
  const store = new SessionStore();
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
  let repo = makeRepo();
  // What pi-tree runs killed mid-write left (a fork's temp copy in a session folder, a headless pi's
  // folder in the temp dir), collected once per start, in the background (core/leftovers.ts).
  void repo
    .sessionFolders()
    .then((folders) => collectLeftovers(folders))
    .then(
      (removed) => removed.length && out.info(`removed ${removed.length} leftover(s) of interrupted pi-tree writes: ${removed.join(', ')}`),
      (e) => out.warn(`could not collect leftovers of interrupted writes: ${String(e)}`),
    );

  const applyTrust = () => {
    store.setWriteBlocked(vscode.workspace.isTrusted ? undefined : UNTRUSTED);
    void vscode.commands.executeCommand('setContext', 'piTree.readOnly', !vscode.workspace.isTrusted);
  };
  applyTrust();
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(applyTrust));

  const view = new SessionsView(repo, {
    scope: state.get('scope', cfg.scope),
    sort: state.get('sort', cfg.sort),
    filter: state.get('filter', cfg.filter),
    liveWindowSeconds: cfg.liveWindowSeconds,
  });
  view.names.useStore(context.globalState);
  const treeView = vscode.window.createTreeView('piTree.sessions', { treeDataProvider: view, showCollapseAll: true });
  view.view = treeView;
  context.subscriptions.push(view, treeView);
  void vscode.commands.executeCommand('setContext', 'piTree.scope', view.state.scope);
  view.onFileChanged = (p) => void store.refresh(p);
  const liveness = new Liveness({ ownWrite: (p, size) => store.lastWriteWasOurs(p, size), windowMs: () => view.state.liveWindowSeconds * 1000 });
  view.liveness = liveness;
  void view.refresh();

  // Running pis with the bridge: the sidebar marks their sessions, the trees connect, actions route.
  const bridges = new BridgeRegistry();
  context.subscriptions.push(
    bridges,
    bridges.onDidChange(() => {
      out.info(
        `running pis with the bridge: ${
          bridges
            .all()
            .map((b) => `${b.record.pid} (${b.record.sessionFile})`)
            .join(', ') || 'none'
        }`,
      );
      view.redraw();
    }),
  );
  view.connectedPi = (p) => bridges.get(p)?.record.pid;
  const bridgeFile = context.asAbsolutePath('dist/pi-bridge.js');
  try {
    if (refreshBridgeCopy(bridgeFile)) out.info("updated pi-tree's bridge in pi's agent folder to this version");
  } catch (e) {
    out.warn(`could not update the connected bridge: ${String(e)}`);
  }
  const gateway = new PiGateway({
    // Asked afresh per action (a pi that started or quit a moment ago counts), in the registry's places.
    find: (file) => findBridge(file, { dirs: bridges.dirs }),
    ui: {
      askWait: async (message) => (await vscode.window.showWarningMessage(message, { modal: true }, 'Wait for pi')) === 'Wait for pi',
      waiting: (message, work, cancel) =>
        Promise.resolve(
          vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: message, cancellable: !!cancel }, (_progress, token) => {
            token.onCancellationRequested(() => cancel?.());
            return work;
          }),
        ),
    },
    log: (m) => out.info(m),
  });

  // An untrusted workspace is read-only: no change, even through pi (SessionActions checks readOnly).
  const isLive = (file: string) => !bridges.get(file) && liveness.isLive(file);
  // The pi to start on `file` and the folder to start it in (undefined: none, the user was told why).
  const piFor = async (file: string) => {
    // The header's cwd from a tree that has the session open, else from the listing's cache (a stat
    // for a listed session; never the whole file indexed for one field)
    const held = store.get(file);
    const cwd = held ? await held.then((s) => String(s.header.cwd ?? '')).catch(() => undefined) : ((await cache.get(file).catch(() => null))?.cwd ?? undefined);
    const pi = await piToStart(file, cwd, readConfig().piCommand);
    return pi && { pi, cwd };
  };
  // `before` (a move of the leaf) runs only once pi is known to go on: without pi the session stays as it was.
  const runPi = async (file: string, text?: string, before?: BeforePi) => {
    let running;
    try {
      running = await findBridge(file, { dirs: bridges.dirs });
    } catch (e) {
      // A pi runs it but does not answer (stopped with Ctrl+Z): a second pi on the same file is not the answer.
      if (!(e instanceof PiUnresponsiveError)) throw e;
      void vscode.window.showWarningMessage(`${e.message}. Resume it (fg in its terminal) and continue there.`);
      return;
    }
    const via = running ? { running } : await piFor(file);
    if (!via) return;
    if (before) {
      const go = await before();
      if (!go) return;
      text = go.text;
    }
    if ('running' in via) {
      if (text) await vscode.env.clipboard.writeText(text);
      void vscode.window.showInformationMessage(
        `pi ${via.running.record.pid} already runs this session (with the pi-tree bridge): its next prompt continues from the tree's leaf.${text ? ' The message text is on the clipboard.' : ''}`,
      );
      return;
    }
    await startPi(via.pi, file, via.cwd, text, bridgeFile);
  };
  // Where the user acted last: a sidebar row or a tree. Commands without an argument (F2, the palette)
  // go there, so a tree in front does not take a rename meant for the selected row.
  let actedIn: 'sidebar' | 'tree' = 'tree';
  context.subscriptions.push(treeView.onDidChangeSelection(() => (actedIn = 'sidebar')));
  // A new session (fork, clone) is listed and selected in the sidebar.
  const revealSession = async (file: string) => {
    // Listed first (a listing already under way may have started before the file existed), then
    // revealed once VS Code has fetched the new rows (it cannot reveal a row it has not asked for).
    for (let attempt = 0; attempt < 3; attempt++) {
      const fetched = view.whenFetched();
      await view.refresh();
      const node = view.nodeFor(file);
      if (!node) continue;
      await Promise.race([fetched, new Promise((r) => setTimeout(r, 2000))]);
      try {
        await treeView.reveal(node, { select: true, focus: false, expand: true });
        return;
      } catch (e) {
        out.debug(`reveal ${file}: ${String(e)}`);
      }
    }
  };
  const actionDeps: Omit<ActionDeps, 'openTree'> = {
    repo: () => repo,
    revealSession: (file) => void revealSession(file),
    confirmLiveWrite: (file, action, canFork) => confirmLiveWrite(isLive(file), action, canFork),
    gateway,
    noteKind: (file, kind) => view.names.note(file, kind),
  };
  const describe = (file: string) => {
    const i = view.info(file);
    return i ? (i.name ?? (i.messageCount ? i.firstMessage.replace(/\s+/g, ' ').trim() : undefined)) : undefined;
  };
  // Diffs, hidden marks, family links and compare views (#15); trees open through the panel manager.
  const codeViews = createCodeViews({
    context,
    acquire: (file) => store.acquire(file),
    cache: () => repo.cache,
    scope: () => repo,
    known: () => view.sessions,
    // (the compare view's titles: the sidebar's, by the one rule of core/listing/sessionTitle.ts)
    describe: (file) => view.titleOf(file),
    names: view.names,
    openTree: async (file, select) => void (await panels.open(file, select)),
    code: compareCode(() => code),
  });
  context.subscriptions.push(
    codeViews,
    view.onDidChangeTreeData(() => {
      codeViews.family.changed();
      // A new fork or clone can change what its siblings are called ("fork" → "fork 1").
      panels.retitle();
    }),
  );
  // Checkpoints (#32): the code at a node, restores through pi or straight to the files, undo.
  const code = createCheckpoints(context, { agentDir: () => repo.agentDir, gateway, log: (m) => out.info(m), describe: describeEntry });
  const panels = new TreePanelManager(context, {
    extensionUri: context.extensionUri,
    code,
    agentDir: () => repo.agentDir,
    store,
    ...actionDeps,
    continueInPi: runPi,
    summaries: createSummaryService(context, { bridgeFile, piCommand: () => readConfig().piCommand, discoveryDirs: bridges.dirs }),
    bridges,
    isLive,
    describe,
    listedTitle: (file, max) => view.titleOf(file, max),
    placeOf: (file) => view.names.place(file),
    codeViews,
    acted: () => (actedIn = 'tree'),
  });
  context.subscriptions.push(panels);

  const host: Host = {
    context,
    store,
    repo: () => repo,
    view,
    treeView,
    panels,
    isLive,
    continueInPi: runPi,
    bridges,
    bridgeFile,
    actionsFor: (session, file) => new SessionActions(session, file, { ...actionDeps, openTree: async (f, o) => void (await panels.open(f, undefined, o)) }),
    actedIn: () => actedIn,
    codeViews,
    code,
  };
  registerViewCommands(host);
  registerSessionCommands(host);
  registerNodeCommands(host);
  registerPiConnectCommands(host);
  registerCompareCommands(host);
  registerCodeCommands(host);

  const lens = new SessionCodeLens(() => readConfig().codeLens);
  context.subscriptions.push(
    vscode.languages.registerCodeLensProvider([{ scheme: 'file', pattern: '**/*.jsonl' }], lens),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('piTree')) return;
      if (e.affectsConfiguration('piTree.sessionDir')) {
        repo = makeRepo();
        view.setRepo(repo);
      }
      view.setState({ liveWindowSeconds: readConfig().liveWindowSeconds });
      lens.refresh();
      // A summary model set up a moment ago makes "Summarize" available in the open trees.
      panels.refreshMeta();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => view.scheduleRefresh(0)),
  );
  out.info(`pi-tree activated; sessions root ${repo.sessionsRoot}${repo.customDir ? `, custom dir ${repo.customDir}` : ''}`);
  return host;
}
