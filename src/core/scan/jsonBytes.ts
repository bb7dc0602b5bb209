// Reading a few values out of a (valid) JSON line while it is still in the read buffer: where a key's
// value lies, and the value as JSON.parse gives it, or its bytes when they are its text.

/**
 * Where the string value `b[s…e)` (whitespace may follow it) closes when it is ASCII without escapes
 * (its bytes are then its text), else -1.
 */
export function plainValue(b: Buffer, s: number, e: number): number {
  if (b[s] !== 0x22) return -1;
  let k = s + 1;
  // (`!(x < 0x80)` is also true past the buffer's end: a line the validator passed never gets there)
  for (let x = b[k]; x !== 0x22; x = b[++k]) if (x === 0x5c || !(x < 0x80)) return -1;
  return skipWs(b, k + 1, e) === e ? k : -1;
}

/**
 * Whether the value `b[s…e)` (objectValues's range) is a string of printable ASCII without escapes, so that
 * its text is b[s + 1…e - 1) and needs no escaping on a terminal.
 */
export function printableString(b: Buffer, s: number, e: number): boolean {
  if (b[s] !== 0x22 || b[e - 1] !== 0x22) return false;
  for (let k = s + 1; k < e - 1; k++) if (b[k] === 0x5c || !(b[k] >= 0x20 && b[k] < 0x7f)) return false;
  return true;
}

export function keyList(...names: string[]): Buffer[] {
  return names.map((n) => Buffer.from(n));
}

/** The value of one key that objectValues reads as an object, as it passes over it (the caller's, reused). */
export interface InnerValues {
  /** Which of the names is the key. */
  key: number;
  names: Buffer[];
  at: Int32Array;
  /** Set by objectValues: whether the key's (last) value was an object it read (no escaped keys). */
  read: boolean;
}

/**
 * Where the values of the keys `names` are in the (valid) object `b[s…e)`: [start, end) pairs into
 * `at` by the names' order (0, 0: no such key; the last of a repeated key, as JSON.parse keeps); the
 * index past the object, or -1 when a key has an escape (it could spell one of them). The value of
 * `names[inner.key]`, when it is an object, is read the same way into `inner.at` (`inner.read`) as it
 * is passed over: its bytes are read once.
 */
export function objectValues(
  b: Buffer,
  s: number,
  e: number,
  names: Buffer[],
  at: Int32Array,
  inner?: InnerValues,
): number {
  at.fill(0);
  if (inner) inner.read = false;
  let k = s + 1;
  for (;;) {
    k = skipWs(b, k, e);
    if (b[k] !== 0x22) return k + 1; // past the closing brace
    const key = k + 1;
    k = key;
    for (let x = b[k]; x !== 0x22; x = b[++k]) if (x === 0x5c || x === undefined) return -1;
    const len = k - key;
    let j = names.length - 1;
    for (; j >= 0; j--) if (names[j].length === len && sameBytes(b, key, names[j])) break;
    k = skipWs(b, skipWs(b, k + 1, e) + 1, e); // past the colon
    let end = -1;
    if (j >= 0 && inner && j === inner.key) {
      end = b[k] === 0x7b ? objectValues(b, k, e, inner.names, inner.at) : -1;
      inner.read = end >= 0;
    }
    if (end < 0) end = skipValue(b, k, e);
    if (j >= 0) {
      at[2 * j] = k;
      at[2 * j + 1] = end;
    }
    k = skipWs(b, end, e);
    if (b[k] !== 0x2c) return k + 1;
    k++;
  }
}

/** Whether `b` holds the bytes of `name` from `at` on. */
export function sameBytes(b: Buffer, at: number, name: Buffer): boolean {
  for (let x = 0; x < name.length; x++) if (b[at + x] !== name[x]) return false;
  return true;
}

/** The value of the j-th key objectValues found, as JSON.parse gives it (undefined: no such key). */
export function valueIn(b: Buffer, at: Int32Array, j: number): unknown {
  return at[2 * j] === 0 ? undefined : jsonAt(b, at[2 * j], at[2 * j + 1]);
}

/** The JSON value in `b[s…e)` (whitespace may follow it) as JSON.parse gives it. */
export function jsonAt(b: Buffer, s: number, e: number): unknown {
  // The usual value, a string of ASCII without escapes, is its bytes as they are.
  const q = plainValue(b, s, e);
  if (q >= 0) return b.toString('latin1', s + 1, q);
  return JSON.parse(b.toString('utf8', s, e));
}

export function skipWs(b: Buffer, k: number, e: number): number {
  while (k < e && (b[k] === 0x20 || b[k] === 0x0a || b[k] === 0x0d || b[k] === 0x09)) k++;
  return k;
}

/**
 * The index of the quote closing the string whose text starts at `k` (`e` when it does not close before
 * it). A short string by hand; a long one (a tool's output, a written file) by native search, which is
 * fast but costly to call.
 */
function closingQuote(b: Buffer, k: number, e: number): number {
  const stop = Math.min(e, k + 32);
  for (; k < stop; k++) {
    const x = b[k];
    if (x === 0x22) return k;
    if (x === 0x5c) k++;
  }
  for (;;) {
    if (k >= e) return e;
    const q = b.indexOf(0x22, k);
    if (q < 0 || q >= e) return e;
    // escaped when an odd run of backslashes ends before it (and the run is all after k: k is no escape's second byte)
    let s = q - 1;
    while (s >= k && b[s] === 0x5c) s--;
    if ((q - 1 - s) % 2 === 0) return q;
    k = q + 1;
  }
}

/** Past the (valid) JSON value at `b[k]`. */
function skipValue(b: Buffer, k: number, e: number): number {
  let depth = 0;
  for (; k < e; k++) {
    const x = b[k];
    if (x === 0x22) {
      k = closingQuote(b, k + 1, e);
      if (depth === 0) return k + 1;
    } else if (x === 0x7b || x === 0x5b) depth++;
    else if (x === 0x7d || x === 0x5d) {
      if (depth === 0) return k; // the end of a number or literal before the enclosing close
      if (--depth === 0) return k + 1;
    } else if (depth === 0 && (x === 0x2c || x === 0x20 || x === 0x0a || x === 0x0d || x === 0x09)) return k;
  }
  return k;
}
