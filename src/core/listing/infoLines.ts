// What one line of a session file does to its list row (pi's buildSessionInfo: name, first message,
// message count, newest activity), worked out on the line's bytes: a message line is recognised by its
// head and validated without being parsed (pi skips a line JSON.parse rejects, so it must not count),
// its time read from its tail; a line of another type is skipped unless JSON.parse could make it a
// message or a name. Only the header, names and the first user messages are parsed.
import { MESSAGE_CONTENT, wasmMessageLine } from '../scan/jsonScanWasm.js';
import { scanValue } from '../scan/jsonValid.js';
import { isBlank, parseLine } from '../format/jsonl.js';
import { parseMessageHead, readHead, roleCodeOf, same, scanLine } from '../scan/lineHead.js';
import type { LineScan } from '../scan/scanResult.js';
import type { SessionHeader } from '../format/types.js';
import { headerOf } from '../index/sessionHeader.js';
import { asText } from '../format/values.js';

export interface ScanState {
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
  /** A fork's creation time (ms; its own messages are written after it); NaN for other sessions. */
  forkTime: number;
  /** Why something was skipped (the first such thing), for a diagnostic. */
  note?: string;
}

export function newScanState(): ScanState {
  return {
    header: null,
    invalid: false,
    offset: 0,
    nextLine: 1,
    messageCount: 0,
    firstMessage: '',
    name: undefined,
    lastActivity: undefined,
    forkTime: NaN,
  };
}

const USER = 1; // ROLE_NAMES codes
const ASSISTANT = 2;

type Obj = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => (b as Obj)?.type === 'text')
    .map((b) => asText((b as Obj).text))
    .join(' ');
}

function applyParsed(st: ScanState, v: unknown): void {
  if (!st.header) {
    const header = headerOf(v);
    if (header) {
      st.header = header;
      st.forkTime = typeof header.parentSession === 'string' ? Date.parse(asText(header.timestamp)) : NaN;
    } else if (header === null) st.invalid = true;
    return;
  }
  if (!v || typeof v !== 'object') return; // pi skips falsy values (null, 0, false, "") and other values are no entry
  const e = v as Obj;
  if (e.type === 'session_info') {
    st.name = (typeof e.name === 'string' ? e.name.trim() : '') || undefined;
    const t = Date.parse(asText(e.timestamp));
    st.nameTime = Number.isNaN(t) ? undefined : t;
    return;
  }
  if (e.type !== 'message') return;
  st.messageCount++;
  const m = e.message as Obj | undefined;
  if (!m || typeof m.role !== 'string' || !('content' in m)) return;
  if (m.role !== 'user' && m.role !== 'assistant') return;
  const t = typeof m.timestamp === 'number' ? m.timestamp : Date.parse(asText(e.timestamp));
  if (!Number.isNaN(t)) st.lastActivity = Math.max(st.lastActivity ?? 0, t);
  if (!st.firstMessage && m.role === 'user') st.firstMessage = textOf(m.content);
  // When the entry was written (a fork keeps its copied entries' times), not the message's own time.
  else if (m.role === 'user' && wantsOwn(st, Date.parse(asText(e.timestamp)))) st.ownFirst = textOf(m.content);
}

/** A fork still without a message of its own, and a user message at `time` written after the fork. */
function wantsOwn(st: ScanState, time: number): boolean {
  return st.ownFirst === undefined && time >= st.forkTime;
}

/** One complete line `buf[start…end)`; `line`: the line scanner's struct, the caller's. */
export function ingest(st: ScanState, buf: Buffer, start: number, end: number, line: LineScan): void {
  if (st.invalid || isBlank(buf, start, end)) return;
  if (st.header) {
    // Validated like the reader's fast path: a damaged line pi would skip is not counted.
    const kind = messageKind(buf, start, end, line);
    if (kind >= 0) {
      const role = kind & 15;
      // Only user/assistant lines can carry a shown value; others are just counted.
      if (role !== USER && role !== ASSISTANT) {
        st.messageCount++;
        return;
      }
      if (
        kind & MESSAGE_CONTENT &&
        (role === ASSISTANT || (st.firstMessage && !ownFirstAt(st, buf, start, end, line)))
      ) {
        const t = tailTime(buf, start, end);
        if (t >= 0) {
          st.messageCount++;
          st.lastActivity = Math.max(st.lastActivity ?? 0, t);
          return;
        }
      }
    } else if (otherType(buf, start, end, line)) return;
  }
  applyParsed(st, parseLine(buf.subarray(start, end)));
}

/**
 * A message line in pi's shape that JSON.parse accepts: its role code (ROLE_NAMES; 0 for another role)
 * | MESSAGE_CONTENT when the message has a "content" key; -1 for any other line. Decided in WebAssembly
 * for a listing's read buffers, else in JavaScript.
 */
function messageKind(buf: Buffer, start: number, end: number, line: LineScan): number {
  const w = wasmMessageLine(buf, start, end);
  if (w !== undefined) return w;
  if (!scanLine(buf, start, end, false, line)) return -1;
  return Math.max(0, roleCodeOf(buf, line)) | (line.message.hasContent ? MESSAGE_CONTENT : 0);
}

/** Whether the user message line `buf[start…end)` would be a fork's own first message (by its entry time). */
function ownFirstAt(st: ScanState, buf: Buffer, start: number, end: number, line: LineScan): boolean {
  return (
    st.ownFirst === undefined &&
    !Number.isNaN(st.forkTime) &&
    readHead(buf, start, end, line) &&
    wantsOwn(st, line.time)
  );
}

const TYPE_PREFIX = '{"type":"';

/**
 * Whether a line is sure to be of a type a row ignores: JSON.parse rejects it, or it is an object
 * whose one "type" key (spelled plainly first) is neither "message" nor "session_info".
 */
function otherType(b: Buffer, start: number, end: number, line: LineScan): boolean {
  const from = start + TYPE_PREFIX.length;
  if (!same(b, start, Math.min(end, from), TYPE_PREFIX)) return false;
  let q = from;
  while (q < end && b[q] !== 0x22 && b[q] !== 0x5c) q++; // a type with an escape may decode to anything
  if (q >= end || b[q] !== 0x22 || same(b, from, q, 'message') || same(b, from, q, 'session_info')) return false;
  const keys = line.message;
  const e = scanValue(b, start, end, keys);
  if (e < 0 || !isBlank(b, e, end)) return true; // JSON.parse rejects it: pi skips it too
  return keys.type === 1 && !keys.escaped;
}

const TS_KEY = '"timestamp":';

/**
 * The message time at the end of a validated message line ending `"timestamp":<digits>}}`: the last
 * key of the message object (so the one JSON.parse keeps); -1 when the line does not end that way.
 */
export function tailTime(b: Buffer, start: number, end: number): number {
  let e = end;
  while (e > start && (b[e - 1] === 0x20 || b[e - 1] === 0x09 || b[e - 1] === 0x0d)) e--;
  if (e - start < TS_KEY.length + 3 || b[e - 1] !== 0x7d || b[e - 2] !== 0x7d) return -1;
  const digitsEnd = e - 2;
  let d = digitsEnd;
  let v = 0;
  while (d > start && b[d - 1] >= 0x30 && b[d - 1] <= 0x39) d--;
  const n = digitsEnd - d;
  if (n < 1 || n > 16 || d - TS_KEY.length < start || !same(b, d - TS_KEY.length, d, TS_KEY)) return -1;
  if (n > 15) return Number(b.toString('latin1', d, digitsEnd)); // past 2^53: rounded as Number() does
  for (let k = d; k < digitsEnd; k++) v = v * 10 + b[k] - 0x30;
  return v;
}

/**
 * A line too long to assemble: a message is still counted (its head says so) and dated by its tail;
 * the first user message's text is decoded from the head. Anything else is skipped with a note.
 */
export function ingestOversize(st: ScanState, head: Buffer, tail: Buffer, lineNo: number, length: number): void {
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
  const t = tailTime(tail, 0, tail.length);
  const time = t >= 0 ? t : h.time;
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
