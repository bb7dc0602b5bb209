// A real HTTP server on 127.0.0.1 that speaks the OpenAI Chat Completions protocol (plain JSON and
// SSE streaming) and records every request, for testing model clients and everything above them.
import { after, before, beforeEach } from 'node:test';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  rawBody: string;
  /** ms since the server started. */
  at: number;
}

export type Reply =
  | { kind: 'json'; status?: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'text'; status?: number; body: string; headers?: Record<string, string> }
  /** SSE: each event is written as `data: <JSON or string>\n\n`; `chunkBytes` splits writes mid-event. */
  /** `onHang`: called once every event is written and the stream is left open (`hang`): the client is mid-stream. */
  /** `held`: after `holdAfter` events the stream waits for it to settle (the client is mid-stream until the test lets it go on). */
  | {
      kind: 'sse';
      events: (object | string)[];
      delayMs?: number;
      done?: boolean;
      hang?: boolean;
      onHang?: () => void;
      chunkBytes?: number;
      headers?: Record<string, string>;
      held?: Promise<unknown>;
      holdAfter?: number;
    }
  /**
   * A body written piece by piece: `next(i)` gives piece i, or null to end. Pieces are written with
   * backpressure and `intervalMs` between them (so an endless body is endless without flooding the
   * machine); writing stops when the client goes away.
   */
  | { kind: 'stream'; status?: number; contentType: string; next: (i: number) => string | null; intervalMs?: number }
  /** A redirect to `location` (absolute, or relative to this server). */
  | { kind: 'redirect'; status?: number; location: string }
  /** Accept the request and never answer. */
  | { kind: 'hang' }
  /** Close the connection without an answer. */
  | { kind: 'destroy' };

export type Handler = (req: RecordedRequest, n: number) => Reply | Promise<Reply>;

export interface Loopback {
  /** Base URL ending in /v1. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  setHandler(h: Handler): void;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startLoopback(handler: Handler = () => completionJson('SUMMARY')): Promise<Loopback> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const started = Date.now();
  let current = handler;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      body = undefined;
    }
    const rec: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body,
      rawBody,
      at: Date.now() - started,
    };
    requests.push(rec);
    let reply: Reply;
    try {
      reply = await current(rec, requests.length);
    } catch (e) {
      reply = { kind: 'json', status: 500, body: { error: { message: String(e) } } };
    }
    await send(res, reply);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    setHandler: (h) => {
      current = h;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

async function send(res: ServerResponse, reply: Reply): Promise<void> {
  switch (reply.kind) {
    case 'json':
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
      return;
    case 'text':
      res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.body);
      return;
    case 'hang':
      return;
    case 'redirect':
      res.writeHead(reply.status ?? 307, { location: reply.location, 'content-type': 'text/plain' });
      res.end('moved');
      return;
    case 'stream': {
      res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType, 'cache-control': 'no-cache' });
      res.flushHeaders();
      for (let i = 0; !res.destroyed && !res.writableEnded; i++) {
        const piece = reply.next(i);
        if (piece === null) break;
        if (!res.write(piece))
          await new Promise<void>((r) =>
            res.destroyed ? r() : (res.once('drain', () => r()), res.once('close', () => r())),
          );
        await sleep(reply.intervalMs ?? 1);
      }
      if (!res.destroyed) res.end();
      return;
    }
    case 'destroy':
      res.socket?.destroy();
      return;
    case 'sse': {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        ...reply.headers,
      });
      res.flushHeaders();
      const events = [...reply.events.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))];
      if (reply.done !== false) events.push('[DONE]');
      for (const [i, e] of events.entries()) {
        if (reply.held && i === reply.holdAfter) await reply.held;
        if (res.destroyed) return;
        const text = `data: ${e}\n\n`;
        if (reply.chunkBytes) {
          for (let i = 0; i < text.length; i += reply.chunkBytes) {
            res.write(text.slice(i, i + reply.chunkBytes));
            await sleep(1);
          }
        } else {
          res.write(text);
        }
        if (reply.delayMs) await sleep(reply.delayMs);
      }
      if (!reply.hang) res.end();
      else reply.onHang?.();
      return;
    }
  }
}

export interface RawUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

export const USAGE: RawUsage = {
  prompt_tokens: 1200,
  completion_tokens: 80,
  total_tokens: 1280,
  prompt_tokens_details: { cached_tokens: 200 },
};

/** A plain JSON chat completion. */
export function completionJson(
  text: string,
  opts: { usage?: RawUsage | null; finish?: string | null; model?: string } = {},
): Reply {
  const body: Record<string, unknown> = {
    id: 'chatcmpl-loopback',
    object: 'chat.completion',
    created: 1,
    model: opts.model ?? 'loopback-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text },
        finish_reason: opts.finish === undefined ? 'stop' : opts.finish,
      },
    ],
  };
  if (opts.usage !== null) body.usage = opts.usage ?? USAGE;
  return { kind: 'json', body };
}

/**
 * A streamed chat completion: role chunk, text pieces, finish chunk, usage chunk, [DONE]. `heldUntil`:
 * the rest waits after the first piece until it settles, so the client is mid-answer (pi busy with the
 * turn) for as long as the test needs, however slow the machine (see `gate`).
 */
export function completionSse(
  text: string,
  opts: {
    pieces?: number;
    usage?: RawUsage | null;
    finish?: string;
    delayMs?: number;
    hang?: boolean;
    done?: boolean;
    chunkBytes?: number;
    stopAfterPieces?: number;
    heldUntil?: Promise<unknown>;
  } = {},
): Reply {
  const n = Math.max(1, opts.pieces ?? 3);
  const size = Math.ceil(text.length / n) || 1;
  const base = { id: 'chatcmpl-loopback', object: 'chat.completion.chunk', created: 1, model: 'loopback-model' };
  const events: object[] = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
  ];
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  for (const p of pieces.slice(0, opts.stopAfterPieces ?? pieces.length))
    events.push({ ...base, choices: [{ index: 0, delta: { content: p }, finish_reason: null }] });
  if (opts.stopAfterPieces === undefined) {
    events.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: opts.finish ?? 'stop' }] });
    if (opts.usage !== null) events.push({ ...base, choices: [], usage: opts.usage ?? USAGE });
  }
  return {
    kind: 'sse',
    events,
    delayMs: opts.delayMs,
    hang: opts.hang,
    done: opts.stopAfterPieces === undefined ? opts.done : false,
    chunkBytes: opts.chunkBytes,
    held: opts.heldUntil,
    holdAfter: 2,
  };
}

/** A promise the test settles: `opened` resolves once `open()` is called (e.g. to let a held answer go on). */
export interface Gate {
  opened: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open = () => {};
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

/** A streamed answer that calls tools (OpenAI `tool_calls` deltas), finish reason `tool_calls`. */
export function toolCallsSse(calls: { name: string; arguments: Record<string, unknown> }[], text = ''): Reply {
  const base = { id: 'chatcmpl-loopback', object: 'chat.completion.chunk', created: 1, model: 'loopback-model' };
  const events: object[] = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] },
  ];
  calls.forEach((c, i) => {
    const id = `call_${i}_${Math.random().toString(36).slice(2, 10)}`;
    events.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: i, id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } },
            ],
          },
          finish_reason: null,
        },
      ],
    });
  });
  events.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
  events.push({ ...base, choices: [], usage: USAGE });
  return { kind: 'sse', events };
}

/** Pieces that never end: `piece` forever (after `first`, when given). */
export function endless(piece: string, first?: string): (i: number) => string {
  return (i) => (i === 0 && first !== undefined ? first : piece);
}

/** A TCP port on 127.0.0.1 with nothing listening (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/**
 * A loopback server for the tests of one file: started before them, closed after, and before each test
 * its recorded requests are cleared and its handler reset (to `reset`, when given).
 */
export function useLoopback(reset?: Handler): Loopback {
  let lb: Loopback | undefined;
  const cur = () => {
    if (!lb) throw new Error('the loopback server is not started yet');
    return lb;
  };
  before(async () => {
    lb = await startLoopback();
  });
  after(() => lb?.close());
  beforeEach(() => {
    cur().requests.length = 0;
    if (reset) cur().setHandler(reset);
  });
  return {
    get url() {
      return cur().url;
    },
    get port() {
      return cur().port;
    },
    get requests() {
      return cur().requests;
    },
    setHandler: (h) => cur().setHandler(h),
    close: () => cur().close(),
  };
}
