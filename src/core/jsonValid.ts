// Checks, on the raw bytes and without building anything, that a JSON value is exactly what
// JSON.parse would accept: the reader's fast path reads a message line's head from the bytes, and
// must keep a line only when JSON.parse would (pi skips lines JSON.parse rejects). Strict JSON:
// strings without raw control characters and with valid escapes, numbers of JSON's grammar, the
// literals, balanced nesting, no trailing commas. Iterative, so nesting depth costs no stack.

// Byte classes for the string loop: 1 = ends or interrupts a plain run (quote, backslash, control).
const STOP = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STOP[c] = 1;
STOP[0x22] = 1;
STOP[0x5c] = 1;

const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

function skipWs(b: Buffer, i: number, end: number): number {
  while (i < end) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

/** Index after the closing quote of a string whose text starts at `i`, or -1. */
function skipString(b: Buffer, i: number, end: number): number {
  // A plain byte loop: on a 100k-entry session (3.2M strings, ~20 bytes each) it beat skipping four
  // bytes at a time with SWAR tests, and native indexOf per quote.
  while (i < end) {
    const c = b[i];
    if (STOP[c] === 0) {
      i++;
      continue;
    }
    if (c === 0x22) return i + 1;
    if (c !== 0x5c || i + 1 >= end) return -1; // a raw control character, or a cut escape
    const e = b[i + 1];
    if (e === 0x75) {
      if (i + 6 > end || !HEX[b[i + 2]] || !HEX[b[i + 3]] || !HEX[b[i + 4]] || !HEX[b[i + 5]]) return -1;
      i += 6;
    } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
      i += 2;
    } else return -1;
  }
  return -1;
}

/** Index after a number of JSON's grammar starting at `i`, or -1. */
function skipNumber(b: Buffer, i: number, end: number): number {
  if (b[i] === 0x2d) i++;
  if (i >= end) return -1;
  if (b[i] === 0x30) i++;
  else if (b[i] >= 0x31 && b[i] <= 0x39) while (i < end && isDigit(b[i])) i++;
  else return -1;
  if (b[i] === 0x2e) {
    i++;
    if (!isDigit(b[i])) return -1;
    while (i < end && isDigit(b[i])) i++;
  }
  if (b[i] === 0x65 || b[i] === 0x45) {
    i++;
    if (b[i] === 0x2b || b[i] === 0x2d) i++;
    if (!isDigit(b[i])) return -1;
    while (i < end && isDigit(b[i])) i++;
  }
  return i;
}

/** Whether `c` occurs in `b[from…to)` (a plain loop: indexOf would search to the end of the buffer). */
function hasByte(b: Buffer, from: number, to: number, c: number): boolean {
  for (let k = from; k < to; k++) if (b[k] === c) return true;
  return false;
}

function literal(b: Buffer, i: number, end: number, s: string): number {
  if (i + s.length > end) return -1;
  for (let k = 0; k < s.length; k++) if (b[i + k] !== s.charCodeAt(k)) return -1;
  return i + s.length;
}

const VALUE = 0;
const KEY = 1;
const AFTER = 2;
const OBJ = 1;
const ARR = 2;

export interface ValueScan {
  /** Index just after the value. */
  end: number;
  /** How often the outermost object has a key spelled `key` (when one was asked about). */
  keyCount: number;
}

/**
 * Scans the JSON value at `b[start…end)` (leading whitespace allowed). Returns where it ends, or
 * undefined when JSON.parse would reject it. `key`: count that key among the outermost object's keys
 * (JSON.parse keeps the LAST of duplicates, so a caller that read the first must know).
 */
export function scanJsonValue(b: Buffer, start: number, end: number, key?: string): ValueScan | undefined {
  const stack: number[] = [];
  let state = VALUE;
  let i = start;
  let keyCount = 0;
  for (;;) {
    if (state === AFTER && stack.length === 0) return { end: i, keyCount };
    i = skipWs(b, i, end);
    if (i >= end) return undefined;
    const c = b[i];
    if (state === VALUE) {
      if (c === 0x7b || c === 0x5b) {
        stack.push(c === 0x7b ? OBJ : ARR);
        i = skipWs(b, i + 1, end);
        if (b[i] === (c === 0x7b ? 0x7d : 0x5d)) {
          stack.pop();
          i++;
          state = AFTER;
        } else state = c === 0x7b ? KEY : VALUE;
        continue;
      }
      if (c === 0x22) i = skipString(b, i + 1, end);
      else if (c === 0x74) i = literal(b, i, end, 'true');
      else if (c === 0x66) i = literal(b, i, end, 'false');
      else if (c === 0x6e) i = literal(b, i, end, 'null');
      else if (c === 0x2d || isDigit(c)) i = skipNumber(b, i, end);
      else return undefined;
      if (i < 0) return undefined;
      state = AFTER;
      continue;
    }
    if (state === KEY) {
      if (c !== 0x22) return undefined;
      const s = i + 1;
      i = skipString(b, s, end);
      if (i < 0) return undefined;
      // A key with an escape may spell `key` once decoded: counted, so the caller falls back to JSON.parse.
      if (key !== undefined && stack.length === 1 && ((i - 1 - s === key.length && b.toString('latin1', s, i - 1) === key) || hasByte(b, s, i - 1, 0x5c))) keyCount++;
      i = skipWs(b, i, end);
      if (b[i] !== 0x3a) return undefined;
      i++;
      state = VALUE;
      continue;
    }
    // AFTER, inside a container
    const top = stack[stack.length - 1];
    if (c === 0x2c) {
      i++;
      state = top === OBJ ? KEY : VALUE;
    } else if ((c === 0x7d && top === OBJ) || (c === 0x5d && top === ARR)) {
      stack.pop();
      i++;
    } else return undefined;
  }
}

/** Would JSON.parse accept `b[start…end)` as a whole (one value, whitespace around it)? */
export function isValidJson(b: Buffer, start = 0, end = b.length): boolean {
  const r = scanJsonValue(b, start, end);
  return !!r && skipWs(b, r.end, end) === end;
}
