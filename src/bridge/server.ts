// The bridge's socket: authenticated JSON-line requests in, one reply per request out, events pushed
// to connections that subscribed. It knows nothing about pi: `handle` does the work.
import { createHash, timingSafeEqual } from 'node:crypto';
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { LineSplitter } from '../core/bridge/framing.js';
import { MAX_LINE_BYTES, parseRequest, type BridgeErrorCode, type BridgeEvent, type BridgeRequest } from '../core/bridge/protocol.js';

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
}

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
    const conn: Conn = { socket, subscribed: false, inFlight: 0 };
    this.conns.add(conn);
    const splitter = new LineSplitter(
      MAX_LINE_BYTES,
      (line) => this.onLine(conn, line),
      () => this.refuse(conn, null, 'too-large', `a request line is longer than ${MAX_LINE_BYTES} bytes`),
    );
    socket.on('data', (d: Buffer) => splitter.push(d));
    socket.on('error', () => {});
    socket.on('close', () => this.conns.delete(conn));
  }

  private onLine(conn: Conn, line: string): void {
    const parsed = parseRequest(line, this.tokenOk);
    if (!parsed.ok) {
      if (parsed.fatal) this.refuse(conn, parsed.id, parsed.code, parsed.error);
      else this.send(conn, { id: parsed.id, ok: false, code: parsed.code, error: parsed.error });
      return;
    }
    const req = parsed.request;
    if (this.closing) {
      this.send(conn, { id: req.id, ok: false, code: 'closing', error: 'pi is leaving this session' });
      return;
    }
    conn.inFlight++;
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
    if (conn.socket.writable) conn.socket.write(`${JSON.stringify(msg)}\n`);
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
