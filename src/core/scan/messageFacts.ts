// Reading a few fields of a stored message straight from its line's bytes, without parsing the line:
// usage figures, provider and model, the number of tool calls. Only for lines the reader validated
// (pi's shape, JSON.parse would accept them): values are skipped by their delimiters, long strings by
// native search. Anything unusual (an escaped key, a value of an unexpected type) answers false and
// the caller parses the line instead, so the result is always what JSON.parse would give.
import type { ObjectKeys } from './scanResult.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Index of the quote closing a string whose text starts at `s` (the JSON is known to be valid). Most
 * strings are short: a plain loop first, native search (fast, but costly to call) for long ones.
 */
function closeQuote(b: Buffer, s: number): number {
  let q = s;
  const stop = Math.min(b.length, s + 48);
  while (q < stop && b[q] !== QUOTE) q++;
  if (q === stop) q = b.indexOf(QUOTE, q);
  for (;;) {
    let k = q - 1;
    while (k >= s && b[k] === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q;
    q = b.indexOf(QUOTE, q + 1);
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

/** A finite number at `v`, else 0 (what stats' `num` makes of any other value). */
function numAt(b: Buffer, v: number, end: number): number {
  const c = b[v];
  if (c !== 0x2d && !(c >= 0x30 && c <= 0x39)) return 0;
  let n: number;
  if (end - v <= 15) {
    let k = v;
    const neg = c === 0x2d;
    if (neg) k++;
    n = 0;
    for (; k < end; k++) {
      const d = b[k] - 0x30;
      if (d < 0 || d > 9) {
        n = Number(b.toString('latin1', v, end));
        break;
      }
      n = n * 10 + d;
      if (k === end - 1 && neg) n = -n;
    }
  } else n = Number(b.toString('latin1', v, end));
  return Number.isFinite(n) ? n : 0;
}

/** What stats sums of a message: filled by readUsageFacts / readNotedFacts (one per reader, reused line after line). */
export class UsageFacts {
  input = 0;
  output = 0;
  cacheRead = 0;
  cacheWrite = 0;
  cost = 0;
  /** `provider` / `model`: undefined when absent, null when null. */
  provider: string | null | undefined = undefined;
  model: string | null | undefined = undefined;
  toolCalls = 0;
}

/** The last strings made for provider / model values, by their bytes (a session uses a few models). */
const seen: { bytes: Buffer; value: string }[] = [];

/** A string value (or null) at `v`; false for any other type. */
function stringAt(b: Buffer, v: number): string | null | false {
  if (b[v] === 0x6e) return null;
  if (b[v] !== QUOTE) return false;
  const e = closeQuote(b, v + 1);
  if (hasBackslash(b, v + 1, e)) return JSON.parse(b.toString('utf8', v, e + 1)) as string;
  const len = e - v - 1;
  for (const s of seen) {
    if (s.bytes.length !== len) continue;
    let k = 0;
    while (k < len && s.bytes[k] === b[v + 1 + k]) k++;
    if (k === len) return s.value;
  }
  const value = b.toString('utf8', v + 1, e);
  if (len <= 256) {
    if (seen.length >= 16) seen.shift();
    seen.push({ bytes: Buffer.from(b.subarray(v + 1, e)), value });
  }
  return value;
}

/** Reads one key of an object at `i` (its opening quote); -1 when it has an escape. Sets keyStart/keyEnd. */
let keyStart = 0;
let keyEnd = 0;
function readKey(b: Buffer, i: number): number {
  keyStart = i + 1;
  keyEnd = closeQuote(b, keyStart);
  if (hasBackslash(b, keyStart, keyEnd)) return -1;
  return ws(b, ws(b, keyEnd + 1) + 1); // the value, past the colon
}

/** After a value ending at `end` inside an object: the next key's quote, or -1 at the closing brace. */
function nextKey(b: Buffer, end: number): number {
  const i = ws(b, end);
  return b[i] === 0x7d ? -1 : ws(b, i + 1);
}

/** The first key's quote of the object at `o`, or -1 when it is empty. */
function firstKey(b: Buffer, o: number): number {
  const i = ws(b, o + 1);
  return b[i] === 0x7d ? -1 : i;
}

/** Where the value read by valueAt ends. */
let valueEnd = 0;

/** Exact powers of ten (up to 10^22 every one is a double). */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * The value at `v` as numAt reads it (0 for any other type), its end in valueEnd, in one pass for a
 * plain number of at most 15 digits (most usage figures and costs): its digits as an integer, divided
 * by the power of ten of its decimals. Both are exact doubles, and the division rounds once, so this
 * is the double Number() makes of the text (Clinger's fast path). Anything else goes through numAt.
 */
function valueAt(b: Buffer, v: number): number {
  let k = v;
  if (b[k] === 0x2d) k++;
  const s = k;
  let n = 0;
  let point = -1;
  for (; ; k++) {
    const c = b[k];
    const d = c - 0x30;
    if (d >= 0 && d <= 9) n = n * 10 + d;
    else if (c === 0x2e && point < 0) point = k;
    else break;
  }
  const c = b[k];
  const digits = k - s - (point < 0 ? 0 : 1);
  if (digits === 0 || digits > 15 || c === 0x65 || c === 0x45 || point === k - 1) {
    valueEnd = skipValue(b, v);
    return numAt(b, v, valueEnd);
  }
  valueEnd = k;
  if (point >= 0) n /= POW10[k - point - 1];
  return s > v ? -n : n;
}

// pi's usage object, key by key: {"input":…,"output":…,"cacheRead":…,"cacheWrite":…,"totalTokens":…,
// "cost":{"input":…,"output":…,"cacheRead":…,"cacheWrite":…,"total":…}}
const PI_USAGE = ['{"input":', ',"output":', ',"cacheRead":', ',"cacheWrite":', ',"totalTokens":'].map((k) =>
  Buffer.from(k),
);
const PI_COST = [',"cost":{"input":', ',"output":', ',"cacheRead":', ',"cacheWrite":', ',"total":'].map((k) =>
  Buffer.from(k),
);

function literalAt(b: Buffer, i: number, lit: Buffer): boolean {
  if (i + lit.length > b.length) return false;
  for (let k = 0; k < lit.length; k++) if (b[i + k] !== lit[k]) return false;
  return true;
}

/**
 * pi's usage object at `o`, read by its keys in pi's order without a key lookup each; false (nothing
 * certain read) when it is laid out any other way.
 */
function readPiUsage(b: Buffer, o: number, f: UsageFacts): boolean {
  let i = o;
  const figures = [0, 0, 0, 0, 0];
  for (let k = 0; k < PI_USAGE.length; k++) {
    if (!literalAt(b, i, PI_USAGE[k])) return false;
    const c = b[i + PI_USAGE[k].length];
    if (c !== 0x2d && !(c >= 0x30 && c <= 0x39)) return false;
    figures[k] = valueAt(b, i + PI_USAGE[k].length);
    i = valueEnd;
  }
  for (let k = 0; k < PI_COST.length; k++) {
    if (!literalAt(b, i, PI_COST[k])) return false;
    const v = i + PI_COST[k].length;
    const c = b[v];
    if (c !== 0x2d && !(c >= 0x30 && c <= 0x39)) return false;
    // (only the total is read: the other costs are floats, whose reading is the slow part)
    if (k === PI_COST.length - 1) {
      f.cost = valueAt(b, v);
      i = valueEnd;
    } else i = skipValue(b, v);
  }
  if (b[i] !== 0x7d || b[i + 1] !== 0x7d) return false;
  f.input = figures[0];
  f.output = figures[1];
  f.cacheRead = figures[2];
  f.cacheWrite = figures[3];
  return true;
}

/** Usage object at `o` into `f`; false on an escaped key. */
function readUsage(b: Buffer, o: number, f: UsageFacts): boolean {
  if (readPiUsage(b, o, f)) return true;
  f.input = f.output = f.cacheRead = f.cacheWrite = f.cost = 0;
  for (let q = firstKey(b, o); q >= 0;) {
    const v = readKey(b, q);
    if (v < 0) return false;
    const ks = keyStart;
    const ke = keyEnd;
    const n = valueAt(b, v);
    const end = valueEnd;
    if (isKey(b, ks, ke, 'input')) f.input = n;
    else if (isKey(b, ks, ke, 'output')) f.output = n;
    else if (isKey(b, ks, ke, 'cacheRead')) f.cacheRead = n;
    else if (isKey(b, ks, ke, 'cacheWrite')) f.cacheWrite = n;
    else if (isKey(b, ks, ke, 'cost')) {
      f.cost = 0;
      if (b[v] === 0x7b) {
        for (let c = firstKey(b, v); c >= 0;) {
          const cv = readKey(b, c);
          if (cv < 0) return false;
          // (only the total is read: the other costs are floats, whose reading is the slow part)
          let cend: number;
          if (isKey(b, keyStart, keyEnd, 'total')) {
            f.cost = valueAt(b, cv);
            cend = valueEnd;
          } else cend = skipValue(b, cv);
          c = nextKey(b, cend);
        }
      }
    }
    q = nextKey(b, end);
  }
  return true;
}

/** Counts the `toolCall` blocks of the content array at `a` into f.toolCalls; the index past it, or -1 on an escaped key. */
function readContent(b: Buffer, a: number, f: UsageFacts): number {
  let i = ws(b, a + 1);
  if (b[i] === 0x5d) return i + 1;
  for (;;) {
    if (b[i] === 0x7b) {
      let type: string | null | false = null;
      let q = firstKey(b, i);
      let end = i + 2;
      if (q < 0) end = ws(b, i + 1) + 1;
      while (q >= 0) {
        const v = readKey(b, q);
        if (v < 0) return -1;
        end = skipValue(b, v);
        if (isKey(b, keyStart, keyEnd, 'type')) type = stringAt(b, v);
        const n = ws(b, end);
        if (b[n] === 0x7d) {
          end = n + 1;
          break;
        }
        q = ws(b, n + 1);
      }
      if (type === 'toolCall') f.toolCalls++;
      i = end;
    } else i = skipValue(b, i);
    i = ws(b, i);
    if (b[i] === 0x5d) return i + 1;
    i = ws(b, i + 1);
  }
}

/**
 * Reads into `f` what stats sums of the message object at `b[messageStart]`: the usage (zeros when
 * it is missing or not an object), provider, model and the number of `toolCall` blocks in the content.
 * False when the caller must parse the line instead.
 */
export function readUsageFacts(b: Buffer, messageStart: number, f: UsageFacts): boolean {
  f.input = f.output = f.cacheRead = f.cacheWrite = f.cost = 0;
  f.provider = f.model = undefined;
  f.toolCalls = 0;
  for (let q = firstKey(b, messageStart); q >= 0;) {
    const v = readKey(b, q);
    if (v < 0) return false;
    const ks = keyStart;
    const ke = keyEnd;
    let end: number;
    if (isKey(b, ks, ke, 'usage')) {
      f.input = f.output = f.cacheRead = f.cacheWrite = f.cost = 0;
      if (b[v] === 0x7b && !readUsage(b, v, f)) return false;
      end = skipValue(b, v);
    } else if (isKey(b, ks, ke, 'model') || isKey(b, ks, ke, 'provider')) {
      const str = stringAt(b, v);
      if (str === false) return false;
      if (ke - ks === 5) f.model = str;
      else f.provider = str;
      end = skipValue(b, v);
    } else if (isKey(b, ks, ke, 'content')) {
      f.toolCalls = 0;
      if (b[v] === 0x5b) {
        end = readContent(b, v, f);
        if (end < 0) return false;
      } else end = skipValue(b, v);
    } else end = skipValue(b, v);
    q = nextKey(b, end);
  }
  return true;
}

/**
 * What readUsageFacts reads, from where the WebAssembly validator noted the values while it checked
 * the line (scanResult.ts ObjectKeys, when factsKnown): the usage object, provider and model are read
 * from their few bytes, the toolCall blocks were counted there. False when the caller must parse the line.
 */
export function readNotedFacts(b: Buffer, at: ObjectKeys, f: UsageFacts): boolean {
  f.input = f.output = f.cacheRead = f.cacheWrite = f.cost = 0;
  f.provider = f.model = undefined;
  f.toolCalls = at.toolCalls;
  if (at.usage >= 0 && b[at.usage] === 0x7b && !readUsage(b, at.usage, f)) return false;
  if (at.provider >= 0) {
    const s = stringAt(b, at.provider);
    if (s === false) return false;
    f.provider = s;
  }
  if (at.model >= 0) {
    const s = stringAt(b, at.model);
    if (s === false) return false;
    f.model = s;
  }
  return true;
}
