// The facts a session list shows (pi's SessionInfo: name, first message, message count, created,
// modified, parent session), read without parsing every line: message lines are recognised by their
// head, only the few lines that carry a shown value are parsed. The scan state is kept so that a file
// that grew is read from where the last scan stopped. Memory per file is bounded: lines longer than
// INFO_LINE_BYTES are never assembled; a row reads what it needs from their first and last bytes.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { FileSource, NotRegularFileError, type ByteSource } from './byteSource.js';
import { isBlank, parseLine, scanSource } from './jsonl.js';
import { parseMessageHead } from './lineHead.js';
import type { SessionHeader } from './types.js';

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

interface ScanState {
  header: SessionHeader | null;
  /** true once the first parsed line turned out not to be a header. */
  invalid: boolean;
  offset: number;
  nextLine: number;
  messageCount: number;
  firstMessage: string;
  ownFirst?: string;
  name: string | undefined;
  nameTime?: number;
  lastActivity: number | undefined;
  /** Why something was skipped (the first such thing), for a diagnostic. */
  note?: string;
}

const TAIL_TS = /"timestamp":(\d{1,16})\}\}\s*$/;
/** Longest line a listing assembles; longer ones are read from their head and tail only. */
export const INFO_LINE_BYTES = 64 * 1024;
/** Read size of a listing's scan: two of these per file being read. */
const INFO_CHUNK = 256 * 1024;

type Obj = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => (b as Obj)?.type === 'text')
    .map((b) => String((b as Obj).text))
    .join(' ');
}

function applyParsed(st: ScanState, v: unknown): void {
  if (!v || typeof v !== 'object') return;
  const e = v as Obj;
  if (!st.header) {
    if (e.type === 'session' && typeof e.id === 'string') st.header = e as SessionHeader;
    else st.invalid = true;
    return;
  }
  if (e.type === 'session_info') {
    st.name = (typeof e.name === 'string' ? e.name.trim() : '') || undefined;
    const t = Date.parse(String(e.timestamp));
    st.nameTime = Number.isNaN(t) ? undefined : t;
    return;
  }
  if (e.type !== 'message') return;
  st.messageCount++;
  const m = e.message as Obj | undefined;
  if (!m || typeof m.role !== 'string' || !('content' in m)) return;
  if (m.role !== 'user' && m.role !== 'assistant') return;
  const t = typeof m.timestamp === 'number' ? m.timestamp : Date.parse(String(e.timestamp));
  if (!Number.isNaN(t)) st.lastActivity = Math.max(st.lastActivity ?? 0, t);
  if (!st.firstMessage && m.role === 'user') st.firstMessage = textOf(m.content);
  // When the entry was written (a fork keeps its copied entries' times), not the message's own time.
  else if (m.role === 'user' && wantsOwn(st, Date.parse(String(e.timestamp)))) st.ownFirst = textOf(m.content);
}

/** A fork still without a message of its own, and a user message at `time` written after the fork. */
function wantsOwn(st: ScanState, time: number): boolean {
  const h = st.header;
  if (!h || typeof h.parentSession !== 'string' || st.ownFirst !== undefined) return false;
  const created = Date.parse(String(h.timestamp));
  return !Number.isNaN(created) && time >= created;
}

function ingest(st: ScanState, buf: Buffer, start: number, end: number): void {
  if (st.invalid || isBlank(buf, start, end)) return;
  if (st.header) {
    // Validated like the reader's fast path: a damaged line pi would skip is not counted.
    const head = parseMessageHead(buf, start, end, undefined, true);
    if (head) {
      const role = head.role;
      // Only user/assistant lines can carry a shown value; others are just counted.
      if (role !== 'user' && role !== 'assistant') {
        st.messageCount++;
        return;
      }
      if (role === 'assistant' || (st.firstMessage && !wantsOwn(st, head.time))) {
        const tail = TAIL_TS.exec(buf.toString('latin1', Math.max(start, end - 48), end));
        if (tail) {
          st.messageCount++;
          st.lastActivity = Math.max(st.lastActivity ?? 0, Number(tail[1]));
          return;
        }
      }
    }
  }
  applyParsed(st, parseLine(buf.subarray(start, end)));
}

/**
 * A line too long to assemble: a message is still counted (its head says so) and dated by its tail;
 * the first user message's text is decoded from the head. Anything else is skipped with a note.
 */
function ingestOversize(st: ScanState, head: Buffer, tail: Buffer, lineNo: number, length: number): void {
  if (st.invalid) return;
  if (!st.header) {
    st.invalid = true;
    st.note ??= `line ${lineNo} (${length} bytes) is too long for a session header`;
    return;
  }
  const h = parseMessageHead(head, 0, head.length);
  if (!h) {
    st.note ??= `line ${lineNo} (${length} bytes) was skipped: too long to read for a list row`;
    return;
  }
  st.messageCount++;
  if (h.role !== 'user' && h.role !== 'assistant') return;
  const t = TAIL_TS.exec(tail.toString('latin1'));
  const time = t ? Number(t[1]) : h.time;
  if (time > 0) st.lastActivity = Math.max(st.lastActivity ?? 0, time);
  if (!st.firstMessage && h.role === 'user') st.firstMessage = textPrefix(head, h.messageStart);
  else if (h.role === 'user' && wantsOwn(st, h.time)) st.ownFirst = textPrefix(head, h.messageStart);
}

/** The start of the first text of a message whose line was cut at the end of `head`. */
export function textPrefix(head: Buffer, from: number): string {
  const s = head.toString('utf8', from);
  const m = /"(?:content|text)":"/.exec(s);
  if (!m) return '';
  let i = m.index + m[0].length;
  let out = '';
  for (; i < s.length && s[i] !== '"'; i++) {
    if (s[i] !== '\\') {
      out += s[i];
      continue;
    }
    const esc = s.slice(i, i + 6);
    const one = /^\\(["\\/bfnrt]|u[0-9a-fA-F]{4})/.exec(esc);
    if (!one) break; // cut inside an escape
    out += JSON.parse(`"${one[0]}"`) as string;
    i += one[0].length - 1;
  }
  return out.replace(/\uFFFD$/, '');
}

export class SessionInfoCache {
  private readonly states = new Map<string, { size: number; mtimeMs: number; st: ScanState; info: SessionInfo | null }>();

  /** Why the last get() of each path gave null or skipped part of the file, when worth telling. */
  readonly problems = new Map<string, string>();

  /** Info for one file, reading only what changed since the last call. null = not a pi session. */
  async get(path: string, signal?: AbortSignal): Promise<SessionInfo | null> {
    const small = readSmall(path);
    if (small) return this.scan(path, small, signal);
    let src: FileSource | undefined;
    try {
      // Opened without blocking (a FIFO named *.jsonl must not hang the listing); fstat gives size and mtime.
      src = await FileSource.open(path);
    } catch (e) {
      this.states.delete(path);
      if (e instanceof NotRegularFileError) this.problems.set(path, e.message);
      else this.problems.delete(path);
      return null;
    }
    try {
      return await this.scan(path, src, signal);
    } finally {
      await src.close();
    }
  }

  private async scan(path: string, src: ByteSource & { stat(): Promise<Stats> }, signal?: AbortSignal): Promise<SessionInfo | null> {
    const s = await src.stat();
    const cached = this.states.get(path);
    if (cached && cached.size === s.size && cached.mtimeMs === s.mtimeMs) return cached.info;
    const st: ScanState =
      cached && s.size >= cached.size && cached.st.header
        ? { ...cached.st }
        : { header: null, invalid: false, offset: 0, nextLine: 1, messageCount: 0, firstMessage: '', name: undefined, lastActivity: undefined };
    // `shown` also counts an unterminated last line; `st` (what is resumed later) does not, so the
    // line is counted once it is complete.
    let shown = st;
    try {
      const r = await scanSource(src, (buf, start, end) => ingest(st, buf, start, end), {
        from: st.offset,
        firstLine: st.nextLine,
        signal,
        until: s.size,
        size: s.size,
        maxLineBytes: INFO_LINE_BYTES,
        oversizeHeadBytes: INFO_LINE_BYTES,
        chunkBytes: INFO_CHUNK,
        onOversize: (lineNo, _offset, length, head, tail) => ingestOversize(st, head, tail, lineNo, length),
      });
      st.offset = r.endOffset;
      st.nextLine = r.nextLine;
      if (r.tail.length) {
        shown = { ...st };
        ingest(shown, r.tail, 0, r.tail.length);
      }
    } catch (e) {
      if (signal?.aborted) throw e;
      this.states.set(path, { size: s.size, mtimeMs: s.mtimeMs, st, info: null });
      this.problems.set(path, `could not be read (${e instanceof Error ? e.message : String(e)})`);
      return null;
    }
    const info = shown.header && !shown.invalid ? toInfo(path, shown, s.size, s.mtimeMs, s.mtime) : null;
    if (shown.note) this.problems.set(path, shown.note);
    else this.problems.delete(path);
    this.states.set(path, { size: s.size, mtimeMs: s.mtimeMs, st, info });
    return info;
  }

  /**
   * The info of `path` when it was read at this size and mtime (so nothing changed since): no file is
   * opened. undefined when it must be read (new, changed, or never read).
   */
  peek(path: string, size: number, mtimeMs: number): SessionInfo | null | undefined {
    const cached = this.states.get(path);
    return cached && cached.size === size && cached.mtimeMs === mtimeMs ? cached.info : undefined;
  }

  forget(path: string): void {
    this.states.delete(path);
    this.problems.delete(path);
  }
}

/** Files up to this size are read in one go, synchronously (most sessions are small). */
const SMALL_FILE = 256 * 1024;

/**
 * A small regular file read whole with four system calls (open without blocking, fstat, read, close):
 * listing thousands of sessions then costs no round trips through libuv's pool. Undefined for anything
 * else (bigger, not regular, unreadable): the caller streams it and reports why it cannot.
 */
function readSmall(path: string): (ByteSource & { stat(): Promise<Stats> }) | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > SMALL_FILE) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    let n = 0;
    while (n < buf.length) {
      const r = readSync(fd, buf, n, buf.length - n, n);
      if (r === 0) break;
      n += r;
    }
    // What was read is the file as seen (it may have shrunk in between): its size is the bytes read.
    const bytes = buf.subarray(0, n);
    const seen = Object.assign(Object.create(Object.getPrototypeOf(st) as object) as Stats, st, { size: n });
    return {
      size: async () => n,
      read: async (b, offset, length, position) => (position >= n ? 0 : bytes.copy(b, offset, position, Math.min(n, position + length))),
      close: async () => {},
      stat: async () => seen,
    };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function toInfo(path: string, st: ScanState, size: number, mtimeMs: number, mtime: Date): SessionInfo {
  const h = st.header!;
  const headerTime = typeof h.timestamp === 'string' ? new Date(h.timestamp).getTime() : NaN;
  const modified = typeof st.lastActivity === 'number' && st.lastActivity > 0 ? new Date(st.lastActivity) : !Number.isNaN(headerTime) ? new Date(headerTime) : mtime;
  return {
    path,
    id: h.id,
    cwd: typeof h.cwd === 'string' ? h.cwd : '',
    name: st.name,
    nameTime: st.name !== undefined ? st.nameTime : undefined,
    parentSessionPath: typeof h.parentSession === 'string' ? h.parentSession : undefined,
    created: new Date(h.timestamp),
    modified,
    messageCount: st.messageCount,
    firstMessage: st.firstMessage || '(no messages)',
    ownFirstMessage: st.ownFirst || undefined,
    size,
    mtimeMs,
    version: (h.version ?? 1) as number,
  };
}
