// The webview end of the message bridge: `ready` first, requests with a sequence number that get
// exactly one reply (typed by request kind, src/protocol.ts Replies), host messages dispatched to the app.
import type { HostMessage, Replies, RequestBody, WebviewMessage } from '../../src/protocol';
import { tracked } from '../ui/schedule';

export interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}

export class RequestError extends Error {}

export class Bridge {
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; kind: string }>();

  constructor(
    private readonly api: VsCodeApi,
    private readonly onHost: (m: HostMessage) => void,
  ) {}

  /** When the last host message arrived (before its data was deserialized); for the benchmark. */
  lastMessageAt = 0;

  start(win: Window): void {
    win.addEventListener('message', (ev: MessageEvent) => {
      this.lastMessageAt = performance.now();
      this.receive(ev.data);
    });
    this.send({ type: 'ready' });
  }

  send(m: WebviewMessage): void {
    this.api.postMessage(m);
  }

  /** Sends a request; resolves with the host's reply to it (typed by the request kind). */
  request<B extends RequestBody>(body: B): Promise<Replies[B['kind']]> {
    const seq = ++this.seq;
    return tracked(
      new Promise((resolve, reject) => {
        this.pending.set(seq, { resolve: resolve as (v: unknown) => void, reject, kind: body.kind });
        this.send({ type: 'request', seq, body });
      }),
    );
  }

  receive(data: unknown): void {
    if (typeof data !== 'object' || data === null || typeof (data as { type?: unknown }).type !== 'string') return;
    const m = data as HostMessage;
    if (m.type === 'reply') {
      const p = this.pending.get(m.seq);
      if (!p) return;
      this.pending.delete(m.seq);
      if (m.ok) p.resolve(m.data);
      else p.reject(new RequestError(typeof m.error === 'string' ? m.error : `${p.kind} failed`));
      return;
    }
    this.onHost(m);
  }
}

/** Whether a reply says the user declined (a live-session warning) and nothing was written. */
export function wasCancelled(r: unknown): boolean {
  return typeof r === 'object' && r !== null && (r as { cancelled?: unknown }).cancelled === true;
}

/** The new session file a reply names (fork, clone, or a move that forked instead). */
export function forkedFile(r: unknown): string | undefined {
  const f = typeof r === 'object' && r !== null ? (r as { fileName?: unknown }).fileName : undefined;
  return typeof f === 'string' ? f : undefined;
}
