// The one place where a user's change to a session goes through the pi running it: move, label,
// rename, fork, clone, a reviewed summary. One idempotency key per user action and `ifLeaf` = the leaf
// the user saw, so neither a retry nor a tree that is behind pi writes twice; pi's refusals become one
// clear message. "pi is busy" asks the user: "Wait for pi" repeats the request with the same key and a
// long wait (without ifLeaf: the turn being waited for moves pi's leaf by design), or cancel. A pi that
// runs the session but does not answer (stopped with Ctrl+Z, blocked) asks the same: "Wait for pi"
// looks again every second until it answers (or the user cancels the wait), and nothing is ever written
// behind it. When no pi runs the session, or it is gone before anything was sent, the caller uses the
// file (SessionActions). A record that does not check out (core/piClient/peer.ts) is refused. No vscode
// import: the UI comes in as GatewayUi.
import { actionKey, BridgeClient, BridgeError, PEER_GONE_MESSAGE } from '../../core/piClient/client.js';
import { PiUnresponsiveError, type LiveBridgeInfo } from '../../core/piClient/discovery.js';
import { UntrustedBridgeError, verifyBridge } from '../../core/piClient/peer.js';
import type { ActionOptions, OpArgs, OpData } from '../../core/piClient/protocol.js';
import type { Session } from '../../core/session/session.js';

export type PiAction = 'goto' | 'fork' | 'clone' | 'label' | 'name' | 'restoreCode' | 'codeUndo';

export interface GatewayUi {
  /** pi answered busy, or does not answer: true waits for it (longer), false cancels. */
  askWait(message: string): Promise<boolean>;
  /** Shows that pi-tree waits for pi while `work` runs; `cancel`, when given, stops the wait (the user's choice). */
  waiting<T>(message: string, work: Promise<T>, cancel?: () => void): Promise<T>;
}

export interface GatewayOptions {
  /** The live bridge of a file, or undefined; throws PiUnresponsiveError for a pi that does not answer (findBridge). */
  find(file: string): LiveBridgeInfo | undefined | Promise<LiveBridgeInfo | undefined>;
  ui: GatewayUi;
  log?: (msg: string) => void;
  /** How long a first attempt waits for pi to finish a turn (ms). */
  firstWaitMs?: number;
  /** How long "Wait for pi" waits (ms). */
  longWaitMs?: number;
  /** How often a pi that does not answer is looked at while the user waits (ms). */
  pollMs?: number;
  /** The environment the bridges were placed by (their socket places). */
  env?: NodeJS.ProcessEnv;
}

/** What a routed action came to: pi did it, the user cancelled, or there was no pi to do it. */
export type Routed<T> = { via: 'pi'; pid: number; data: T } | { via: 'cancelled' } | { via: 'none' };

/** A refusal worded for the user; nothing was changed (or, for peer-gone, maybe once: never twice). */
export class PiActionError extends Error {
  override name = 'PiActionError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const FIRST_WAIT_MS = 1500;
const LONG_WAIT_MS = 5 * 60_000;
const POLL_MS = 1000;
/** Connect attempts before a pi that is found but cannot be reached is given up on. */
const CONNECT_ATTEMPTS = 3;

export class PiGateway {
  constructor(private readonly opts: GatewayOptions) {}

  /** The running pi of `file`, if one has the bridge (throws PiUnresponsiveError for one that does not answer). */
  async live(file: string): Promise<LiveBridgeInfo | undefined> {
    return this.opts.find(file);
  }

  /**
   * Asks the pi running `file` to plan the restore the user is previewing (planRestore), if one answers
   * now: never asks the user anything, and a pi that cannot (none, an older bridge) is only logged.
   */
  async planRestore(file: string, targetId: string): Promise<string | undefined> {
    try {
      const info = await this.live(file);
      if (!info) return undefined;
      verifyBridge(info, file, this.opts.env);
      const client = await BridgeClient.connect(info.record);
      try {
        return (await client.request('planRestore', { targetId })).fingerprint;
      } finally {
        client.close();
      }
    } catch (e) {
      this.opts.log?.(`planRestore: pi did not plan ahead (${(e as Error).message})`);
      return undefined;
    }
  }

  /**
   * The answering pi of `file`: undefined when none runs it, 'cancelled' when one does not answer and
   * the user would not wait for it (or stopped waiting).
   */
  private async answering(file: string): Promise<LiveBridgeInfo | 'cancelled' | undefined> {
    try {
      return await this.live(file);
    } catch (e) {
      if (!(e instanceof PiUnresponsiveError)) throw e;
      const pid = e.pid;
      this.opts.log?.(`pi ${pid} does not answer (${e.info.why})`);
      const wait = await this.opts.ui.askWait(
        `pi (pid ${pid}) runs this session but does not answer (${e.info.why}), so nothing was done yet. Wait until it answers (resume it with fg in its terminal), or cancel?`,
      );
      if (!wait) return 'cancelled';
      let stop = false;
      const poll = async (): Promise<LiveBridgeInfo | 'cancelled' | undefined> => {
        for (;;) {
          await new Promise((r) => setTimeout(r, this.opts.pollMs ?? POLL_MS));
          if (stop) return 'cancelled';
          try {
            return await this.live(file);
          } catch (err) {
            if (!(err instanceof PiUnresponsiveError)) throw err;
          }
        }
      };
      return this.opts.ui.waiting(`Waiting for pi (pid ${pid}) to answer…`, poll(), () => (stop = true));
    }
  }

  /**
   * Runs one user action in the pi running `file`. `seen`: the session as the user saw it (its leaf
   * becomes `ifLeaf`). Resolves `none` when no pi runs it or pi vanished before the request was sent.
   */
  async run<O extends PiAction>(
    file: string,
    op: O,
    args: Omit<OpArgs[O], keyof ActionOptions>,
    seen?: Session,
  ): Promise<Routed<OpData[O]>> {
    let info: LiveBridgeInfo;
    let client: BridgeClient;
    for (let attempt = 1; ; attempt++) {
      const found = await this.answering(file);
      if (found === 'cancelled') return { via: 'cancelled' };
      if (!found) return { via: 'none' };
      info = found;
      try {
        verifyBridge(info, file, this.opts.env);
      } catch (e) {
        if (e instanceof UntrustedBridgeError) throw new PiActionError(e.code, e.message);
        throw e;
      }
      try {
        client = await BridgeClient.connect(info.record);
        break;
      } catch (e) {
        // Nothing was sent. Looked at again: gone (the file is the place now), not answering (asked), or back.
        this.opts.log?.(`pi ${info.record.pid} unreachable (${(e as Error).message})`);
        if (attempt >= CONNECT_ATTEMPTS) throw this.explain(e, info.record.pid, op);
      }
    }
    const pid = info.record.pid;
    const key = actionKey();
    try {
      let ifLeaf = seen ? await this.ifLeafFor(client, seen) : undefined;
      let waitMs = this.opts.firstWaitMs ?? FIRST_WAIT_MS;
      for (;;) {
        try {
          const req = { ...args, key, waitMs, ...(ifLeaf !== undefined ? { ifLeaf } : {}) } as OpArgs[O];
          const sent = client.request(op, req);
          this.opts.log?.(`${op} sent to pi ${pid} (waits up to ${waitMs} ms for idle)`);
          const data =
            waitMs > (this.opts.firstWaitMs ?? FIRST_WAIT_MS)
              ? await this.opts.ui.waiting(`Waiting for pi (pid ${pid}) to finish its turn…`, sent)
              : await sent;
          this.opts.log?.(`${op} done by pi ${pid}`);
          return { via: 'pi', pid, data };
        } catch (e) {
          if (!(e instanceof BridgeError) || e.code !== 'busy') {
            // A tree behind pi catches up at once (the watcher would, a moment later).
            if (e instanceof BridgeError && e.code === 'stale') await seen?.refresh().catch(() => undefined);
            throw this.explain(e, pid, op);
          }
          const wait = await this.opts.ui.askWait(
            `pi (pid ${pid}) is busy with a turn or a compaction, so nothing was done yet. Wait until it is idle, or cancel?`,
          );
          if (!wait) return { via: 'cancelled' };
          waitMs = this.opts.longWaitMs ?? LONG_WAIT_MS;
          // The user chose to let the turn finish, whose entries move pi's leaf: the move still goes to
          // the node they chose. The key alone keeps a repeat from writing twice.
          ifLeaf = undefined;
          // Same key: should the first attempt have landed after all, pi answers with its result.
          if (client.closed)
            client = await BridgeClient.connect(info.record).catch((err: unknown) =>
              Promise.reject(this.explain(err, pid, op)),
            );
        }
      }
    } finally {
      client.close();
    }
  }

  /**
   * The leaf the user saw, in pi's terms: a pi restarted after a move stands on pi-tree's leaf record
   * (its parent is the target), which pi-tree reads as the target itself.
   */
  private async ifLeafFor(client: BridgeClient, seen: Session): Promise<string | null> {
    const saw = seen.leafId;
    const st = await client.state();
    if (st.leafId === saw || st.leafId === null) return saw;
    let rec = seen.index.get(st.leafId);
    for (let i = 0; rec && rec.type === 'leaf' && i < 8; i++) {
      if (rec.parentId === saw) return st.leafId;
      rec = rec.parentId ? seen.index.get(rec.parentId) : undefined;
    }
    return saw;
  }

  private explain(e: unknown, pid: number, op: string): Error {
    if (!(e instanceof BridgeError)) return e instanceof Error ? e : new Error(String(e));
    switch (e.code) {
      case 'peer-gone':
        return new PiActionError(e.code, PEER_GONE_MESSAGE);
      case 'stale':
        return new PiActionError(
          e.code,
          `pi (pid ${pid}) has moved on since the tree was drawn: ${e.message}. The tree now follows pi; look again and retry.`,
        );
      case 'closing':
        return new PiActionError(e.code, `pi (pid ${pid}) left this session before it could ${op}; nothing was done.`);
      case 'cancelled':
        return new PiActionError(
          e.code,
          `pi (pid ${pid}) cancelled it (an extension, or an aborted summary); nothing was written.`,
        );
      case 'timeout':
      case 'connect-failed':
        return new PiActionError(e.code, e.message);
      default:
        return new PiActionError(e.code, `pi (pid ${pid}) refused to ${op}: ${e.message}`);
    }
  }
}
