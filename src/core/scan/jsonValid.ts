// Checks, on the raw bytes and without building anything, that a JSON value is exactly what
// JSON.parse would accept: the reader's fast path reads a message line's head from the bytes, and
// must keep a line only when JSON.parse would (pi skips lines JSON.parse rejects). Strict JSON:
// strings without raw control characters and with valid escapes, numbers of JSON's grammar, the
// literals, balanced nesting, no trailing commas. Iterative, so nesting depth costs no stack.
// It runs over every byte of every message line when a session opens: one loop, a reused stack, no
// object per call, the string loop (most of the bytes) as tight as it gets. Bytes in the WebAssembly
// validator's memory (the read buffers) are decided there instead (jsonScanWasm.ts), the same way.
import { wasmScan } from './jsonScanWasm.js';
import type { Notes, ObjectKeys } from './scanResult.js';

// Byte classes for the string loop: 1 = ends or interrupts a plain run (quote, backslash, control).
const STOP = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STOP[c] = 1;
STOP[0x22] = 1;
STOP[0x5c] = 1;

const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

function skipWs(b: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

/** Index after the closing quote of a string whose text starts at `i`, or -1. */
function skipString(b: Uint8Array, i: number, end: number): number {
  for (;;) {
    while (i < end && STOP[b[i]] === 0) i++;
    if (i >= end) return -1;
    const c = b[i];
    if (c === 0x22) return i + 1;
    if (c !== 0x5c || i + 1 >= end) return -1; // a raw control character, or a cut escape
    const e = b[i + 1];
    if (e === 0x75) {
      if (i + 6 > end || !HEX[b[i + 2]] || !HEX[b[i + 3]] || !HEX[b[i + 4]] || !HEX[b[i + 5]]) return -1;
      i += 6;
    } else if (
      e === 0x22 ||
      e === 0x5c ||
      e === 0x2f ||
      e === 0x62 ||
      e === 0x66 ||
      e === 0x6e ||
      e === 0x72 ||
      e === 0x74
    ) {
      i += 2;
    } else return -1;
  }
}

/** Index after a number of JSON's grammar starting at `i`, or -1. */
function skipNumber(b: Uint8Array, i: number, end: number): number {
  if (b[i] === 0x2d) i++;
  if (i >= end) return -1;
  if (b[i] === 0x30) i++;
  else if (b[i] >= 0x31 && b[i] <= 0x39) while (i < end && isDigit(b[i])) i++;
  else return -1;
  if (i < end && b[i] === 0x2e) {
    i++;
    if (i >= end || !isDigit(b[i])) return -1;
    while (i < end && isDigit(b[i])) i++;
  }
  if (i < end && (b[i] === 0x65 || b[i] === 0x45)) {
    i++;
    if (i < end && (b[i] === 0x2b || b[i] === 0x2d)) i++;
    if (i >= end || !isDigit(b[i])) return -1;
    while (i < end && isDigit(b[i])) i++;
  }
  return i;
}

function literal(
  b: Uint8Array,
  i: number,
  end: number,
  c1: number,
  c2: number,
  c3: number,
  c4: number,
  c5: number,
): number {
  const n = c5 < 0 ? 4 : 5;
  if (i + n > end || b[i + 1] !== c2 || b[i + 2] !== c3 || b[i + 3] !== c4 || (c5 >= 0 && b[i + 4] !== c5)) return -1;
  return b[i] === c1 ? i + n : -1;
}

/** Whether `b[s…e)` spells `key` (ASCII). */
function isKey(b: Uint8Array, s: number, e: number, key: string): boolean {
  if (e - s !== key.length) return false;
  for (let k = 0; k < key.length; k++) if (b[s + k] !== key.charCodeAt(k)) return false;
  return true;
}

function hasBackslash(b: Uint8Array, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (b[k] === 0x5c) return true;
  return false;
}

const OBJ = 1;
const ARR = 2;
const VALUE = 0;
const KEY = 1;
const AFTER = 2;

let stack = new Uint8Array(256);

/** Pushes a container (OBJ, ARR) at `depth` onto the nesting stack, growing it when it is full. */
function push(depth: number, kind: number): void {
  if (depth >= stack.length) {
    const s = new Uint8Array(stack.length * 2);
    s.set(stack);
    stack = s;
  }
  stack[depth] = kind;
}

/** Index after the literal or number that starts with `c` at `i`, or -1. */
function scalar(b: Uint8Array, c: number, i: number, end: number): number {
  if (c === 0x74) return literal(b, i, end, 0x74, 0x72, 0x75, 0x65, -1);
  if (c === 0x66) return literal(b, i, end, 0x66, 0x61, 0x6c, 0x73, 0x65);
  if (c === 0x6e) return literal(b, i, end, 0x6e, 0x75, 0x6c, 0x6c, -1);
  if (c === 0x2d || isDigit(c)) return skipNumber(b, i, end);
  return -1;
}

/** Counts the outer object's key `b[s…e)` into `keys`; true when it is "content" (its value is next). */
function noteKey(b: Uint8Array, s: number, e: number, keys: ObjectKeys): boolean {
  if (isKey(b, s, e, 'content')) return (keys.hasContent = true);
  if (isKey(b, s, e, 'role')) keys.role++;
  else if (isKey(b, s, e, 'type')) keys.type++;
  else if (hasBackslash(b, s, e)) {
    // A key with an escape may spell "role" once decoded: counted, so the caller falls back to JSON.parse.
    keys.role++;
    keys.escaped = true;
  }
  return false;
}

/**
 * Scans the JSON value at `b[start…end)` (leading whitespace allowed). Returns the index just after it,
 * or -1 when JSON.parse would reject it. `keys`: filled with what it found of the outermost object (when
 * it returns -1, with anything); with `notes`, also with what stats ('facts') or also a tree row ('rows')
 * reads of it, when the WebAssembly validator decides (factsKnown, rowsKnown).
 */
export function scanValue(b: Uint8Array, start: number, end: number, keys?: ObjectKeys, notes: Notes = false): number {
  const w = wasmScan(b, start, end, keys, notes);
  if (w !== undefined) return w;
  if (keys) {
    keys.role = keys.type = 0;
    keys.content = keys.escaped = keys.hasContent = keys.factsKnown = keys.rowsKnown = false;
  }
  let depth = 0;
  let state = VALUE;
  let i = start;
  // The value of a depth-1 "content" key is next.
  let contentNext = false;
  for (;;) {
    if (state === AFTER && depth === 0) return i;
    i = skipWs(b, i, end);
    if (i >= end) return -1;
    const c = b[i];
    if (state === VALUE) {
      if (contentNext) {
        keys!.content = c !== 0x6e; // null
        contentNext = false;
      }
      if (c === 0x7b || c === 0x5b) {
        push(depth++, c === 0x7b ? OBJ : ARR);
        i = skipWs(b, i + 1, end);
        // (c + 2: the closing brace or bracket)
        if (i < end && b[i] === c + 2) {
          depth--;
          i++;
          state = AFTER;
        } else state = c === 0x7b ? KEY : VALUE;
        continue;
      }
      i = c === 0x22 ? skipString(b, i + 1, end) : scalar(b, c, i, end);
      if (i < 0) return -1;
      state = AFTER;
      continue;
    }
    if (state === KEY) {
      if (c !== 0x22) return -1;
      const s = i + 1;
      i = skipString(b, s, end);
      if (i < 0) return -1;
      if (keys && depth === 1) contentNext = noteKey(b, s, i - 1, keys);
      i = skipWs(b, i, end);
      if (i >= end || b[i] !== 0x3a) return -1;
      i++;
      state = VALUE;
      continue;
    }
    // AFTER, inside a container
    const top = stack[depth - 1];
    if (c === 0x2c) {
      i++;
      state = top === OBJ ? KEY : VALUE;
    } else if ((c === 0x7d && top === OBJ) || (c === 0x5d && top === ARR)) {
      depth--;
      i++;
    } else return -1;
  }
}

/** @internal Would JSON.parse accept `b[start…end)` as a whole (one value, whitespace around it)? The tests hold the WebAssembly validator to it. */
export function isValidJson(b: Uint8Array, start = 0, end = b.length): boolean {
  const e = scanValue(b, start, end);
  return e >= 0 && skipWs(b, e, end) === end;
}
