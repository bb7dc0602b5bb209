// Reading a few fields of a stored message straight from its line's bytes, without parsing the line:
// usage figures, provider and model, the number of tool calls. Only for lines the reader validated
// (pi's shape, JSON.parse would accept them): values are skipped by their delimiters, long strings by
// native search. Anything unusual (an escaped key, a value of an unexpected type) answers false and
// the caller parses the line instead, so the result is always what JSON.parse would give.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Index of the quote closing a string whose text starts at `s` (the JSON is known to be valid). */
function closeQuote(b: Uint8Array & { indexOf(v: number, from: number): number }, s: number): number {
  for (let q = b.indexOf(QUOTE, s); ; q = b.indexOf(QUOTE, q + 1)) {
    let k = q - 1;
    while (k >= s && b[k] === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q;
  }
}

const isWs = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

function ws(b: Buffer, i: number): number {
  while (isWs(b[i])) i++;
  return i;
}

/** Index just after the (valid) JSON value at `i`. */
export function skipValue(b: Buffer, i: number): number {
  const c = b[i];
  if (c === QUOTE) return closeQuote(b, i + 1) + 1;
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let j = i; ; j++) {
      const d = b[j];
      if (d === QUOTE) j = closeQuote(b, j + 1);
      else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        if (--depth === 0) return j + 1;
      }
    }
  }
  let j = i + 1;
  for (;;) {
    const d = b[j];
    if (d === 0x2c || d === 0x7d || d === 0x5d || isWs(d) || j >= b.length) return j;
    j++;
  }
}

function hasBackslash(b: Buffer, s: number, e: number): boolean {
  for (let k = s; k < e; k++) if (b[k] === BACKSLASH) return true;
  return false;
}

function isKey(b: Buffer, s: number, e: number, key: string): boolean {
  if (e - s !== key.length) return false;
  for (let k = 0; k < key.length; k++) if (b[s + k] !== key.charCodeAt(k)) return false;
  return true;
}

/**
 * Calls `onKey(keyStart, keyEnd, valueStart)` for each key of the object at `b[o]` and returns the
 * index after the object; -1 when a key has an escape (its decoded spelling is not the bytes).
 * `onKey` returns where its value ends, or -1 to skip it.
 */
function eachKey(b: Buffer, o: number, onKey: (s: number, e: number, v: number) => number): number {
  let i = ws(b, o + 1);
  if (b[i] === 0x7d) return i + 1;
  for (;;) {
    const s = i + 1;
    const e = closeQuote(b, s);
    if (hasBackslash(b, s, e)) return -1;
    const v = ws(b, ws(b, e + 1) + 1); // past the colon
    let end = onKey(s, e, v);
    if (end === -2) return -1;
    if (end < 0) end = skipValue(b, v);
    i = ws(b, end);
    if (b[i] === 0x7d) return i + 1;
    i = ws(b, i + 1); // past the comma
  }
}

/** A JSON number token as JSON.parse reads it (small integers without making a string). */
function numberAt(b: Buffer, s: number, e: number): number {
  if (e - s <= 15) {
    let k = s;
    const neg = b[k] === 0x2d;
    if (neg) k++;
    let v = 0;
    for (; k < e; k++) {
      const d = b[k] - 0x30;
      if (d < 0 || d > 9) return Number(b.toString('latin1', s, e));
      v = v * 10 + d;
    }
    return neg ? -v : v;
  }
  return Number(b.toString('latin1', s, e));
}

/** A finite number at `v`, else 0 (what stats' `num` makes of any other value). */
function numAt(b: Buffer, v: number): { n: number; end: number } {
  const end = skipValue(b, v);
  const c = b[v];
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
    const n = numberAt(b, v, end);
    return { n: Number.isFinite(n) ? n : 0, end };
  }
  return { n: 0, end };
}

export interface UsageFacts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
  /** `provider` / `model`: undefined when absent, null when null. */
  provider: string | null | undefined;
  model: string | null | undefined;
  toolCalls: number;
}

/** One reused result (no object per line). */
export const facts: UsageFacts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, provider: undefined, model: undefined, toolCalls: 0 };

/** A string value (or null) at `v`; false for any other type. */
function stringAt(b: Buffer, v: number): string | null | false {
  if (b[v] === 0x6e) return null;
  if (b[v] !== QUOTE) return false;
  const e = closeQuote(b, v + 1);
  return hasBackslash(b, v + 1, e) ? (JSON.parse(b.toString('utf8', v, e + 1)) as string) : b.toString('utf8', v + 1, e);
}

/** Reads the number at `v` into `set`; returns where it ends. */
function readNum(b: Buffer, v: number, set: (n: number) => void): number {
  const { n, end } = numAt(b, v);
  set(n);
  return end;
}

/**
 * Reads into `facts` what stats sums of the message object at `b[messageStart]`: the usage (zeros when
 * it is missing or not an object), provider, model and the number of `toolCall` blocks in the content.
 * False when the caller must parse the line instead.
 */
export function readUsageFacts(b: Buffer, messageStart: number): boolean {
  const f = facts;
  f.input = f.output = f.cacheRead = f.cacheWrite = f.cost = 0;
  f.provider = f.model = undefined;
  f.toolCalls = 0;
  // A nested object that cannot be read (an escaped key): the whole line is parsed instead.
  const nested = (end: number) => (end < 0 ? -2 : end);
  const end = eachKey(b, messageStart, (s, e, v) => {
    if (isKey(b, s, e, 'usage')) {
      f.input = f.output = f.cacheRead = f.cacheWrite = f.cost = 0;
      if (b[v] !== 0x7b) return -1;
      return nested(
        eachKey(b, v, (us, ue, uv) => {
          if (isKey(b, us, ue, 'input')) return readNum(b, uv, (n) => (f.input = n));
          if (isKey(b, us, ue, 'output')) return readNum(b, uv, (n) => (f.output = n));
          if (isKey(b, us, ue, 'cacheRead')) return readNum(b, uv, (n) => (f.cacheRead = n));
          if (isKey(b, us, ue, 'cacheWrite')) return readNum(b, uv, (n) => (f.cacheWrite = n));
          if (!isKey(b, us, ue, 'cost')) return -1;
          f.cost = 0;
          if (b[uv] !== 0x7b) return -1;
          return nested(eachKey(b, uv, (cs, ce, cv) => (isKey(b, cs, ce, 'total') ? readNum(b, cv, (n) => (f.cost = n)) : -1)));
        }),
      );
    }
    const isModel = isKey(b, s, e, 'model');
    if (isModel || isKey(b, s, e, 'provider')) {
      const str = stringAt(b, v);
      if (str === false) return -2;
      if (isModel) f.model = str;
      else f.provider = str;
      return -1;
    }
    if (!isKey(b, s, e, 'content')) return -1;
    f.toolCalls = 0;
    if (b[v] !== 0x5b) return -1;
    let i = ws(b, v + 1);
    if (b[i] === 0x5d) return i + 1;
    for (;;) {
      if (b[i] === 0x7b) {
        let type: string | false | null = null;
        const after = eachKey(b, i, (ks, ke, kv) => {
          if (isKey(b, ks, ke, 'type')) type = stringAt(b, kv);
          return -1;
        });
        if (after < 0) return -2;
        if (type === 'toolCall') f.toolCalls++;
        i = after;
      } else i = skipValue(b, i);
      i = ws(b, i);
      if (b[i] === 0x5d) return i + 1;
      i = ws(b, i + 1);
    }
  });
  return end >= 0;
}
