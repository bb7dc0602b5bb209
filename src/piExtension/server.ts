// The bridge's socket: authenticated JSON-line requests in, one reply per request out, events pushed
// to connections that subscribed. It knows nothing about pi: `handle` does the work. Nothing a client
// does can make it hold unbounded memory inside pi (LIMITS): at most 64 connections at once (more are
// closed at once), one that has not authenticated within 10 s is closed, and replies are written with
// backpressure: a connection is not read while over 1 MiB of its replies wait unsent (or 64 of its
// requests are in flight) and is read again on 'drain'. A subscriber that reads nothing is dropped at
// 16 MiB unsent. (300,000 pipelined requests whose replies were never read grew pi by 240 MB before.)
import { createHash, timingSafeEqual } from 'node:crypto';
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { LineSplitter } from '../core/piClient/framing.js';
import { parseRequest } from '../core/piClient/protocolChecks.js';
import {
  MAX_LINE_BYTES,
  type BridgeErrorCode,
  type BridgeEvent,
  type BridgeRequest,
} from '../core/piClient/protocol.js';

/** An error with a protocol code, thrown by handlers and sent to the client as is. */
export class BridgeFailure extends Error {
  constructor(
    readonly code: BridgeErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export type Handler = (req: BridgeRequest, conn: Connection) => Promise<unknown>;

export interface Connection {
  subscribed: boolean;
}

interface Conn extends Connection {
  socket: Socket;
  inFlight: number;
  /** A request with the right token came: the connection may stay idle (a subscription). */
  authed: boolean;
  /** Reading stopped for backpressure. */
  paused: boolean;
}

export interface ServerLimits {
  maxConnections: number;
  authTimeoutMs: number;
  /** Unsent reply bytes on one connection above which it is not read. */
  highWater: number;
  /** Requests of one connection being handled at once above which it is not read. */
  maxInFlight: number;
  /** Unsent bytes on one connection (events to a subscriber that never reads) at which it is dropped. */
  maxBuffered: number;
}

export const LIMITS: ServerLimits = {
  maxConnections: 64,
  authTimeoutMs: 10_000,
  highWater: 1024 * 1024,
  maxInFlight: 64,
  maxBuffered: 16 * 1024 * 1024,
};

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export class BridgeServer {
  private server: Server | undefined;
  private readonly conns = new Set<Conn>();
  private readonly tokenDigest: Buffer;
  private closing = false;

  constructor(
    token: string,
    private readonly handle: Handler,
    private readonly log: (msg: string) => void = () => {},
    private readonly limits: ServerLimits = LIMITS,
  ) {
    this.tokenDigest = digest(token);
  }

  /** Constant time whatever the length: the digests are compared, not the strings. */
  private tokenOk = (t: string): boolean => timingSafeEqual(digest(t), this.tokenDigest);

  listen(endpoint: string): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(endpoint, () => {
        server.off('error', reject);
        server.on('error', (e) => this.log(`socket error: ${e.message}`));
        // The directory is already 0700; the socket itself is 0600 as well.
        if (process.platform !== 'win32') chmodSync(endpoint, 0o600);
        resolve();
      });
    });
  }

  private accept(socket: Socket): void {
    if (this.closing) {
      socket.destroy();
      return;
    }
    if (this.conns.size >= this.limits.maxConnections) {
      this.log(`refused a connection: ${this.conns.size} are open`);
      socket.on('error', () => {});
      socket.destroy();
      return;
    }
    const conn: Conn = { socket, subscribed: false, inFlight: 0, authed: false, paused: false };
    this.conns.add(conn);
    const splitter = new LineSplitter(
      MAX_LINE_BYTES,
      (line) => this.onLine(conn, line),
      () => this.refuse(conn, null, 'too-large', `a request line is longer than ${MAX_LINE_BYTES} bytes`),
    );
    const authTimer = setTimeout(() => {
      if (conn.authed) return;
      this.log('closed a connection that did not authenticate in time');
      socket.destroy();
    }, this.limits.authTimeoutMs);
    authTimer.unref();
    socket.on('data', (d: Buffer) => splitter.push(d));
    socket.on('drain', () => this.flow(conn));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(authTimer);
      this.conns.delete(conn);
    });
  }

  /** Stops reading `conn` while its replies wait to be sent (or it has many requests in flight); reads again once they are out. */
  private flow(conn: Conn): void {
    const full = conn.socket.writableLength > this.limits.highWater || conn.inFlight >= this.limits.maxInFlight;
    if (full && !conn.paused) {
      conn.paused = true;
      conn.socket.pause();
    } else if (!full && conn.paused) {
      conn.paused = false;
      conn.socket.resume();
    }
  }

  private onLine(conn: Conn, line: string): void {
    if (conn.socket.destroyed) return;
    const parsed = parseRequest(line, this.tokenOk);
    if (!parsed.ok) {
      if (parsed.fatal) this.refuse(conn, parsed.id, parsed.code, parsed.error);
      else {
        conn.authed = true; // (only a wrong token, or no JSON at all, is fatal)
        this.send(conn, { id: parsed.id, ok: false, code: parsed.code, error: parsed.error });
      }
      return;
    }
    conn.authed = true;
    const req = parsed.request;
    if (this.closing) {
      this.send(conn, { id: req.id, ok: false, code: 'closing', error: 'pi is leaving this session' });
      return;
    }
    conn.inFlight++;
    this.flow(conn);
    this.handle(req, conn)
      .then(
        (data) => this.send(conn, { id: req.id, ok: true, data }),
        (e: unknown) => {
          const code: BridgeErrorCode = e instanceof BridgeFailure ? e.code : 'failed';
          const msg = e instanceof Error ? e.message : String(e);
          this.send(conn, { id: req.id, ok: false, code, error: msg.split('\n')[0].slice(0, 2000) });
        },
      )
      .finally(() => {
        conn.inFlight--;
        if (this.closing && conn.inFlight === 0) conn.socket.end();
        else this.flow(conn);
      });
  }

  /** Answers once and hangs up: bad token, not JSON, a line too long. */
  private refuse(conn: Conn, id: string | null, code: BridgeErrorCode, error: string): void {
    this.log(`refused a request: ${error}`);
    if (!conn.socket.writable) return;
    conn.socket.end(`${JSON.stringify({ id, ok: false, code, error })}\n`);
    conn.socket.destroySoon();
  }

  private send(conn: Conn, msg: unknown): void {
    if (!conn.socket.writable) return;
    if (conn.socket.writableLength > this.limits.maxBuffered) {
      this.log('dropped a connection that does not read what it is sent');
      conn.socket.destroy();
      return;
    }
    conn.socket.write(`${JSON.stringify(msg)}\n`);
    this.flow(conn);
  }

  broadcast(ev: BridgeEvent): void {
    for (const c of this.conns) if (c.subscribed) this.send(c, ev);
  }

  /**
   * Stops listening and removes the socket file; connections still waiting for a reply get it (a fork's
   * reply is sent after pi left the session), the others are closed after `last` is pushed.
   */
  close(endpoint: string, last?: BridgeEvent): void {
    if (this.closing) return;
    this.closing = true;
    if (last) this.broadcast(last);
    this.server?.close();
    removeSocket(endpoint);
    for (const c of this.conns) if (c.inFlight === 0) c.socket.end();
  }

  /** Ends every connection now (the process is exiting). */
  destroy(): void {
    for (const c of this.conns) c.socket.destroy();
  }
}

/** Removes a Unix socket file we created (only if it is a socket). */
export function removeSocket(endpoint: string): void {
  if (process.platform === 'win32') return;
  try {
    if (lstatSync(endpoint).isSocket()) unlinkSync(endpoint);
  } catch {
    // already gone
  }
}
