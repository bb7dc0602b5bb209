// What a request's operation (ops.ts, codeOps.ts) gets of the session's bridge (live.ts's LiveBridge),
// and pi's own package. Kept apart so the operations and the bridge that runs them do not import each
// other: live.ts imports the operations, the operations import only this.
import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from '@earendil-works/pi-coding-agent';
import type { FileDetails } from '../core/piClient/protocol.js';
import type { AskTurns } from './askTurn.js';

export interface BridgeSession {
  readonly pi: ExtensionAPI;
  readonly ctx: ExtensionContext;
  readonly sessionFile: string;
  /** The asked turn (ops.ts ask) from its prompt to pi settling, and its events. */
  readonly asks: AskTurns;
  /** A reviewed summary for the navigation being run (session_before_tree hands it to pi). */
  injected: { targetId: string; text: string; details?: FileDetails } | undefined;
  /** What the last navigation wrote (set in session_tree). */
  lastTree: { summaryId?: string; leafRecordId?: string } | undefined;
  /** Compares pi's state with what subscribers last heard and pushes the differences. */
  refresh(): void;
  /** Resolves once pi is idle (and no asked turn is about to start); throws `busy` when `deadline` (ms since epoch) passes first. */
  waitIdle(deadline: number, ctx?: ExtensionContext): Promise<void>;
  /** Throws `stale` unless pi's leaf is `ifLeaf` (undefined: no check). */
  checkLeaf(ifLeaf: string | null | undefined, ctx?: ExtensionContext): void;
  /** Runs `fn` with a command context (session control exists only there), via pi's command dispatch. */
  viaCommand<T>(fn: (ctx: ExtensionCommandContext) => Promise<T>): Promise<T>;
}

let piModule: Promise<typeof import('@earendil-works/pi-coding-agent') | undefined> | undefined;
/** pi's own package (pi maps the import to its running copy); undefined if it cannot be loaded. */
export function loadPi(): Promise<typeof import('@earendil-works/pi-coding-agent') | undefined> {
  piModule ??= import('@earendil-works/pi-coding-agent').catch(() => undefined);
  return piModule;
}
