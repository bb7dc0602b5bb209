// Reads the head of a message line as pi writes it — {"type":"message","id":…,"parentId":…,
// "timestamp":…,"message":{"role":… — straight from the bytes, without decoding or parsing the line.
// This is what makes opening a 100k-entry session cheap; any other shape falls back to JSON.parse.
import type { EntryRecord } from './sessionIndex.js';

const P_TYPE = Buffer.from('{"type":"message","id":"');
const P_PARENT = Buffer.from(',"parentId":');
const P_TS = Buffer.from(',"timestamp":"');
const P_ROLE = Buffer.from(',"message":{"role":"');
const NULL = Buffer.from('null');

// One string per role for the whole index instead of one per line (100k lines → a handful of strings),
// found by comparing bytes, so that no string is made per line either.
const ROLES: string[] = ['user', 'assistant', 'toolResult', 'system', 'bashExecution', 'custom', 'branchSummary', 'compactionSummary'];
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
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c === 0x2d || c === 0x5f || c === 0x2e || c === 0x3a;
}

/** End (index of the closing quote) of a token of id bytes starting at `pos`, or -1. */
function token(b: Buffer, pos: number, lineEnd: number, max: number): number {
  let i = pos;
  const end = Math.min(lineEnd, pos + max + 1);
  while (i < end && idByte(b[i])) i++;
  return i > pos && i < lineEnd && b[i] === 0x22 ? i : -1;
}

const d = (b: Buffer, i: number) => b[i] - 0x30;

/** ms of an ISO timestamp `YYYY-MM-DDTHH:MM:SS.sssZ` at `pos..end`, else Date.parse of it (0 if invalid). */
function isoTime(b: Buffer, pos: number, end: number): number {
  if (end - pos === 24 && b[pos + 4] === 0x2d && b[pos + 10] === 0x54 && b[pos + 19] === 0x2e && b[pos + 23] === 0x5a) {
    const year = d(b, pos) * 1000 + d(b, pos + 1) * 100 + d(b, pos + 2) * 10 + d(b, pos + 3);
    const t = Date.UTC(
      year,
      d(b, pos + 5) * 10 + d(b, pos + 6) - 1,
      d(b, pos + 8) * 10 + d(b, pos + 9),
      d(b, pos + 11) * 10 + d(b, pos + 12),
      d(b, pos + 14) * 10 + d(b, pos + 15),
      d(b, pos + 17) * 10 + d(b, pos + 18),
      d(b, pos + 20) * 100 + d(b, pos + 21) * 10 + d(b, pos + 22),
    );
    if (!Number.isNaN(t)) return t;
  }
  const t = Date.parse(b.toString('latin1', pos, end));
  return Number.isNaN(t) ? 0 : t;
}

/** True when `b[from…to)` spells `s` (ASCII). */
export function same(b: Buffer, from: number, to: number, s: string): boolean {
  if (to - from !== s.length) return false;
  for (let k = 0; k < s.length; k++) if (b[from + k] !== s.charCodeAt(k)) return false;
  return true;
}

/** What readHead found (one reused object: reading 100k heads makes no garbage per line). */
const head = { id: '', parentId: null as string | null, time: 0, roleStart: 0, roleEnd: 0, messageStart: 0 };

function readHead(b: Buffer, start: number, end: number, prevId: string | undefined): boolean {
  if (!at(b, start, end, P_TYPE)) return false;
  let i = start + P_TYPE.length;
  const idEnd = token(b, i, end, 128);
  if (idEnd < 0) return false;
  const idStart = i;
  i = idEnd + 1;
  if (!at(b, i, end, P_PARENT)) return false;
  i += P_PARENT.length;
  let parentId: string | null = null;
  if (at(b, i, end, NULL)) i += 4;
  else if (b[i] === 0x22) {
    const pEnd = token(b, i + 1, end, 128);
    if (pEnd < 0) return false;
    parentId = prevId !== undefined && same(b, i + 1, pEnd, prevId) ? prevId : b.toString('latin1', i + 1, pEnd);
    i = pEnd + 1;
  } else return false;
  if (!at(b, i, end, P_TS)) return false;
  i += P_TS.length;
  let tsEnd = i;
  while (tsEnd < end && tsEnd - i < 64 && b[tsEnd] !== 0x22 && b[tsEnd] !== 0x5c) tsEnd++;
  if (tsEnd >= end || b[tsEnd] !== 0x22) return false;
  const time = isoTime(b, i, tsEnd);
  i = tsEnd + 1;
  if (!at(b, i, end, P_ROLE)) return false;
  const messageStart = i + 11; // after ,"message":
  i += P_ROLE.length;
  const rEnd = token(b, i, end, 64);
  if (rEnd < 0) return false;
  head.id = b.toString('latin1', idStart, idEnd);
  head.parentId = parentId;
  head.time = time;
  head.roleStart = i;
  head.roleEnd = rEnd;
  head.messageStart = messageStart;
  return true;
}

/**
 * The head of the message line `b[start…end)`, or undefined when it is not in pi's shape.
 * `prevId`: the id of the line before. Most entries hang under the line before them; comparing bytes
 * first saves making a new parent-id string for every line.
 */
export function parseMessageHead(b: Buffer, start = 0, end = b.length, prevId?: string): MessageHead | undefined {
  if (!readHead(b, start, end, prevId)) return undefined;
  return { id: head.id, parentId: head.parentId, time: head.time, role: roleAt(b, head.roleStart, head.roleEnd), messageStart: head.messageStart };
}

/** The index record of a message line in pi's shape (what parseMessageHead reads, without the garbage). */
export function messageRecord(b: Buffer, start: number, end: number, prevId: string | undefined, line: number, offset: number): EntryRecord | undefined {
  if (!readHead(b, start, end, prevId)) return undefined;
  // Every record is made with all its fields, in this order: one hidden class for all of them.
  return {
    id: head.id,
    parentId: head.parentId,
    type: 'message',
    time: head.time,
    line,
    offset,
    length: end - start,
    role: roleAt(b, head.roleStart, head.roleEnd),
    entry: undefined,
    parent: undefined,
    seq: 0,
  };
}
