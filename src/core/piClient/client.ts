// pi-tree's end of the bridge: one socket connection to a running pi, requests with timeouts, pushed
// events, and clean errors when pi goes away. A request is sent exactly once; nothing here resends it.
import type { Socket } from 'node:net';
import { nanoidLib, nodeNet } from '../platform/lazyNode.js';
import { LineSplitter } from './framing.js';
import {
  MAX_LINE_BYTES,
  type BridgeErrorCode,
  type BridgeEvent,
  type BridgeOp,
  type BridgeRecord,
  type BridgeReply,
  type OpArgs,
  type OpData,
  type StateData,
} from './protocol.js';

export class BridgeError extends Error {
  override name = 'BridgeError';
  constructor(
    readonly code: BridgeErrorCode,
    message: string,
    /** The system's error code of a failed connect (ECONNREFUSED, ENOENT, EAGAIN …). */
    readonly sysCode?: string,
  ) {
    super(message);
  }
}

export const PEER_GONE_MESSAGE =
  'pi exited before confirming; nothing was written twice (pi-tree sends an action once and never resends it). Reopen the session to see whether it took effect.';

export interface RequestOptions {
  /** Reply deadline (default: waitMs + 30 s; summaries and compactions get 10 min). */
  timeoutMs?: number;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

const SLOW_OPS: readonly BridgeOp[] = ['summaryPreview', 'compact', 'planRestore'];

/** A new idempotency key for one user action, a nanoid (reuse it only to repeat that same action). */
export function actionKey(): string {
  return nanoidLib().nanoid();
}

export class BridgeClient {
  private readonly pending = new Map<string, Pending>();
  private readonly eventListeners = new Set<(ev: BridgeEvent) => void>();
  private readonly closeListeners = new Set<(err?: BridgeError) => void>();
  private seq = 0;
  private ended: BridgeError | undefined;
  /** pi announced it leaves the session (switch, fork, quit): the hang-up that follows is expected. */
  private leaving: BridgeEvent | undefined;

  private constructor(
    readonly record: BridgeRecord,
    private readonly socket: Socket,
  ) {
    const splitter = new LineSplitter(
      MAX_LINE_BYTES,
      (line) => this.onLine(line),
      () => this.fail(new BridgeError('too-large', 'pi sent a line longer than 1 MiB')),
    );
    socket.on('data', (d: Buffer) => splitter.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      const expected = this.leaving && this.pending.size === 0;
      this.fail(
        expected
          ? new BridgeError('closing', `pi left this session (${(this.leaving as { reason: string }).reason})`)
          : new BridgeError('peer-gone', PEER_GONE_MESSAGE),
      );
    });
  }

  /** Connects to the record's endpoint (the caller checked the record: see discovery.ts). */
  static connect(record: BridgeRecord, opts: { timeoutMs?: number } = {}): Promise<BridgeClient> {
    const timeoutMs = opts.timeoutMs ?? 2000;
    return new Promise((resolve, reject) => {
      const socket = nodeNet().connect(record.endpoint);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new BridgeError('timeout', `pi (pid ${record.pid}) did not accept a connection within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        socket.destroy();
        reject(
          new BridgeError('connect-failed', `cannot reach pi (pid ${record.pid}): ${e.code ?? e.message}`, e.code),
        );
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new BridgeClient(record, socket));
      });
    });
  }

  get closed(): boolean {
    return this.ended !== undefined;
  }

  /** Sends one request and resolves with its data, or rejects with a BridgeError. */
  request<O extends BridgeOp>(op: O, args: OpArgs[O], opts: RequestOptions = {}): Promise<OpData[O]> {
    if (this.ended) return Promise.reject(this.ended);
    const id = `r${++this.seq}`;
    const waitMs = (args as { waitMs?: number }).waitMs ?? 0;
    const timeoutMs =
      opts.timeoutMs ??
      waitMs + (SLOW_OPS.includes(op) || (args as { summarize?: boolean }).summarize ? 600_000 : 30_000);
    return new Promise<OpData[O]>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.pending.delete(id)) return;
        reject(
          new BridgeError(
            'timeout',
            `pi (pid ${this.record.pid}) did not answer ${op} within ${Math.round(timeoutMs / 1000)} s; it may still complete (pi-tree did not resend it)`,
          ),
        );
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.socket.write(`${JSON.stringify({ ...args, id, token: this.record.token, op })}\n`);
    });
  }

  state(opts?: RequestOptions): Promise<StateData> {
    return this.request('state', {}, opts);
  }

  /** Starts the event stream; `listener` gets every event from now on. Returns pi's state at that moment. */
  async subscribe(listener: (ev: BridgeEvent) => void): Promise<StateData> {
    this.eventListeners.add(listener);
    return this.request('subscribe', {});
  }

  offEvent(listener: (ev: BridgeEvent) => void): void {
    this.eventListeners.delete(listener);
  }

  /** Called once when the connection ends: code `closing` for close() or pi leaving the session, `peer-gone` when pi vanished. */
  onClose(listener: (err?: BridgeError) => void): void {
    if (this.ended) listener(this.ended);
    else this.closeListeners.add(listener);
  }

  close(): void {
    this.fail(new BridgeError('closing', 'the connection to pi was closed'));
    this.socket.destroy();
  }

  private onLine(line: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (!msg || typeof msg !== 'object') return;
    // A reply or an event from the bridge; its fields are checked before use (pi is a peer, not trusted code).
    const m = msg as Partial<Record<'id' | 'ok' | 'data' | 'event', unknown>> &
      Partial<Pick<Extract<BridgeReply, { ok: false }>, 'code' | 'error'>>;
    if (typeof m.event === 'string') {
      if (m.event === 'sessionSwitched' || m.event === 'sessionClosed') this.leaving = msg as BridgeEvent;
      for (const l of this.eventListeners) l(msg as BridgeEvent);
      return;
    }
    if (typeof m.id !== 'string') {
      // A refusal without an id (bad token, malformed line): the server hangs up, every request fails.
      if (m.ok === false) this.fail(new BridgeError(m.code ?? 'failed', m.error ?? 'pi refused the connection'));
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.ok === true) p.resolve(m.data);
    else p.reject(new BridgeError(m.code ?? 'failed', m.error ?? 'pi refused the request'));
  }

  private fail(err: BridgeError): void {
    if (this.ended) return;
    this.ended = err;
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
    for (const l of this.closeListeners) l(err);
    this.closeListeners.clear();
  }
}
