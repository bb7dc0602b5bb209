// Reads the head of a message line as pi writes it — {"type":"message","id":…,"parentId":…,
// "timestamp":…,"message":{"role":… — straight from the bytes, without decoding or parsing the line.
// This is what makes opening a 100k-entry session cheap; any other shape falls back to JSON.parse.
// Every function fills a LineScan (scanResult.ts): the caller's, or, for those that return what they
// read, a scratch one of this module's, used within the call only.
import { wasmHead } from './jsonScanWasm.js';
import { scanValue } from './jsonValid.js';
import { LineScan, type Notes } from './scanResult.js';
import { hexKeyAt } from '../index/idKeys.js';
import { F_CONTENT, F_FAST, ROLE_NAMES, type EntryRecord, type SessionIndex } from '../index/sessionIndex.js';

const P_TYPE = Buffer.from('{"type":"message","id":"');
const P_PARENT = Buffer.from(',"parentId":');
const P_TS = Buffer.from(',"timestamp":"');
const P_ROLE = Buffer.from(',"message":{"role":"');
const NULL = Buffer.from('null');

// One string per role for the whole index instead of one per line (100k lines → a handful of strings),
// found by comparing bytes, so that no string is made per line either.
const ROLES: string[] = [
  'user',
  'assistant',
  'toolResult',
  'system',
  'bashExecution',
  'custom',
  'branchSummary',
  'compactionSummary',
];
function roleAt(b: Buffer, from: number, to: number): string {
  for (let k = 0; k < ROLES.length; k++) if (same(b, from, to, ROLES[k])) return ROLES[k];
  const s = b.toString('latin1', from, to);
  if (ROLES.length < 64) ROLES.push(s);
  return s;
}

export interface MessageHead {
  id: string;
  parentId: string | null;
  time: number;
  role: string;
  /** Index in the buffer of the `{` that opens the message object. */
  messageStart: number;
}

function at(b: Buffer, pos: number, end: number, lit: Buffer): boolean {
  if (pos + lit.length > end) return false;
  for (let k = 0; k < lit.length; k++) if (b[pos + k] !== lit[k]) return false;
  return true;
}

// [A-Za-z0-9_.:-] (ids), or without '.' and ':' (roles)
function idByte(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    c === 0x2d ||
    c === 0x5f ||
    c === 0x2e ||
    c === 0x3a
  );
}

/** End (index of the closing quote) of a token of id bytes starting at `pos`, or -1. */
function token(b: Buffer, pos: number, lineEnd: number, max: number): number {
  let i = pos;
  const end = Math.min(lineEnd, pos + max + 1);
  while (i < end && idByte(b[i])) i++;
  return i > pos && i < lineEnd && b[i] === 0x22 ? i : -1;
}

const d = (b: Buffer, i: number) => b[i] - 0x30;

const digits = (b: Buffer, from: number, n: number) => {
  for (let k = from; k < from + n; k++) if (b[k] < 0x30 || b[k] > 0x39) return false;
  return true;
};

/**
 * ms of an ISO timestamp `YYYY-MM-DDTHH:MM:SS.sssZ` at `pos..end`, computed from its digits when that
 * gives what Date.parse gives (every field a digit, in Date.parse's ranges, a year Date.UTC does not
 * remap); anything else goes through Date.parse (0 if invalid), as the slow path does.
 */
const hourKey = Buffer.alloc(13);
let hourMs = NaN;

function isoTime(b: Buffer, pos: number, end: number): number {
  if (
    end - pos === 24 &&
    b[pos + 4] === 0x2d &&
    b[pos + 7] === 0x2d &&
    b[pos + 10] === 0x54 &&
    b[pos + 13] === 0x3a &&
    b[pos + 16] === 0x3a &&
    b[pos + 19] === 0x2e &&
    b[pos + 23] === 0x5a &&
    digits(b, pos, 4) &&
    digits(b, pos + 5, 2) &&
    digits(b, pos + 8, 2) &&
    digits(b, pos + 11, 2) &&
    digits(b, pos + 14, 2) &&
    digits(b, pos + 17, 2) &&
    digits(b, pos + 20, 3)
  ) {
    const year = d(b, pos) * 1000 + d(b, pos + 1) * 100 + d(b, pos + 2) * 10 + d(b, pos + 3);
    const month = d(b, pos + 5) * 10 + d(b, pos + 6);
    const day = d(b, pos + 8) * 10 + d(b, pos + 9);
    const hour = d(b, pos + 11) * 10 + d(b, pos + 12);
    const min = d(b, pos + 14) * 10 + d(b, pos + 15);
    const sec = d(b, pos + 17) * 10 + d(b, pos + 18);
    // Date.parse takes days 1–31 in any month (rolling over like Date.UTC), hours 0–23 (24:00 aside).
    if (year >= 100 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && min <= 59 && sec <= 59) {
      // Lines of one session mostly share their date and hour: Date.UTC once per hour, not per line.
      let k = 12;
      while (k >= 0 && b[pos + k] === hourKey[k]) k--;
      if (k >= 0) {
        b.copy(hourKey, 0, pos, pos + 13);
        hourMs = Date.UTC(year, month - 1, day, hour);
      }
      return hourMs + min * 60_000 + sec * 1000 + d(b, pos + 20) * 100 + d(b, pos + 21) * 10 + d(b, pos + 22);
    }
  }
  const t = Date.parse(b.toString('utf8', pos, end));
  return Number.isNaN(t) ? 0 : t;
}

/** True when `b[from…to)` spells `s` (ASCII). */
export function same(b: Buffer, from: number, to: number, s: string): boolean {
  if (to - from !== s.length) return false;
  for (let k = 0; k < s.length; k++) if (b[from + k] !== s.charCodeAt(k)) return false;
  return true;
}

/**
 * Whether `b[start…end)` opens as pi writes a message line (its head, up to the message's role), its
 * fields then in `into`. Only the head is read: the rest of the line is scanLine's.
 */
export function readHead(b: Buffer, start: number, end: number, into: LineScan): boolean {
  // (in the validator's memory, its WebAssembly reads the head: several times faster than this loop)
  const w = wasmHead(b, start, end, into);
  if (w !== undefined) {
    if (w && Number.isNaN(into.time)) into.time = isoTime(b, into.timeStart, into.timeEnd);
    return w;
  }
  if (!at(b, start, end, P_TYPE)) return false;
  let i = start + P_TYPE.length;
  const idEnd = token(b, i, end, 128);
  if (idEnd < 0) return false;
  const idStart = i;
  i = idEnd + 1;
  if (!at(b, i, end, P_PARENT)) return false;
  i += P_PARENT.length;
  let parentStart = -1;
  let parentEnd = -1;
  if (at(b, i, end, NULL)) i += 4;
  else if (b[i] === 0x22) {
    const pEnd = token(b, i + 1, end, 128);
    if (pEnd < 0) return false;
    parentStart = i + 1;
    parentEnd = pEnd;
    i = pEnd + 1;
  } else return false;
  if (!at(b, i, end, P_TS)) return false;
  i += P_TS.length;
  let tsEnd = i;
  while (tsEnd < end && tsEnd - i < 64 && b[tsEnd] !== 0x22 && b[tsEnd] !== 0x5c && b[tsEnd] >= 0x20) tsEnd++;
  if (tsEnd >= end || b[tsEnd] !== 0x22) return false;
  const timeStart = i;
  i = tsEnd + 1;
  if (!at(b, i, end, P_ROLE)) return false;
  const messageStart = i + 11; // after ,"message":
  i += P_ROLE.length;
  const rEnd = token(b, i, end, 64);
  if (rEnd < 0) return false;
  into.idStart = idStart;
  into.idEnd = idEnd;
  into.parentStart = parentStart;
  into.parentEnd = parentEnd;
  into.timeStart = timeStart;
  into.timeEnd = tsEnd;
  into.time = isoTime(b, timeStart, tsEnd);
  into.roleStart = i;
  into.roleEnd = rEnd;
  into.messageStart = messageStart;
  return true;
}

/**
 * The line scanner: whether `b[start…end)` is a message line in pi's shape that JSON.parse accepts with
 * the same fields (readHead's head; then the message object valid JSON with one "role" key, and only the
 * closing brace after it, so that no later duplicate of a head key can override it). What it read is in
 * `into`, the message's keys in `into.message` (with `notes`, what stats or a tree row reads of it too).
 */
export function scanLine(b: Buffer, start: number, end: number, notes: Notes, into: LineScan): boolean {
  if (!readHead(b, start, end, into)) return false;
  const keys = into.message;
  const e = scanValue(b, into.messageStart, end, keys, notes);
  // (the brace within the line: a torn line's next byte may be one)
  if (e < 0 || e >= end || keys.role !== 1 || b[e] !== 0x7d) return false;
  for (let k = e + 1; k < end; k++) {
    const c = b[k];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/** Scratch for the functions below that return what they read (used within one call). */
const scratch = new LineScan();

/**
 * The head of the message line `b[start…end)`, or undefined when it is not in pi's shape.
 * `prevId`: the id of the line before. Most entries hang under the line before them; comparing bytes
 * first saves making a new parent-id string for every line.
 */
export function parseMessageHead(
  b: Buffer,
  start = 0,
  end = b.length,
  prevId?: string,
  wholeLine = false,
): MessageHead | undefined {
  const h = scratch;
  // `wholeLine`: b[start…end) is the whole line, and it must be one JSON.parse accepts.
  if (!(wholeLine ? scanLine(b, start, end, false, h) : readHead(b, start, end, h))) return undefined;
  return {
    id: b.toString('latin1', h.idStart, h.idEnd),
    parentId: parentOf(b, h, prevId),
    time: h.time,
    role: roleAt(b, h.roleStart, h.roleEnd),
    messageStart: h.messageStart,
  };
}

function parentOf(b: Buffer, h: LineScan, prevId: string | undefined): string | null {
  if (h.parentStart < 0) return null;
  return prevId !== undefined && same(b, h.parentStart, h.parentEnd, prevId)
    ? prevId
    : b.toString('latin1', h.parentStart, h.parentEnd);
}

/** The code (ROLE_NAMES) of the role readHead found, when it is a known one, else -1. */
export function roleCodeOf(b: Buffer, h: LineScan): number {
  const from = h.roleStart;
  const to = h.roleEnd;
  let code: number;
  switch (to - from) {
    case 4:
      code = 1; // user
      break;
    case 9:
      code = 2; // assistant
      break;
    case 10:
      code = 3; // toolResult
      break;
    case 6:
      code = b[from] === 0x73 ? 4 : 6; // system, custom
      break;
    case 13:
      code = b[from + 1] === 0x61 ? 5 : 7; // bashExecution, branchSummary
      break;
    case 17:
      code = 8; // compactionSummary
      break;
    default:
      return -1;
  }
  return same(b, from, to, ROLE_NAMES[code]!) ? code : -1;
}

/**
 * The index record of a message line in pi's shape (what parseMessageHead reads, without the garbage),
 * or undefined when the line is not in that shape or not valid JSON (the caller then parses it, and
 * reports it if JSON.parse rejects it too).
 */
export function messageRecord(
  b: Buffer,
  start: number,
  end: number,
  prevId: string | undefined,
  line: number,
  offset: number,
): EntryRecord | undefined {
  const h = scratch;
  if (!scanLine(b, start, end, false, h)) return undefined;
  // Every record is made with all its fields, in this order: one hidden class for all of them.
  return {
    id: b.toString('latin1', h.idStart, h.idEnd),
    parentId: parentOf(b, h, prevId),
    type: 'message',
    time: h.time,
    line,
    offset,
    length: end - start,
    role: roleAt(b, h.roleStart, h.roleEnd),
    entry: undefined,
    parent: undefined,
    seq: 0,
  };
}

/**
 * Fills `index.pending` from a message line in pi's shape and adds it, making no string for an id in
 * pi's shape; false (nothing added) when the line is not in that shape or not valid JSON. What was read
 * of the line is in `scan` (scanLine; with `notes`, what stats or a tree row reads of the message too).
 */
export function commitMessageLine(
  index: SessionIndex,
  b: Buffer,
  start: number,
  end: number,
  line: number,
  offset: number,
  notes: Notes,
  scan: LineScan,
): boolean {
  if (!scanLine(b, start, end, notes, scan)) return false;
  const p = index.pending;
  const k = hexKeyAt(b, scan.idStart, scan.idEnd);
  p.idKey = k;
  p.idStr = k < 0 ? b.toString('latin1', scan.idStart, scan.idEnd) : '';
  if (scan.parentStart < 0) p.parentKind = 0;
  else {
    const pk = hexKeyAt(b, scan.parentStart, scan.parentEnd);
    p.parentKind = pk >= 0 ? 1 : 2;
    p.parentKey = pk;
    p.parentStr = pk >= 0 ? '' : b.toString('latin1', scan.parentStart, scan.parentEnd);
  }
  p.typeCode = 0; // message
  const rc = roleCodeOf(b, scan);
  p.roleCode = rc;
  p.role = rc < 0 ? roleAt(b, scan.roleStart, scan.roleEnd) : undefined;
  p.time = scan.time;
  p.line = line;
  p.offset = offset;
  p.length = end - start;
  p.entry = undefined;
  p.bits = F_FAST | (scan.message.content ? F_CONTENT : 0);
  index.commit();
  return true;
}

/**
 * The bytes of the message object of record `i`'s line `b` (read by the fast path), when pi would
 * put it into a context as stored: for the roles pi normalizes (user, assistant, toolResult, system),
 * only with non-null content. Undefined when the line is not that record's any more.
 */
export function rawMessageOf(b: Buffer, index: SessionIndex, i: number): Buffer | undefined {
  const bits = index.lineBits(i);
  const m = messageStartOf(b, index, i);
  if (m < 0) return undefined;
  const rc = index.roleCodeOf(i);
  if (rc >= 1 && rc <= 4 && !(bits & F_CONTENT)) return undefined;
  let e = b.length - 1;
  while (e > m && (b[e] === 0x20 || b[e] === 0x09 || b[e] === 0x0d)) e--;
  return b[e] === 0x7d ? b.subarray(m, e) : undefined;
}

/**
 * Where the message object of record `i`'s line `b` starts, when the reader validated the line in pi's
 * shape (so its fields can be read from the bytes); -1 otherwise, or when the line is not that record's
 * any more.
 */
export function messageStartOf(b: Buffer, index: SessionIndex, i: number): number {
  const h = scratch;
  if (!(index.lineBits(i) & F_FAST) || !readHead(b, 0, b.length, h)) return -1;
  const key = index.idKeyOf(i);
  if (key >= 0 ? hexKeyAt(b, h.idStart, h.idEnd) !== key : !same(b, h.idStart, h.idEnd, index.idOf(i))) return -1;
  return h.messageStart;
}
