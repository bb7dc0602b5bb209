// One session's bridge inside pi: opened in session_start, closed in session_shutdown (and on process
// exit). Owns the socket and the discovery record, follows pi's state for events, and runs requests
// through `ops.ts` once pi is idle.
import { randomBytes } from 'node:crypto';
import { nanoid } from 'nanoid';
import type {
  ExtensionAPI,
  ExtensionCommandContext,
  ExtensionContext,
  SessionBeforeTreeEvent,
  SessionShutdownEvent,
  SessionTreeEvent,
} from '@earendil-works/pi-coding-agent';
import {
  BRIDGE_COMMAND,
  BRIDGE_PROTOCOL,
  MUTATING_OPS,
  type BridgeEvent,
  type BridgeRequest,
  type FileDetails,
  type StateData,
} from '../core/piClient/protocol.js';
import { AskTurns } from './askTurn.js';
import { loadPi, type BridgeSession } from './bridgeSession.js';
import { persistLeaf } from './durableLeaf.js';
import * as ops from './ops.js';
import { planRestore } from './codeOps.js';
import { place, removeRecord, writeRecord, type Placement } from './record.js';
import { BridgeFailure, BridgeServer, removeSocket, type Connection } from './server.js';

const PENDING = Symbol.for('pi-tree.bridge.pending');
type PendingRun = (ctx: ExtensionCommandContext) => Promise<void>;

/** Requests waiting for pi to run `/tree-bridge run <handle>`; shared by every loaded copy of the bridge. */
export function pendingRuns(): Map<string, PendingRun> {
  const g = globalThis as unknown as Record<symbol, Map<string, PendingRun> | undefined>;
  return (g[PENDING] ??= new Map());
}

const KEYS_KEPT = 256;

type KeyedReply = { op: string; reply: Promise<unknown> };
const KEYS = Symbol.for('pi-tree.bridge.keys');
/**
 * Idempotency keys and their replies, per pi PROCESS: shared by every bridge instance (a new one starts
 * with each session pi switches to) and every loaded copy, so an action repeated with its key after a
 * fork, clone or switch is answered, not done again.
 */
function actionKeys(): Map<string, KeyedReply> {
  const g = globalThis as unknown as Record<symbol, Map<string, KeyedReply> | undefined>;
  return (g[KEYS] ??= new Map());
}

const ACTIVE = Symbol.for('pi-tree.bridge.active');
/** Session files with a bridge in this process: a second loaded copy of the bridge stays quiet. */
function activeFiles(): Set<string> {
  const g = globalThis as unknown as Record<symbol, Set<string> | undefined>;
  return (g[ACTIVE] ??= new Set());
}

export class LiveBridge implements BridgeSession {
  private timer: NodeJS.Timeout | undefined;
  private wakers: (() => void)[] = [];
  private lastLeaf: string | null;
  private known: number;
  private wasBusy: boolean;
  private closed = false;
  /** Ids of leaf records this bridge appended (pi does not hold them in memory). */
  readonly ownIds = new Set<string>();
  /** A reviewed summary for the navigation being run (session_before_tree hands it to pi). */
  injected: { targetId: string; text: string; details?: FileDetails } | undefined;
  /** What the last navigation wrote (set in session_tree). */
  lastTree: { summaryId?: string; leafRecordId?: string } | undefined;
  /** The asked turn (ops.ts ask) from its prompt to pi settling, and its events. */
  readonly asks: AskTurns;
  private readonly onExit = () => this.cleanupFiles();

  private constructor(
    readonly pi: ExtensionAPI,
    readonly ctx: ExtensionContext,
    readonly sessionFile: string,
    readonly piVersion: string,
    private readonly placement: Placement,
    private readonly server: BridgeServer,
  ) {
    this.lastLeaf = ctx.sessionManager.getLeafId();
    this.known = ctx.sessionManager.getEntries().length;
    this.wasBusy = !ctx.isIdle();
    this.asks = new AskTurns(ctx, (ev) => this.server.broadcast(ev));
  }

  static async start(pi: ExtensionAPI, ctx: ExtensionContext): Promise<LiveBridge | undefined> {
    const sessionFile = ctx.sessionManager.getSessionFile();
    if (!sessionFile) return undefined; // --no-session: nothing for pi-tree to show
    if (activeFiles().has(sessionFile)) return undefined; // loaded twice (settings and -e): one bridge is enough
    const piVersion = (await loadPi())?.VERSION ?? 'unknown';
    const placement = place(process.env);
    // A secret, not an id: 32 bytes straight from the crypto RNG, as the record's 64 hex digits (TOKEN_RE).
    const token = randomBytes(32).toString('hex');
    // Requests are answered once the bridge object exists (the server has to exist first).
    const ref: { live?: LiveBridge } = {};
    const server = new BridgeServer(
      token,
      async (req, conn) => {
        if (!ref.live) throw new BridgeFailure('closing', 'the bridge is starting');
        return ref.live.handle(req, conn);
      },
      debugLog,
    );
    await server.listen(placement.endpoint);
    const live = new LiveBridge(pi, ctx, sessionFile, piVersion, placement, server);
    ref.live = live;
    try {
      writeRecord(placement, {
        protocol: BRIDGE_PROTOCOL,
        pid: process.pid,
        piVersion,
        sessionFile,
        sessionId: ctx.sessionManager.getSessionId(),
        endpoint: placement.endpoint,
        token,
        startedAt: Date.now(),
      });
    } catch (e) {
      server.close(placement.endpoint);
      throw e;
    }
    activeFiles().add(sessionFile);
    process.on('exit', live.onExit);
    live.timer = setInterval(() => live.refresh(), 250);
    live.timer.unref();
    return live;
  }

  // ---- lifecycle ----

  shutdown(e: SessionShutdownEvent): void {
    if (this.closed) return;
    this.closed = true;
    activeFiles().delete(this.sessionFile);
    clearInterval(this.timer);
    process.off('exit', this.onExit);
    removeRecord(this.placement);
    this.asks.close();
    const last: BridgeEvent =
      e.reason === 'quit'
        ? { event: 'sessionClosed', reason: e.reason }
        : { event: 'sessionSwitched', reason: e.reason, sessionFile: e.targetSessionFile };
    this.server.close(this.placement.endpoint, last);
    this.wake();
  }

  private cleanupFiles(): void {
    removeRecord(this.placement);
    removeSocket(this.placement.endpoint);
    this.server.destroy();
  }

  // ---- pi's state ----

  state(): StateData {
    const sm = this.ctx.sessionManager;
    return {
      protocol: BRIDGE_PROTOCOL,
      piVersion: this.piVersion,
      pid: process.pid,
      sessionFile: this.sessionFile,
      sessionId: sm.getSessionId(),
      sessionName: sm.getSessionName(),
      leafId: sm.getLeafId(),
      busy: !this.ctx.isIdle(),
    };
  }

  /** Compares pi's state with what subscribers last heard and pushes the differences. */
  refresh(): void {
    if (this.closed) return;
    const sm = this.ctx.sessionManager;
    const leaf = sm.getLeafId();
    if (leaf !== this.lastLeaf) {
      // Every append moves pi's leaf, so new entries are only looked for when it moved.
      const entries = sm.getEntries();
      if (entries.length > this.known)
        this.server.broadcast({ event: 'entriesAppended', ids: entries.slice(this.known).map((e) => e.id) });
      this.known = entries.length;
      this.server.broadcast({ event: 'leafChanged', leafId: leaf, previousLeafId: this.lastLeaf });
      this.lastLeaf = leaf;
    }
    const busy = !this.ctx.isIdle();
    if (busy !== this.wasBusy) {
      this.wasBusy = busy;
      this.server.broadcast({ event: busy ? 'busy' : 'idle' });
    }
    this.wake();
  }

  private wake(): void {
    const w = this.wakers.splice(0);
    for (const f of w) f();
  }

  /** Resolves once pi is idle (and no asked turn is about to start); throws `busy` when `deadline` (ms since epoch) passes first. */
  async waitIdle(deadline: number, ctx: ExtensionContext = this.ctx): Promise<void> {
    const waited = Date.now();
    // (an asked turn that was sent but has not started yet counts as busy: pi is about to run it)
    while (!ctx.isIdle() || this.asks.starting) {
      if (this.closed) throw new BridgeFailure('closing', 'pi left this session; nothing was done');
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new BridgeFailure(
          'busy',
          `pi is busy with a turn or a compaction${deadline > waited ? ` (waited ${Date.now() - waited} ms)` : ''}; nothing was done. Try again when it is idle.`,
        );
      }
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.min(left, 100));
        this.wakers.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  checkLeaf(ifLeaf: string | null | undefined, ctx: ExtensionContext = this.ctx): void {
    if (ifLeaf === undefined) return;
    const leaf = ctx.sessionManager.getLeafId();
    if (leaf !== ifLeaf)
      throw new BridgeFailure(
        'stale',
        `pi's leaf is ${leaf ?? '(empty)'}, not ${ifLeaf ?? '(empty)'}: the session moved on (or this was already done); nothing was done`,
      );
  }

  // ---- pi's hooks ----

  beforeTree(e: SessionBeforeTreeEvent): { summary: { summary: string; details: FileDetails } } | undefined {
    const inj = this.injected;
    if (!inj || inj.targetId !== e.preparation.targetId) return undefined;
    this.injected = undefined;
    return { summary: { summary: inj.text, details: inj.details ?? { readFiles: [], modifiedFiles: [] } } };
  }

  /** After any navigation (ours or the user's /tree): make it durable for a restarted pi. */
  afterTree(e: SessionTreeEvent): void {
    if (this.closed) return;
    const sm = this.ctx.sessionManager;
    const rec = persistLeaf(
      this.sessionFile,
      e.newLeafId,
      e.oldLeafId,
      (id) => sm.getEntry(id) !== undefined || this.ownIds.has(id),
    );
    if (rec) {
      this.ownIds.add(rec.id);
      this.server.broadcast({ event: 'entriesAppended', ids: [rec.id] });
    }
    this.lastTree = { summaryId: e.summaryEntry?.id, leafRecordId: rec?.id };
    this.refresh();
  }

  // ---- requests ----

  private async handle(req: BridgeRequest, conn: Connection): Promise<unknown> {
    switch (req.op) {
      case 'state':
        return this.state();
      case 'subscribe':
        conn.subscribed = true;
        return this.state();
      case 'summaryPreview':
        return ops.summaryPreview(this, req as BridgeRequest<'summaryPreview'>);
      case 'planRestore':
        // (nothing is written: planned while the user looks at the preview, whatever pi is doing)
        return planRestore(this, req as BridgeRequest<'planRestore'>);
      case 'abortAsk':
        // (not a change that waits for idle: it is how a running asked turn is stopped)
        return this.asks.abort((req as BridgeRequest<'abortAsk'>).askId);
    }
    if (!MUTATING_OPS.includes(req.op)) throw new BridgeFailure('unknown-op', `unknown op ${req.op}`);
    const key = (req as { key?: string }).key;
    if (key === undefined) return ops.mutate(this, req);
    const keys = actionKeys();
    const seen = keys.get(key);
    if (seen) {
      if (seen.op !== req.op) throw new BridgeFailure('bad-args', `key ${key} was used for ${seen.op}`);
      return seen.reply;
    }
    const reply = ops.mutate(this, req);
    const entry = { op: req.op, reply };
    keys.set(key, entry);
    if (keys.size > KEYS_KEPT) keys.delete(keys.keys().next().value as string);
    // A failure before anything was done may be retried with the same key.
    reply.catch((e: unknown) => {
      if (
        e instanceof BridgeFailure &&
        ['busy', 'stale', 'not-found', 'bad-args', 'closing'].includes(e.code) &&
        keys.get(key) === entry
      )
        keys.delete(key);
    });
    return reply;
  }

  /** Runs `fn` with a command context (session control exists only there), via pi's command dispatch. */
  viaCommand<T>(fn: (ctx: ExtensionCommandContext) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const name = commandName(this.pi);
      if (!name)
        return reject(new BridgeFailure('failed', `the /${BRIDGE_COMMAND} command is not registered in this pi`));
      const handle = nanoid();
      const runs = pendingRuns();
      const timer = setTimeout(() => {
        if (runs.delete(handle))
          reject(new BridgeFailure('failed', 'pi did not run the bridge command within 60 s; nothing was done'));
      }, 60_000);
      runs.set(handle, async (ctx) => {
        clearTimeout(timer);
        try {
          resolve(await fn(ctx));
        } catch (e) {
          reject(e);
        }
      });
      // The text is our own command and a random handle: no request data is ever put on the line.
      Promise.resolve(this.pi.sendUserMessage(`/${name} run ${handle}`, { expandPromptTemplates: true })).catch(
        (e: unknown) => {
          if (runs.delete(handle)) {
            clearTimeout(timer);
            reject(e);
          }
        },
      );
    });
  }
}

/**
 * The invocation name of the bridge command. Only a registered extension command is ever sent: a name
 * pi did not know would reach the model as a user prompt.
 */
function commandName(pi: ExtensionAPI): string | undefined {
  const mine = pi
    .getCommands()
    .filter((c) => c.source === 'extension' && (c.name === BRIDGE_COMMAND || c.name.startsWith(`${BRIDGE_COMMAND}:`)));
  return (mine.find((c) => c.name === BRIDGE_COMMAND) ?? mine[0])?.name;
}

function debugLog(msg: string): void {
  if (process.env.PI_TREE_BRIDGE_DEBUG) process.stderr.write(`[pi-tree bridge] ${msg}\n`);
}
