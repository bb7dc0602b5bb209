// Activation: makes the host's services once and registers the views, panels, commands and CodeLens.
// Each concern lives in the module named for it; this file only wires them together.
import * as vscode from 'vscode';
import { createPiLink, type PiLink } from './runningPi/piLink.js';
import type { Host } from './commands/host.js';
import { registerNodeCommands } from './commands/nodeCommands.js';
import { registerPiConnectCommands } from './commands/piConnectCommands.js';
import { registerSessionCommands, UNTRUSTED } from './commands/sessionCommands.js';
import { registerViewCommands } from './commands/viewCommands.js';
import { createCompareServices, type CompareServices } from './compare/compareServices.js';
import { registerCompareCommands } from './commands/compareViewCommands.js';
import { registerCodeCommands } from './commands/checkpointCommands.js';
import { createCheckpoints } from './checkpoints/checkpointsHost.js';
import type { CodeRestore } from './checkpoints/codeRestore.js';
import { describeEntry } from './checkpoints/entryWords.js';
import { compareCode } from './checkpoints/compareCode.js';
import { SessionActions, type ActionDeps } from './panels/sessionActions.js';
import { TreePanelManager } from './panels/treePanelManager.js';
import { SessionCodeLens } from './platform/codeLens.js';
import { readConfig } from './platform/config.js';
import { continueInPi as startContinueInPi, type ContinueInPi } from './platform/continueInPi.js';
import { confirmLiveWrite } from './platform/liveGuard.js';
import { log } from './platform/log.js';
import { createSessionFiles, type SessionFiles } from './sessions/sessionFiles.js';
import type { SessionStore } from './sessions/sessionStore.js';
import { createSidebar, type Sidebar } from './sessions/sidebar.js';
import type { SessionsView } from './sessions/sessionsView.js';
import { createSummaryService } from './summaries/summaryService.js';
import { askFrom } from '../core/runs/askFrom.js';
import { listModels } from '../core/runs/listModels.js';
import { createAskService } from './runs/piAskService.js';
import { variantsCore } from './runs/variantsCore.js';
import { createVariants, type TryVariants } from './runs/variantsHost.js';

export function activateHost(context: vscode.ExtensionContext): Host {
  const out = log();
  context.subscriptions.push(out);
  const files = createSessionFiles(out);
  // The sidebar's data provider first: until it is registered VS Code shows "There is no data provider
  // registered" in the view (the bridge's set-up below copies a file and starts watchers).
  let link: PiLink | undefined;
  const sidebar: Sidebar = createSidebar(context, files, () => link?.bridges);
  watchTrust(context, files.store);
  const pi = (link = createPiLink(context, out, () => sidebar.view.redraw()));
  const { view, treeView, isLive } = sidebar;
  const continueInPi = startContinueInPi({
    held: (file) => files.store.get(file),
    cache: () => files.cache,
    bridgeDirs: pi.bridges.dirs,
    bridgeFile: pi.bridgeFile,
  });
  // Where the user acted last: a sidebar row or a tree. Commands without an argument (F2, the palette)
  // go there, so a tree in front does not take a rename meant for the selected row.
  let actedIn: 'sidebar' | 'tree' = 'tree';
  context.subscriptions.push(treeView.onDidChangeSelection(() => (actedIn = 'sidebar')));
  const actionDeps: Omit<ActionDeps, 'openTree'> = {
    repo: files.repo,
    revealSession: (file) => void view.reveal(file),
    confirmLiveWrite: (file, action, canFork) => confirmLiveWrite(isLive(file), action, canFork),
    gateway: pi.gateway,
    noteKind: (file, kind) => view.names.note(file, kind),
  };
  const { compareServices, code, panels, tryVariants } = createTrees(context, {
    files,
    pi,
    sidebar,
    actionDeps,
    continueInPi,
    acted: () => (actedIn = 'tree'),
  });
  const host: Host = {
    context,
    store: files.store,
    repo: files.repo,
    view,
    treeView,
    panels,
    isLive,
    continueInPi,
    bridges: pi.bridges,
    bridgeFile: pi.bridgeFile,
    actionsFor: (session, file) =>
      new SessionActions(session, file, {
        ...actionDeps,
        openTree: async (f, o) => void (await panels.open(f, undefined, o)),
      }),
    actedIn: () => actedIn,
    compareServices,
    code,
    tryVariants,
  };
  for (const register of [
    registerViewCommands,
    registerSessionCommands,
    registerNodeCommands,
    registerPiConnectCommands,
    registerCompareCommands,
    registerCodeCommands,
  ])
    register(host);
  watchSettings(context, files, view, panels);
  const repo = files.repo();
  out.info(
    `pi-tree activated; sessions root ${repo.sessionsRoot}${repo.customDir ? `, custom dir ${repo.customDir}` : ''}`,
  );
  return host;
}

/** An untrusted workspace is read-only: no change, even through pi (SessionActions checks readOnly). */
function watchTrust(context: vscode.ExtensionContext, store: SessionStore): void {
  const apply = () => {
    store.setWriteBlocked(vscode.workspace.isTrusted ? undefined : UNTRUSTED);
    void vscode.commands.executeCommand('setContext', 'piTree.readOnly', !vscode.workspace.isTrusted);
  };
  apply();
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(apply));
}

interface TreeWiring {
  files: SessionFiles;
  pi: PiLink;
  sidebar: Sidebar;
  actionDeps: Omit<ActionDeps, 'openTree'>;
  continueInPi: ContinueInPi;
  acted: () => void;
}

/** The tree panels with what they show beside a session: diffs, hidden marks, family links, compare views, checkpoints. */
function createTrees(
  context: vscode.ExtensionContext,
  w: TreeWiring,
): { compareServices: CompareServices; code: CodeRestore; panels: TreePanelManager; tryVariants: TryVariants } {
  const { files, pi, sidebar } = w;
  const { view } = sidebar;
  const compareServices = createCompareServices({
    context,
    acquire: (file) => files.store.acquire(file),
    cache: () => files.repo().cache,
    scope: files.repo,
    known: () => view.sessions,
    // (the compare view's titles: the sidebar's, by the one rule of core/listing/sessionTitle.ts)
    describe: (file) => view.titleOf(file),
    names: view.names,
    openTree: async (file, select) => void (await panels.open(file, select)),
    code: compareCode(() => code),
  });
  // Checkpoints: the code at a node, restores through pi or straight to the files, undo.
  const code = createCheckpoints(context, {
    agentDir: () => files.repo().agentDir,
    gateway: pi.gateway,
    log: (m) => log().info(m),
    describe: describeEntry,
  });
  // Ask from here: the run core behind the host's AskService.
  const ask = createAskService({
    core: { askFrom, listModels },
    piCommand: () => readConfig().piCommand,
    discoveryDirs: pi.bridges.dirs,
  });
  // Try variants from here: N forks run by pi (core/variants/), shown side by side.
  const tryVariants = createVariants(context, {
    core: variantsCore,
    piCommand: () => readConfig().piCommand,
    agentDir: () => files.repo().agentDir,
    ask,
    code,
    bridgeFile: pi.bridgeFile,
    openTree: async (file) => void (await panels.open(file)),
  });
  const panels = new TreePanelManager(context, {
    extensionUri: context.extensionUri,
    code,
    agentDir: () => files.repo().agentDir,
    store: files.store,
    ...w.actionDeps,
    continueInPi: w.continueInPi,
    summaries: createSummaryService(context, {
      bridgeFile: pi.bridgeFile,
      piCommand: () => readConfig().piCommand,
      discoveryDirs: pi.bridges.dirs,
    }),
    ask,
    tryVariants,
    bridges: pi.bridges,
    isLive: sidebar.isLive,
    listedTitle: (file, max) => view.titleOf(file, max),
    listedFirst: (file) => {
      const i = view.info(file);
      return i?.messageCount ? i.firstMessage.replace(/\s+/g, ' ').trim() : undefined;
    },
    placeOf: (file) => view.names.place(file),
    sourceText: (file) => view.names.sourceText(file),
    compareServices,
    acted: w.acted,
  });
  context.subscriptions.push(
    compareServices,
    panels,
    view.onDidChangeTreeData(() => {
      compareServices.family.changed();
      // A new fork or clone can change what its siblings are called ("fork" → "fork 1").
      panels.retitle();
    }),
  );
  return { compareServices, code, panels, tryVariants };
}

/** Settings take effect at once: another session folder, the live window, CodeLens, a summary model. */
function watchSettings(
  context: vscode.ExtensionContext,
  files: SessionFiles,
  view: SessionsView,
  panels: TreePanelManager,
): void {
  const lens = new SessionCodeLens(() => readConfig().codeLens);
  context.subscriptions.push(
    vscode.languages.registerCodeLensProvider([{ scheme: 'file', pattern: '**/*.jsonl' }], lens),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('piTree')) return;
      if (e.affectsConfiguration('piTree.sessionDir')) {
        files.resetRepo();
        void view.refresh();
      }
      view.setState({ liveWindowSeconds: readConfig().liveWindowSeconds });
      lens.refresh();
      // A summary model set up a moment ago makes "Summarize" available in the open trees.
      panels.refreshMeta();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => view.scheduleRefresh(0)),
  );
}
