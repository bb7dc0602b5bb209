// The facts a session list shows (pi's SessionInfo: name, first message, message count, created,
// modified, parent session), read without parsing every line: message lines are recognised by their
// head, only the few lines that carry a shown value are parsed. The scan state is kept so that a file
// that grew is read from where the last scan stopped.
import { stat } from 'node:fs/promises';
import { FileSource } from './byteSource.js';
import { isBlank, parseLine, scanSource } from './jsonl.js';
import { parseMessageHead } from './lineHead.js';
import type { SessionHeader } from './types.js';

export interface SessionInfo {
  path: string;
  id: string;
  cwd: string;
  name?: string;
  parentSessionPath?: string;
  created: Date;
  /** Newest user/assistant message time, else the header time, else the file's mtime (as pi). */
  modified: Date;
  messageCount: number;
  firstMessage: string;
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
  name: string | undefined;
  lastActivity: number | undefined;
}

const TAIL_TS = /"timestamp":(\d{1,16})\}\}\s*$/;

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
}

function ingest(st: ScanState, buf: Buffer, start: number, end: number): void {
  if (st.invalid || isBlank(buf, start, end)) return;
  if (st.header) {
    const head = parseMessageHead(buf, start, end);
    if (head) {
      const role = head.role;
      // Only user/assistant lines can carry a shown value; others are just counted.
      if (role !== 'user' && role !== 'assistant') {
        st.messageCount++;
        return;
      }
      if (role === 'assistant' || st.firstMessage) {
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

export class SessionInfoCache {
  private readonly states = new Map<string, { size: number; mtimeMs: number; st: ScanState; info: SessionInfo | null }>();

  /** Info for one file, reading only what changed since the last call. null = not a pi session. */
  async get(path: string, signal?: AbortSignal): Promise<SessionInfo | null> {
    let s;
    try {
      s = await stat(path);
    } catch {
      this.states.delete(path);
      return null;
    }
    const cached = this.states.get(path);
    if (cached && cached.size === s.size && cached.mtimeMs === s.mtimeMs) return cached.info;
    const st: ScanState =
      cached && s.size >= cached.size && cached.st.header
        ? { ...cached.st }
        : { header: null, invalid: false, offset: 0, nextLine: 1, messageCount: 0, firstMessage: '', name: undefined, lastActivity: undefined };
    // `shown` also counts an unterminated last line; `st` (what is resumed later) does not, so the
    // line is counted once it is complete.
    let shown = st;
    let src: FileSource | undefined;
    try {
      src = await FileSource.open(path);
      const r = await scanSource(src, (buf, start, end) => ingest(st, buf, start, end), { from: st.offset, firstLine: st.nextLine, signal, until: s.size });
      st.offset = r.endOffset;
      st.nextLine = r.nextLine;
      if (r.tail.length) {
        shown = { ...st };
        ingest(shown, r.tail, 0, r.tail.length);
      }
    } catch (e) {
      if (signal?.aborted) throw e;
      this.states.set(path, { size: s.size, mtimeMs: s.mtimeMs, st, info: null });
      return null;
    } finally {
      await src?.close();
    }
    const info = shown.header && !shown.invalid ? toInfo(path, shown, s.size, s.mtimeMs, s.mtime) : null;
    this.states.set(path, { size: s.size, mtimeMs: s.mtimeMs, st, info });
    return info;
  }

  forget(path: string): void {
    this.states.delete(path);
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
    parentSessionPath: typeof h.parentSession === 'string' ? h.parentSession : undefined,
    created: new Date(h.timestamp),
    modified,
    messageCount: st.messageCount,
    firstMessage: st.firstMessage || '(no messages)',
    size,
    mtimeMs,
    version: (h.version ?? 1) as number,
  };
}
