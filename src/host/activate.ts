// Activation: makes the host's services once and registers the views, panels, commands and CodeLens.
// Each concern lives in the module named for it; this file only wires them together.
import { statSync } from 'node:fs';
import * as vscode from 'vscode';
import { SessionRepository } from '../core/repository.js';
import { Session } from '../core/session.js';
import { SessionInfoCache } from '../core/sessionInfo.js';
import type { Host } from './commands/host.js';
import { registerNodeCommands } from './commands/nodeCommands.js';
import { registerSessionCommands, UNTRUSTED } from './commands/sessionCommands.js';
import { registerViewCommands } from './commands/viewCommands.js';
import { TreePanelManager } from './panels/treePanelManager.js';
import { SessionCodeLens } from './platform/codeLens.js';
import { readConfig } from './platform/config.js';
import { confirmLiveWrite } from './platform/liveGuard.js';
import { log } from './platform/log.js';
import { continueInPi } from './platform/piTerminal.js';
import { makeIsLive } from './sessions/liveness.js';
import { SessionStore } from './sessions/sessionStore.js';
import { SessionsView } from './sessions/sessionsView.js';
import { createSummaryService } from './summaries/summaryService.js';

export function activateHost(context: vscode.ExtensionContext): Host {
  const out = log();
  context.subscriptions.push(out);
  const cfg = readConfig();
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

  const isLive = makeIsLive(store, () => view.state.liveWindowSeconds);
  const runPi = async (file: string, text?: string) => {
    const s = await Session.open(file).catch(() => undefined);
    await continueInPi(file, s ? String(s.header.cwd ?? '') : undefined, readConfig().piCommand, text);
  };
  const panels = new TreePanelManager(context, {
    extensionUri: context.extensionUri,
    store,
    repo: () => repo,
    confirmLiveWrite: (file, action, canFork) => confirmLiveWrite(isLive(file), action, canFork),
    continueInPi: runPi,
    summaries: createSummaryService(context),
    isLive,
    describe: (file) => {
      const i = view.info(file);
      return i ? (i.name ?? (i.messageCount ? i.firstMessage.replace(/\s+/g, ' ').trim() : undefined)) : undefined;
    },
  });
  context.subscriptions.push(panels);

  const host: Host = { context, store, repo: () => repo, view, treeView, panels, isLive, continueInPi: runPi };
  registerViewCommands(host);
  registerSessionCommands(host);
  registerNodeCommands(host);

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
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => view.scheduleRefresh(0)),
  );
  out.info(`pi-tree activated; sessions root ${repo.sessionsRoot}${repo.customDir ? `, custom dir ${repo.customDir}` : ''}`);
  return host;
}
