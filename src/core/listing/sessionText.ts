// All the message text of a session, for filtering session lists as pi's /resume does (it searches
// every user and assistant message, not only the first). Read as a stream, never a whole file at once;
// kept per file with the scan's offset, so a session that grew is read from where the last read
// stopped; bounded: each session keeps at most PER_SESSION characters and the cache as a whole at most
// TOTAL (least recently used sessions go first). Nothing is read until a filter asks.
import { FileSource } from '../index/byteSource.js';
import { isBlank, parseLine, scanSource } from '../format/jsonl.js';
import { parseMessageHead } from '../scan/lineHead.js';
import { textPrefix } from './infoLines.js';

/** Characters of message text kept per session (pi keeps all; a few MB of text find the same sessions). */
export const PER_SESSION = 2_000_000;
/** Characters kept over all sessions (about twice that in bytes). */
export const TOTAL = 48_000_000;
/** Longest line parsed whole; longer ones give the text at their start (the first 64 KiB). */
const LINE_MAX = 4 * 1024 * 1024;
const HEAD = 64 * 1024;

type Obj = Record<string, unknown>;

/** A session's message text as a filter uses it (the lowercase form made once, on first use). */
export class SearchText {
  private low: string | undefined;
  private normed: string | undefined;
  constructor(readonly raw: string) {}
  get lower(): string {
    return (this.low ??= this.raw.toLowerCase());
  }
  /** Lowercase with runs of whitespace as one space (for "quoted phrases"). */
  get normalized(): string {
    return (this.normed ??= this.lower.replace(/\s+/g, ' ').trim());
  }
}

interface Entry {
  size: number;
  mtimeMs: number;
  /** Offset after the last complete line read, and the line number there. */
  offset: number;
  nextLine: number;
  parts: string[];
  length: number;
  text: SearchText | undefined;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => (b as Obj)?.type === 'text' && typeof (b as Obj).text === 'string')
    .map((b) => (b as Obj).text as string)
    .join(' ');
}

export class SessionTextIndex {
  private readonly entries = new Map<string, Entry>();
  private total = 0;

  constructor(
    private readonly limits: { perSession: number; total: number } = { perSession: PER_SESSION, total: TOTAL },
  ) {}

  /** Characters held now (for tests and the log). */
  get size(): number {
    return this.total;
  }

  /** The message text of `path` (user and assistant text blocks, joined by spaces, as pi's allMessagesText). */
  async get(path: string, signal?: AbortSignal): Promise<SearchText> {
    const src = await FileSource.open(path);
    try {
      const s = await src.stat();
      let e = this.entries.get(path);
      if (e && e.size === s.size && e.mtimeMs === s.mtimeMs) {
        this.touch(path, e);
        return (e.text ??= new SearchText(e.parts.join(' ')));
      }
      // Sessions only grow; anything else (shorter, rewritten by a migration) is read again.
      if (!e || s.size < e.size) {
        if (e) this.drop(path, e);
        e = { size: 0, mtimeMs: 0, offset: 0, nextLine: 1, parts: [], length: 0, text: undefined };
      }
      const entry = e;
      let header = entry.offset > 0;
      const add = (t: string) => {
        if (!t) return;
        const room = this.limits.perSession - entry.length;
        if (room <= 0) return;
        const piece = t.length > room ? t.slice(0, room) : t;
        entry.parts.push(piece);
        entry.length += piece.length + 1;
        this.total += piece.length + 1;
      };
      const r = await scanSource(
        src,
        (buf, start, end) => {
          if (isBlank(buf, start, end)) return;
          if (!header) {
            header = true;
            return;
          }
          const head = parseMessageHead(buf, start, end);
          if (head && head.role !== 'user' && head.role !== 'assistant') return;
          if (!head) {
            const at = buf.indexOf('"type":"message"', start);
            if (at < 0 || at >= end) return;
          }
          const v = parseLine(buf.subarray(start, end)) as Obj | undefined;
          const m = v?.type === 'message' ? (v.message as Obj | undefined) : undefined;
          if (m && (m.role === 'user' || m.role === 'assistant')) add(textOf(m.content));
        },
        {
          from: entry.offset,
          firstLine: entry.nextLine,
          signal,
          until: s.size,
          size: s.size,
          maxLineBytes: LINE_MAX,
          oversizeHeadBytes: HEAD,
          onOversize: (_line, _offset, _length, headBuf) => {
            const h = parseMessageHead(headBuf, 0, headBuf.length);
            if (h && (h.role === 'user' || h.role === 'assistant')) add(textPrefix(headBuf, h.messageStart));
          },
        },
      );
      entry.offset = r.endOffset;
      entry.nextLine = r.nextLine;
      entry.size = s.size;
      entry.mtimeMs = s.mtimeMs;
      entry.text = undefined;
      this.entries.set(path, entry);
      this.touch(path, entry);
      this.evict(path);
      return (entry.text = new SearchText(entry.parts.join(' ')));
    } finally {
      await src.close();
    }
  }

  /** The text held for `path` without reading (undefined when it was never read or was evicted). */
  peek(path: string): SearchText | undefined {
    const e = this.entries.get(path);
    return e ? (e.text ??= new SearchText(e.parts.join(' '))) : undefined;
  }

  forget(path: string): void {
    const e = this.entries.get(path);
    if (e) this.drop(path, e);
  }

  private touch(path: string, e: Entry): void {
    // Map order is the use order: re-inserting makes it the most recent.
    this.entries.delete(path);
    this.entries.set(path, e);
  }

  private drop(path: string, e: Entry): void {
    this.entries.delete(path);
    this.total -= e.length;
  }

  /** Oldest sessions go until the total fits (the one just read stays). */
  private evict(keep: string): void {
    for (const [p, e] of this.entries) {
      if (this.total <= this.limits.total) return;
      if (p !== keep) this.drop(p, e);
    }
  }
}
