// What one tree panel (treeController.ts) needs from the rest of the host: the session store, the
// summaries, the running pis, the sidebar's listing (titles before the session is read), code views.
import type * as vscode from 'vscode';
import type { SessionRepository } from '../../core/session/repository.js';
import type { FamilyPlace } from '../../core/listing/sessionTitle.js';
import type { BridgeRegistry } from '../runningPi/bridgeRegistry.js';
import type { CompareServices } from '../compare/compareServices.js';
import type { CodeRestore } from '../checkpoints/codeRestore.js';
import type { BeforePi } from '../platform/piTerminal.js';
import type { SessionStore } from '../sessions/sessionStore.js';
import type { SummaryService } from '../summaries/summaryService.js';
import type { AskService } from '../runs/askService.js';
import type { TryVariants } from '../runs/variantsHost.js';
import type { ActionDeps } from './sessionActions.js';

/** What a panel needs from the rest of the host. */
export interface TreeDeps extends ActionDeps {
  extensionUri: vscode.Uri;
  store: SessionStore;
  repo: () => SessionRepository;
  continueInPi: (file: string, text?: string, before?: BeforePi) => Promise<void>;
  summaries: SummaryService;
  isLive: (file: string) => boolean;
  /** Running pis with the bridge: an open tree stays connected to its session's pi. */
  bridges: BridgeRegistry;
  /** The first message of `file` as the sidebar read it, when it lists it (before the tree has read its own). */
  listedFirst?: (file: string) => string | undefined;
  /** The sidebar's title for `file` (what its row reads), when it lists it: the tab's title until the session is read. */
  listedTitle?: (file: string, max: number) => string | undefined;
  /** Where the sidebar's listing places `file` among its source's forks or clones (its title says which). */
  placeOf?: (file: string) => FamilyPlace | undefined;
  /** The name or first message of the listed session `file`: a fork of it without messages reads so. */
  sourceText?: (file: string) => string | undefined;
  /** The user acted in this tree (it came to the front, or its selection changed): commands target it. */
  acted?: () => void;
  /** Diffs, hidden marks, family links and compare views. */
  compareServices: CompareServices;
  /** Checkpoints: the code at a node, restores, undo. */
  code: CodeRestore;
  /** pi's agent dir (where checkpoints live). */
  agentDir: () => string;
  /** Ask from here: pi continues the session from a node. */
  ask: AskService;
  /** Try variants from a node: N forks run by pi, shown side by side. */
  tryVariants: TryVariants;
}
