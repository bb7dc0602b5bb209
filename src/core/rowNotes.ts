// Noting tree rows while a session is read (`pi-tree tree` reads the file once): for each message line
// the WebAssembly validator noted (jsonScan.wat), only the few values a row shows are read, while the
// line is still in the read buffer; thinking, usage and tool output are never turned into strings.
// The usual message, whose text is printable ASCII without escapes, goes into the row facts as bytes,
// straight from the buffer; any other is parsed value by value into a light message and noted through
// the same functions as a whole entry (preview.ts), so a row reads the same either way.
import { outerKeys } from './jsonValid.js';
import { wasmNotes } from './jsonScanWasm.js';
import { formatToolCall } from './preview.js';
import type { MessageLineObserver } from './reader.js';
import { ERROR, KNOWN, NO_TEXT, ROLE_SHIFT, type RowFacts } from './rowFacts.js';
import type { SessionEntry } from './types.js';
import { asText } from './values.js';

type Obj = Record<string, unknown>;

/** Role codes (sessionIndex.ts ROLE_NAMES) whose rows read more than the role. */
const USER = 1;
const ASSISTANT = 2;
const TOOL_RESULT = 3;

/**
 * A reader observer (ReadOptions.onMessageLine) that notes into `rows` what the tree shows of each
 * message line the validator noted, right after the line was indexed.
 */
export function noteRows(rows: RowFacts): MessageLineObserver & { fromBytes: number } {
  const observe: MessageLineObserver & { fromBytes: number } = (index, i, b) => {
    rows.index ??= index;
    if (rows.index !== index || !outerKeys.rowsKnown) return;
    const code = index.roleCodeOf(i);
    if ((code === USER || code === ASSISTANT) && noteText(rows, i, b, code)) {
      observe.fromBytes++;
      return;
    }
    if (code === TOOL_RESULT) {
      // named after its call: only the tool's name is read besides, and only when the call is not known
      const { words, base } = wasmNotes();
      const id = valueAt(b, words, 11, base);
      if (id) return rows.takeResult(i, KNOWN | (TOOL_RESULT << ROLE_SHIFT), asText(id), () => valueAt(b, words, 13, base));
    }
    const m = lightMessage(b, index.roleOf(i), code);
    if (m) rows.take(i, { type: 'message', id: '', parentId: null, timestamp: '', message: m } as unknown as SessionEntry);
  };
  observe.notes = 'rows';
  /** How many messages were noted straight from their bytes (noteText). */
  observe.fromBytes = 0;
  return observe;
}

/** pi's /tree shows the first 200 characters of a message's text. */
const TEXT_MAX = 200;
const PREFIX = [Buffer.from(''), Buffer.from('user: '), Buffer.from('assistant: ')];
/** Words of the validator's notes (jsonScan.wat): each block's text value, and the content's end when it is a plain string. */
const TEXTS = 1024 / 4;
const CONTENT_PLAIN = 1536 / 4;
/** [start, end) of the text values, then of the row's window of them (a message notes at most 64 blocks). */
const ranges = new Int32Array(2 * 64);
const window = new Int32Array(2 * 64);
/** Where the last string plainString read closes. */
let closed = 0;

/**
 * Notes a user or assistant message straight from its bytes when every text it has is a string of
 * printable ASCII without escapes (what entryText and hasText read of it is then its bytes: nothing to
 * unescape, normalize turns nothing into spaces, and trim takes only spaces); false: not noted.
 */
function noteText(rows: RowFacts, i: number, b: Buffer, code: number): boolean {
  const { words, base } = wasmNotes();
  const content = words[5];
  if (content === 0) return false;
  // The validator noted each text's [start, end) and whether it is plain (printable ASCII, no escapes).
  let n = 0;
  const c = b[content - base];
  if (c === 0x22) {
    if (words[CONTENT_PLAIN] === 0) return false;
    ranges[0] = content - base + 1;
    ranges[1] = words[CONTENT_PLAIN] - base - 1;
    n = 2;
  } else if (c === 0x5b) {
    for (let k = 0, blocks = words[17]; k < blocks; k++) {
      if (words[20 + 3 * k] !== 1) continue;
      const at = words[TEXTS + 2 * k];
      if (at === 0) continue; // a text block without text adds nothing (asText(undefined ?? ''))
      const end = words[TEXTS + 2 * k + 1];
      if (end === 0) return false;
      ranges[n++] = at - base + 1;
      ranges[n++] = end - base - 1;
    }
  } else return false;
  // fullText(content).slice(0, 200), then trimmed
  let m = 0;
  let budget = TEXT_MAX;
  for (let k = 0; k < n && budget > 0; k += 2) {
    const len = Math.min(ranges[k + 1] - ranges[k], budget);
    if (len === 0) continue;
    window[m++] = ranges[k];
    window[m++] = ranges[k] + len;
    budget -= len;
  }
  let from = 0;
  while (from < m) {
    while (window[from] < window[from + 1] && b[window[from]] === 0x20) window[from]++;
    if (window[from] < window[from + 1]) break;
    from += 2;
  }
  let to = m;
  while (to > from) {
    while (window[to - 1] > window[to - 2] && b[window[to - 1] - 1] === 0x20) window[to - 1]--;
    if (window[to - 1] > window[to - 2]) break;
    to -= 2;
  }
  let bits = KNOWN | (code << ROLE_SHIFT);
  if (code === ASSISTANT) {
    const stop = valueAt(b, words, 7, base);
    if (stop && stop !== 'stop' && stop !== 'toolUse') bits |= ERROR;
    if (from === to) {
      // no text in the row: hasText may still find some past the first 200 characters
      if (!hasPlainText(b, ranges, n)) bits |= NO_TEXT;
      if (stop === 'aborted') rows.takeText(i, bits, 'assistant: (aborted)');
      else if (words[9] !== 0)
        return false; // its error message is the row's text
      else rows.takeText(i, bits, 'assistant: (no content)');
      noteCalls(rows, i, b, words, base);
      return true;
    }
  } else if (from === to) return false;
  let length = PREFIX[code].length;
  for (let k = from; k < to; k += 2) length += window[k + 1] - window[k];
  if (!rows.takeBytes(i, bits, PREFIX[code], b, window, from, to, length)) return false;
  if (code === ASSISTANT) noteCalls(rows, i, b, words, base);
  return true;
}

/** Tool names whose call text (preview.ts formatToolCall) reads only some of the arguments: ARG_KEYS. */
const NAMED_ARGS = new Set(['read', 'write', 'edit', 'bash', 'grep', 'find', 'ls']);
const CALL_KEYS = keyList('id', 'name', 'arguments');
const ARG_NAMES = ['path', 'file_path', 'offset', 'limit', 'command', 'pattern'];
const ARG_KEYS = keyList(...ARG_NAMES);
const callAt = new Int32Array(2 * CALL_KEYS.length);
const argAt = new Int32Array(2 * ARG_KEYS.length);

/**
 * The tool calls of an assistant message (preview.ts toolCallsOf), each read from its block: for the
 * tools whose text names a few arguments, only those are parsed (a write's content never is); any
 * other call is parsed whole.
 */
function noteCalls(rows: RowFacts, i: number, b: Buffer, words: Int32Array, base: number): void {
  for (let k = 0, blocks = words[17]; k < blocks; k++) {
    const w = 18 + 3 * k;
    if (words[w + 2] !== 2) continue;
    const s = words[w] - base;
    const e = words[w + 1] - base;
    if (valuesOf(b, s, e, CALL_KEYS, callAt)) {
      const name = asText(valueIn(b, callAt, 1));
      const args = callAt[4];
      if (NAMED_ARGS.has(name) && args !== 0 && b[args] === 0x7b && valuesOf(b, args, callAt[5], ARG_KEYS, argAt)) {
        const named: Obj = {};
        for (let j = 0; j < ARG_NAMES.length; j++) if (argAt[2 * j] !== 0) named[ARG_NAMES[j]] = valueIn(b, argAt, j);
        rows.addCall(i, asText(valueIn(b, callAt, 0)), formatToolCall(name, named));
        continue;
      }
    }
    const c = JSON.parse(b.toString('utf8', s, e)) as Obj;
    rows.addCall(i, asText(c.id), formatToolCall(asText(c.name), (c.arguments as Obj) ?? {}));
  }
}

/** Whether some text range holds more than spaces. */
function hasPlainText(b: Buffer, r: Int32Array, n: number): boolean {
  for (let k = 0; k < n; k += 2) for (let x = r[k]; x < r[k + 1]; x++) if (b[x] !== 0x20) return true;
  return false;
}

/** Whether the string opening at `b[s]` is ASCII without escapes (its bytes are its text); `closed`: its closing quote. */
function plainString(b: Buffer, s: number): boolean {
  let k = s + 1;
  // (`!(x < 0x80)` is also true past the buffer's end: a line the validator passed never gets there)
  for (let x = b[k]; x !== 0x22; x = b[++k]) if (x === 0x5c || !(x < 0x80)) return false;
  closed = k;
  return true;
}

function keyList(...names: string[]): Buffer[] {
  return names.map((n) => Buffer.from(n));
}

/**
 * Where the values of the keys `names` are in the (valid) object `b[s…e)`: [start, end) pairs into
 * `at` by the names' order (0, 0: no such key; the last of a repeated key, as JSON.parse keeps). False
 * when a key has an escape (it could spell one of them).
 */
function valuesOf(b: Buffer, s: number, e: number, names: Buffer[], at: Int32Array): boolean {
  at.fill(0);
  let k = s + 1;
  for (;;) {
    k = skipWs(b, k, e);
    if (b[k] !== 0x22) return true; // the closing brace
    const key = k + 1;
    k = key;
    for (let x = b[k]; x !== 0x22; x = b[++k]) if (x === 0x5c || x === undefined) return false;
    const len = k - key;
    let j = names.length - 1;
    for (; j >= 0; j--) if (names[j].length === len && sameBytes(b, key, names[j])) break;
    k = skipWs(b, skipWs(b, k + 1, e) + 1, e); // past the colon
    const end = skipValue(b, k, e);
    if (j >= 0) {
      at[2 * j] = k;
      at[2 * j + 1] = end;
    }
    k = skipWs(b, end, e);
    if (b[k] !== 0x2c) return true;
    k++;
  }
}

function sameBytes(b: Buffer, at: number, name: Buffer): boolean {
  for (let x = 0; x < name.length; x++) if (b[at + x] !== name[x]) return false;
  return true;
}

/** The value of the j-th key valuesOf found, as JSON.parse gives it (undefined: no such key). */
function valueIn(b: Buffer, at: Int32Array, j: number): unknown {
  return at[2 * j] === 0 ? undefined : jsonAt(b, at[2 * j], at[2 * j + 1]);
}

/** The JSON value in `b[s…e)` (whitespace may follow it) as JSON.parse gives it. */
function jsonAt(b: Buffer, s: number, e: number): unknown {
  // The usual value, a string of ASCII without escapes, is its bytes as they are.
  if (b[s] === 0x22 && plainString(b, s) && skipWs(b, closed + 1, e) === e) return b.toString('latin1', s + 1, closed);
  return JSON.parse(b.toString('utf8', s, e));
}

function skipWs(b: Buffer, k: number, e: number): number {
  while (k < e && (b[k] === 0x20 || b[k] === 0x0a || b[k] === 0x0d || b[k] === 0x09)) k++;
  return k;
}

/** Past the (valid) JSON value at `b[k]`. */
function skipValue(b: Buffer, k: number, e: number): number {
  let depth = 0;
  for (; k < e; k++) {
    const x = b[k];
    if (x === 0x22) {
      for (k++; k < e && b[k] !== 0x22; k++) if (b[k] === 0x5c) k++;
      if (depth === 0) return k + 1;
    } else if (x === 0x7b || x === 0x5b) depth++;
    else if (x === 0x7d || x === 0x5d) {
      if (depth === 0) return k; // the end of a number or literal before the enclosing close
      if (--depth === 0) return k + 1;
    } else if (depth === 0 && (x === 0x2c || x === 0x20 || x === 0x0a || x === 0x0d || x === 0x09)) return k;
  }
  return k;
}

/**
 * The message of the line just validated with only what a row reads (preview.ts entryText, hasText,
 * toolCallsOf; the filter's stop reason), each value parsed from its own bytes: the same values
 * JSON.parse would give those keys. Undefined when the notes do not cover it.
 */
function lightMessage(b: Buffer, role: string | undefined, code: number): Obj | undefined {
  const { words, base } = wasmNotes();
  const m: Obj = { role };
  // [start, end) pairs at words 5.. (jsonScan.wat); 0: no such key
  if (code === USER || code === ASSISTANT) {
    const start = words[5];
    if (start !== 0) {
      if (b[start - base] !== 0x5b) m.content = valueAt(b, words, 5, base);
      else {
        const blocks: unknown[] = [];
        const n = words[17];
        for (let k = 0; k < n; k++) {
          const w = 18 + 3 * k;
          // a block no row reads stands as an empty object (neither text nor a call)
          blocks.push(words[w + 2] === 0 ? {} : JSON.parse(b.toString('utf8', words[w] - base, words[w + 1] - base)));
        }
        m.content = blocks;
      }
    }
    if (code === ASSISTANT) {
      m.stopReason = valueAt(b, words, 7, base);
      m.errorMessage = valueAt(b, words, 9, base);
    }
  } else if (code === TOOL_RESULT) {
    m.toolCallId = valueAt(b, words, 11, base);
    m.toolName = valueAt(b, words, 13, base);
  } else if (role === 'bashExecution') m.command = valueAt(b, words, 15, base);
  return m;
}

/** The value noted at words[w], words[w + 1] (undefined: no such key), as JSON.parse gives it. */
function valueAt(b: Buffer, words: Int32Array, w: number, base: number): unknown {
  return words[w] === 0 ? undefined : jsonAt(b, words[w] - base, words[w + 1] - base);
}
