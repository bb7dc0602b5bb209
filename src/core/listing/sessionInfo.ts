// The facts a session list shows (pi's SessionInfo: name, first message, message count, created,
// modified, parent session), read without parsing every line (core/infoLines.ts) through one reused
// buffer (core/infoRead.ts). The scan state is kept so that a file that grew is read from where the
// last scan stopped. Memory per file is bounded: lines longer than INFO_LINE_BYTES are never
// assembled; a row reads what it needs from their first and last bytes.
import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { fileKind, NotRegularFileError } from '../index/byteSource.js';
import { ingest, ingestOversize, newScanState, type ScanState } from './infoLines.js';
import { LineScan } from '../scan/scanResult.js';
import { readLines } from './infoRead.js';

export interface SessionInfo {
  path: string;
  id: string;
  cwd: string;
  name?: string;
  /** Time (ms) of the session_info entry that set `name` (a fork's inherited name is older than the fork). */
  nameTime?: number;
  parentSessionPath?: string;
  created: Date;
  /** Newest user/assistant message time, else the header time, else the file's mtime (as pi). */
  modified: Date;
  messageCount: number;
  firstMessage: string;
  /** A fork's first user message of its own (written after it was forked), if any yet. */
  ownFirstMessage?: string;
  /** File size and mtime when read (the cache key). */
  size: number;
  mtimeMs: number;
  version: number;
}

/** What pi lists as the first message of a session that has no user message. */
export const NO_MESSAGES = '(no messages)';

/** Longest line a listing assembles; longer ones are read from their head and tail only. */
export const INFO_LINE_BYTES = 64 * 1024;

export class SessionInfoCache {
  /** checkedAt: when the file was last seen at this size and mtime (performance.now(), taken before the stat). */
  private readonly states = new Map<
    string,
    { size: number; mtimeMs: number; st: ScanState; info: SessionInfo | null; checkedAt: number }
  >();

  /** Why the last get() of each path gave null or skipped part of the file, when worth telling. */
  readonly problems = new Map<string, string>();

  /**
   * Info for one file, reading only what changed since the last call. null = not a pi session. The
   * file is opened without blocking (a FIFO named *.jsonl must not hang the listing) and read with
   * synchronous calls, in slices that give the event loop its turns.
   */
  async get(path: string, signal?: AbortSignal): Promise<SessionInfo | null> {
    let fd: number;
    let s: Stats;
    const at = performance.now();
    try {
      fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    } catch {
      this.forget(path); // gone or unreadable
      return null;
    }
    try {
      try {
        s = fstatSync(fd);
      } catch {
        this.forget(path);
        return null;
      }
      if (!s.isFile()) {
        this.states.delete(path);
        this.problems.set(path, new NotRegularFileError(path, fileKind(s)).message);
        return null;
      }
      return await this.scan(path, fd, s, at, signal);
    } finally {
      closeSync(fd);
    }
  }

  private async scan(
    path: string,
    fd: number,
    s: Stats,
    at: number,
    signal?: AbortSignal,
  ): Promise<SessionInfo | null> {
    const cached = this.states.get(path);
    if (cached && cached.size === s.size && cached.mtimeMs === s.mtimeMs) {
      cached.checkedAt = at;
      return cached.info;
    }
    const st: ScanState = cached && s.size >= cached.size && cached.st.header ? { ...cached.st } : newScanState();
    // `shown` also counts an unterminated last line; `st` (what is resumed later) does not, so the
    // line is counted once it is complete.
    let shown = st;
    let size: number;
    const line = new LineScan();
    try {
      const r = await readLines(
        fd,
        st.offset,
        s.size,
        st.nextLine,
        INFO_LINE_BYTES,
        {
          line: (buf, start, end) => ingest(st, buf, start, end, line),
          oversize: (head, tail, lineNo, length) => ingestOversize(st, head, tail, lineNo, length),
        },
        signal,
      );
      st.offset = r.endOffset;
      st.nextLine = r.nextLine;
      // What was read is the file as seen (it may have shrunk meanwhile): a next listing reads it again.
      size = r.size;
      if (r.tail.length) {
        shown = { ...st };
        ingest(shown, r.tail, 0, r.tail.length, line);
      }
    } catch (e) {
      if (signal?.aborted) throw e;
      this.states.set(path, { size: s.size, mtimeMs: s.mtimeMs, st, info: null, checkedAt: at });
      this.problems.set(path, `could not be read (${e instanceof Error ? e.message : String(e)})`);
      return null;
    }
    const info = shown.header && !shown.invalid ? toInfo(path, shown, size, s.mtimeMs, s.mtime) : null;
    if (shown.note) this.problems.set(path, shown.note);
    else this.problems.delete(path);
    // A file that shrank while it was read is not known at any size: it is read again next time.
    this.states.set(path, { size, mtimeMs: s.mtimeMs, st, info, checkedAt: size === s.size ? at : -Infinity });
    return info;
  }

  /** Whether `path` was read before (so a stat can tell whether its row is still right). */
  has(path: string): boolean {
    return this.states.has(path);
  }

  /**
   * The info of `path` when it was read at this size and mtime (so nothing changed since): no file is
   * opened. undefined when it must be read (new, changed, or never read).
   */
  peek(path: string, size: number, mtimeMs: number, statAt = performance.now()): SessionInfo | null | undefined {
    const cached = this.states.get(path);
    if (!cached || cached.size !== size || cached.mtimeMs !== mtimeMs) return undefined;
    cached.checkedAt = statAt;
    return cached.info;
  }

  /**
   * The cached info of `path` without a stat, when `unchanged` vouches that the file did not change
   * since it was last checked (a folder watcher saw no change); undefined otherwise.
   */
  known(path: string, unchanged: (path: string, checkedAt: number) => boolean): SessionInfo | null | undefined {
    const cached = this.states.get(path);
    return cached && unchanged(path, cached.checkedAt) ? cached.info : undefined;
  }

  forget(path: string): void {
    this.states.delete(path);
    this.problems.delete(path);
  }
}

function toInfo(path: string, st: ScanState, size: number, mtimeMs: number, mtime: Date): SessionInfo {
  const h = st.header!;
  const headerTime = typeof h.timestamp === 'string' ? new Date(h.timestamp).getTime() : NaN;
  // (a time past what a Date holds, e.g. nanoseconds, counts as none: an Invalid Date stops a listing)
  const activity = typeof st.lastActivity === 'number' && st.lastActivity > 0 ? new Date(st.lastActivity) : undefined;
  const modified =
    activity && !Number.isNaN(activity.getTime()) ? activity : !Number.isNaN(headerTime) ? new Date(headerTime) : mtime;
  return {
    path,
    id: h.id,
    cwd: typeof h.cwd === 'string' ? h.cwd : '',
    name: st.name,
    nameTime: st.name !== undefined ? st.nameTime : undefined,
    parentSessionPath: typeof h.parentSession === 'string' ? h.parentSession : undefined,
    created: Number.isNaN(headerTime) ? mtime : new Date(headerTime),
    modified,
    messageCount: st.messageCount,
    firstMessage: st.firstMessage || NO_MESSAGES,
    ownFirstMessage: st.ownFirst || undefined,
    size,
    mtimeMs,
    version: (h.version ?? 1) as number,
  };
}
