// The webview's channel to the extension host: `ready` first, requests with a sequence number that get
// exactly one reply (typed by request kind, src/protocol.ts Replies; the stack is src/shared/messaging.ts,
// shared with the compare view), host messages dispatched to the app.
import type { HostMessage, Replies, RequestBody, WebviewMessage } from '../../src/protocol';
import { RequestClient } from '../../src/shared/messaging';
import { tracked } from '../ui/schedule';

export interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}

export class HostChannel {
  private readonly client: RequestClient<RequestBody, Replies>;

  constructor(
    private readonly api: VsCodeApi,
    private readonly onHost: (m: HostMessage) => void,
  ) {
    this.client = new RequestClient((m) => this.send(m), tracked);
  }

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
    return this.client.request(body);
  }

  receive(data: unknown): void {
    if (typeof data !== 'object' || data === null || typeof (data as { type?: unknown }).type !== 'string') return;
    if (!this.client.settle(data)) this.onHost(data as HostMessage);
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
