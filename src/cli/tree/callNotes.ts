// The tool calls of an assistant message noted from their bytes (core/context/entryText.ts toolCallsOf and
// formatToolCall), while the line is in the read buffer. A call is found by its id's bytes (idKeys.ts
// ByteSlots), and the usual call text — a named tool whose arguments are printable ASCII strings
// without escapes, and a path shortenHome leaves as it is — is written as bytes: no string, no
// arguments object. Any other call goes through formatToolCall, so a row reads the same either way.
import { sep } from 'node:path';
import {
  keyList,
  objectValues,
  plainValue,
  printableString,
  sameBytes,
  valueIn,
  type InnerValues,
} from '../../core/scan/jsonBytes.js';
import { formatToolCall } from '../../core/context/entryText.js';
import type { RowFacts } from './rowFacts.js';
import type { ObjectKeys } from '../../core/scan/scanResult.js';
import { LAYOUT as L } from '../../core/scan/wasm/layout.js';
import { asText } from '../../core/format/values.js';

type Obj = Record<string, unknown>;

/** The tools whose call text (formatToolCall) reads only some of the arguments: ARG_NAMES. */
const TOOLS = ['read', 'write', 'edit', 'bash', 'grep', 'find', 'ls'];
const [READ, WRITE, EDIT, BASH, GREP, , LS] = TOOLS.map((_, k) => k);
const TOOL_KEYS = keyList(...TOOLS);
const CALL_KEYS = keyList('id', 'name', 'arguments');
const ARGUMENTS = 2;
const ARG_NAMES = ['path', 'file_path', 'offset', 'limit', 'command', 'pattern'];
const [PATH, FILE_PATH, OFFSET, LIMIT, COMMAND, PATTERN] = ARG_NAMES.map((_, k) => k);
const ARG_KEYS = keyList(...ARG_NAMES);
const callAt = new Int32Array(2 * CALL_KEYS.length);
const argAt = new Int32Array(2 * ARG_KEYS.length);
const args: InnerValues = { key: ARGUMENTS, names: ARG_KEYS, at: argAt, read: false };
/** How many call texts were written from their bytes (for tests: that these paths are taken). */
export const callTexts = { fromBytes: 0 };
/** shortenHome leaves a path as it is when it is relative: on POSIX, when it does not start with '/'. */
const POSIX = sep === '/';

/**
 * Notes the tool calls of assistant message `i` (its blocks in the validator's notes `m`): for the
 * named tools only their few arguments are read (a write's content never is); any other call is parsed
 * whole.
 */
export function noteCalls(rows: RowFacts, i: number, b: Buffer, m: ObjectKeys): void {
  for (let k = 0, blocks = m.blockCount(); k < blocks; k++) {
    if (m.blockKind(k) !== L.KIND_TOOL_CALL) continue;
    const s = m.blockStart(k);
    const e = m.blockEnd(k);
    // (the arguments' keys are read as the call's are passed over)
    const tool = objectValues(b, s, e, CALL_KEYS, callAt, args) >= 0 ? toolOf(b) : -1;
    const hasArgs = callAt[2 * ARGUMENTS] !== 0;
    if (tool < 0 || (hasArgs && !args.read)) {
      const c = JSON.parse(b.toString('utf8', s, e)) as Obj;
      rows.addCall(i, asText(c.id), formatToolCall(asText(c.name), (c.arguments as Obj) ?? {}));
      continue;
    }
    if (!hasArgs) argAt.fill(0); // no arguments: formatToolCall's {}
    // by the id's bytes when they are its text, else by its string
    const q = callAt[0] === 0 ? -1 : plainValue(b, callAt[0], callAt[1]);
    const slot = q >= 0 ? rows.claimCallAt(i, b, callAt[0] + 1, q) : rows.claimCall(i, asText(valueIn(b, callAt, 0)));
    if (slot < 0) continue; // a later call with this id is there already
    const length = callText(tool, b);
    if (length >= 0) {
      rows.setCallBytes(slot, text, length);
      callTexts.fromBytes++;
    } else rows.setCallText(slot, formatToolCall(TOOLS[tool], namedArgs(b)));
  }
}

/** Which of TOOLS the call's name is (a string without escapes), or -1. */
function toolOf(b: Buffer): number {
  const s = callAt[2];
  const len = callAt[3] - s - 2;
  if (s === 0 || b[s] !== 0x22 || b[s + len + 1] !== 0x22) return -1;
  for (let t = 0; t < TOOL_KEYS.length; t++)
    if (TOOL_KEYS[t].length === len && sameBytes(b, s + 1, TOOL_KEYS[t])) return t;
  return -1;
}

/** The arguments formatToolCall reads, as JSON.parse gives them. */
function namedArgs(b: Buffer): Obj {
  const named: Obj = {};
  for (let j = 0; j < ARG_NAMES.length; j++) if (argAt[2 * j] !== 0) named[ARG_NAMES[j]] = valueIn(b, argAt, j);
  return named;
}

// The call text being written, and where its end is.
let text = Buffer.allocUnsafe(1024);
let at = 0;
const OPEN = keyList('[read: ', '[write: ', '[edit: ', '[bash: ', '[grep: /', '[find: ', '[ls: ');
const [CLOSE, IN, GREP_IN, ELLIPSIS, DOT] = keyList(']', ' in ', '/ in ', '...', '.');

/**
 * Writes formatToolCall's text for a call of `tool` into `text` when every argument it reads is absent
 * or a printable ASCII string and its path is relative (read's offset and limit: digits); its length,
 * or -1 when the text is not sure to be those bytes.
 */
function callText(tool: number, b: Buffer): number {
  at = 0;
  add(OPEN[tool], 0, OPEN[tool].length);
  let ok: boolean;
  if (tool === READ) ok = filePath(b) && readRange(b);
  else if (tool === WRITE || tool === EDIT) ok = filePath(b);
  else if (tool === BASH) ok = command(b);
  else if (tool === LS) ok = dirPath(b);
  else {
    // grep, find: String(args.pattern || ''), then the folder
    const a = arg(b, PATTERN);
    if (a === 1) add(b, argAt[2 * PATTERN] + 1, argAt[2 * PATTERN + 1] - 1);
    const gap = tool === GREP ? GREP_IN : IN;
    add(gap, 0, gap.length);
    ok = a >= 0 && dirPath(b);
  }
  add(CLOSE, 0, 1);
  return ok ? at : -1;
}

/** Argument j: 0 absent, 1 a printable ASCII string without escapes, -1 anything else. */
function arg(b: Buffer, j: number): number {
  const s = argAt[2 * j];
  if (s === 0) return 0;
  return printableString(b, s, argAt[2 * j + 1]) ? 1 : -1;
}

/** Whether argument j is such a string and not empty (what `||` keeps). */
function nonEmpty(j: number): boolean {
  return argAt[2 * j + 1] - argAt[2 * j] > 2;
}

/** `path(args.path || args.file_path)`. */
function filePath(b: Buffer): boolean {
  let a = arg(b, PATH);
  let j = PATH;
  if (a === 0 || (a === 1 && !nonEmpty(PATH))) {
    j = FILE_PATH;
    a = arg(b, FILE_PATH);
  }
  if (a < 0) return false;
  return a === 0 || relativePath(b, j);
}

/** `path(args.path || '.')`. */
function dirPath(b: Buffer): boolean {
  const a = arg(b, PATH);
  if (a < 0) return false;
  if (a === 1 && nonEmpty(PATH)) return relativePath(b, PATH);
  add(DOT, 0, 1);
  return true;
}

/** Adds the path argument j when shortenHome leaves it as it is. */
function relativePath(b: Buffer, j: number): boolean {
  const s = argAt[2 * j] + 1;
  const e = argAt[2 * j + 1] - 1;
  if (!POSIX || (e > s && b[s] === 0x2f)) return false;
  add(b, s, e);
  return true;
}

/** A bash call: its command, spaces trimmed, its first 50 characters (and '...' when it is longer). */
function command(b: Buffer): boolean {
  const a = arg(b, COMMAND);
  if (a < 0) return false;
  if (a === 0) return true;
  let s = argAt[2 * COMMAND] + 1;
  const raw = argAt[2 * COMMAND + 1] - 1;
  let e = raw;
  while (s < e && b[s] === 0x20) s++;
  while (e > s && b[e - 1] === 0x20) e--;
  add(b, s, Math.min(e, s + 50));
  if (raw - (argAt[2 * COMMAND] + 1) > 50) add(ELLIPSIS, 0, 3);
  return true;
}

/** entryText.ts readRange of offset and limit, when each is absent or a plain whole number. */
function readRange(b: Buffer): boolean {
  const offset = lineArg(b, OFFSET);
  const limit = lineArg(b, LIMIT);
  if (offset === -2 || limit === -2) return false;
  if (offset === -1 && limit === -1) return true;
  const start = offset === -1 ? 1 : offset;
  if (start === 0 || limit === 0) return true; // not a line number: no range
  addInt(start, 0x3a);
  if (limit !== -1) addInt(start + limit - 1, 0x2d);
  return true;
}

/** Argument j as a whole number written in digits (at most 9): its value; -1 absent, -2 anything else. */
function lineArg(b: Buffer, j: number): number {
  const s = argAt[2 * j];
  if (s === 0) return -1;
  const e = argAt[2 * j + 1];
  if (e - s > 9) return -2;
  let n = 0;
  for (let k = s; k < e; k++) {
    const d = b[k] - 0x30;
    if (d < 0 || d > 9) return -2;
    n = n * 10 + d;
  }
  return n;
}

/** Adds the character `before` and the digits of `n`. */
function addInt(n: number, before: number): void {
  room(11);
  text[at++] = before;
  let digits = 1;
  for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
  for (let k = at + digits - 1; k >= at; k--, n = Math.floor(n / 10)) text[k] = 0x30 + (n % 10);
  at += digits;
}

function add(src: Buffer, s: number, e: number): void {
  room(e - s);
  if (e - s > 64) at += src.copy(text, at, s, e);
  else for (let k = s; k < e; k++) text[at++] = src[k];
}

function room(n: number): void {
  if (at + n <= text.length) return;
  const more = Buffer.allocUnsafe(2 * (at + n));
  text.copy(more, 0, 0, at);
  text = more;
}
