// The services every command works with, made once at activation (activate.ts) and passed around
// instead of closures over one long function.
import type * as vscode from 'vscode';
import type { SessionRepository } from '../../core/session/repository.js';
import type { Session } from '../../core/session/session.js';
import type { BridgeRegistry } from '../runningPi/bridgeRegistry.js';
import type { CompareServices } from '../compare/compareServices.js';
import type { CodeRestore } from '../checkpoints/codeRestore.js';
import type { TryVariants } from '../runs/variantsHost.js';
import type { SessionActions } from '../panels/sessionActions.js';
import type { TreePanelManager } from '../panels/treePanelManager.js';
import type { SessionStore } from '../sessions/sessionStore.js';
import type { SessionsView, ViewNode } from '../sessions/sessionsView.js';
import type { BeforePi } from '../platform/piTerminal.js';

export interface Host {
  context: vscode.ExtensionContext;
  store: SessionStore;
  repo(): SessionRepository;
  view: SessionsView;
  treeView: vscode.TreeView<ViewNode>;
  panels: TreePanelManager;
  isLive(file: string): boolean;
  /** Starts pi on `file` (or tells why it cannot); `before` runs once pi is known to start (see piTerminal.ts BeforePi). */
  continueInPi(file: string, text?: string, before?: BeforePi): Promise<void>;
  /** Running pis with the bridge, by session file. */
  bridges: BridgeRegistry;
  /** The actions on one session (through its running pi when there is one), for commands outside a tree. */
  actionsFor(session: Session, file: string): SessionActions;
  /** Absolute path of the bundled bridge (dist/pi-bridge.js). */
  bridgeFile: string;
  /** Where the user acted last: the sidebar (a row was selected) or a tree. */
  actedIn(): 'sidebar' | 'tree';
  /** Diffs, hidden marks, family links and compare views. */
  compareServices: CompareServices;
  /** Checkpoints: the code at a node, restores, undo. */
  code: CodeRestore;
  /** Try variants from a node of a tree. */
  tryVariants: TryVariants;
}

/** Runs `fn` with the shared open Session of `file`, released afterwards. */
export async function withSession<T>(host: Host, file: string, fn: (s: Session) => Promise<T>): Promise<T> {
  const { session, release } = await host.store.acquire(file);
  try {
    return await fn(session);
  } finally {
    release();
  }
}
