// The Sessions sidebar as activation makes it: the view over pi's layout with the state it was left in,
// the liveness guess for sessions without a connected pi, and VS Code's tree view of it.
import * as vscode from 'vscode';
import { piMayRun } from '../../core/platform/piProcesses.js';
import type { BridgeRegistry } from '../runningPi/bridgeRegistry.js';
import { readConfig } from '../platform/config.js';
import { WorkspaceState } from '../platform/workspaceState.js';
import { Liveness } from './liveness.js';
import type { SessionFiles } from './sessionFiles.js';
import { SessionsView, type ViewNode } from './sessionsView.js';

export interface Sidebar {
  view: SessionsView;
  treeView: vscode.TreeView<ViewNode>;
  /** Another writer (pi without the bridge) appended to `file` a moment ago. */
  isLive(file: string): boolean;
}

/** `bridges`: the registry of running pis, made after the sidebar (which VS Code is waiting for): none yet, none known. */
export function createSidebar(
  context: vscode.ExtensionContext,
  files: SessionFiles,
  bridges: () => BridgeRegistry | undefined,
): Sidebar {
  const cfg = readConfig();
  const state = new WorkspaceState(context.workspaceState);
  const liveness = new Liveness({
    ownWrite: (p, size) => files.store.lastWriteWasOurs(p, size),
    windowMs: (): number => view.state.liveWindowSeconds * 1000,
  });
  const view: SessionsView = new SessionsView(
    {
      repo: files.repo,
      onFileChanged: (p) => void files.store.refresh(p),
      liveness,
      connectedPi: (p) => bridges()?.get(p)?.record.pid,
      namesStore: context.globalState,
    },
    {
      scope: state.get('scope', cfg.scope),
      sort: state.get('sort', cfg.sort),
      filter: state.get('filter', cfg.filter),
      liveWindowSeconds: cfg.liveWindowSeconds,
    },
  );
  const treeView = vscode.window.createTreeView('piTree.sessions', { treeDataProvider: view, showCollapseAll: true });
  view.attach(treeView);
  context.subscriptions.push(view, treeView);
  void vscode.commands.executeCommand('setContext', 'piTree.scope', view.state.scope);
  void view.refresh();
  // A pi with the bridge is known for sure; only without one is "live" guessed from the file's growth,
  // and only while a pi may run at all (the process table says; unknown off Linux).
  return { view, treeView, isLive: (file) => !bridges()?.get(file) && liveness.isLive(file) && piMayRun() !== false };
}
