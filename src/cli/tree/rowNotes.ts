// Noting tree rows while a session is read (`pi-tree tree` reads the file once): for each message line
// the WebAssembly validator noted (jsonScan.wat), only the few values a row shows are read, while the
// line is still in the read buffer; thinking, usage and tool output are never turned into strings.
// The usual message, whose text is printable ASCII without escapes, goes into the row facts as bytes,
// straight from the buffer; any other is parsed value by value into a light message and noted through
// the same functions as a whole entry (preview.ts), so a row reads the same either way.
import { noteCalls } from './callNotes.js';
import { jsonAt, keyList, plainValue, sameBytes } from '../../core/scan/jsonBytes.js';
import { outerKeys } from '../../core/scan/jsonValid.js';
import { wasmNotes } from '../../core/scan/jsonScanWasm.js';
import type { MessageLineObserver } from '../../core/index/reader.js';
import { ERROR, KNOWN, NO_TEXT, ROLE_SHIFT, type RowFacts } from './rowFacts.js';
import type { SessionEntry } from '../../core/format/types.js';
import { asText } from '../../core/format/values.js';

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
    if (rows.index === undefined) rows.bind(index);
    if (rows.index !== index || !outerKeys.rowsKnown) return;
    const code = index.roleCodeOf(i);
    if ((code === USER || code === ASSISTANT) && noteText(rows, i, b, code)) {
      observe.fromBytes++;
      return;
    }
    if (code === TOOL_RESULT && noteResult(rows, i, b)) return;
    const m = lightMessage(b, index.roleOf(i), code);
    if (m) rows.take(i, { type: 'message', id: '', parentId: null, timestamp: '', message: m } as unknown as SessionEntry);
  };
  observe.notes = 'rows';
  /** How many messages were noted straight from their bytes (noteText). */
  observe.fromBytes = 0;
  return observe;
}

const RESULT_BITS = KNOWN | (TOOL_RESULT << ROLE_SHIFT);

/**
 * Notes a tool result after its call: only the tool's name is read besides, and only when the call is
 * not known. The usual id, ASCII without escapes, is looked up by its bytes. False: it has no id.
 */
function noteResult(rows: RowFacts, i: number, b: Buffer): boolean {
  const { words, base } = wasmNotes();
  if (words[11] === 0) return false;
  const s = words[11] - base;
  const q = plainValue(b, s, words[12] - base);
  if (q === s + 1) return false; // '' (no id)
  if (q >= 0) {
    if (!rows.takeResultAt(i, RESULT_BITS, b, s + 1, q)) rows.takeToolName(i, RESULT_BITS, valueAt(b, words, 13, base));
    return true;
  }
  const id = valueAt(b, words, 11, base);
  if (!id) return false;
  rows.takeResult(i, RESULT_BITS, asText(id), () => valueAt(b, words, 13, base));
  return true;
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
      if (at === 0) continue; // a text block without text adds nothing (String(undefined ?? ''))
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
    const stop = stopOf(b, words, base);
    if (stop !== FINE) bits |= ERROR;
    if (from === to) {
      // no text in the row: hasText may still find some past the first 200 characters
      if (!hasPlainText(b, ranges, n)) bits |= NO_TEXT;
      if (stop === ABORTED) rows.takeText(i, bits, 'assistant: (aborted)');
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

/** stopOf: not an error (no stop reason, a falsy one, 'stop', 'toolUse'), 'aborted', another (an error). */
const FINE = 0;
const ABORTED = 1;
const FAILED = 2;
const [STOP, TOOL_USE, ABORTED_KEY] = keyList('"stop"', '"toolUse"', '"aborted"');

/** What the message's stop reason is (its bytes compared, when they are its text). */
function stopOf(b: Buffer, words: Int32Array, base: number): number {
  if (words[7] === 0) return FINE;
  const s = words[7] - base;
  const q = plainValue(b, s, words[8] - base);
  if (q < 0) {
    const stop = jsonAt(b, s, words[8] - base);
    return !stop || stop === 'stop' || stop === 'toolUse' ? FINE : stop === 'aborted' ? ABORTED : FAILED;
  }
  return q === s + 1 || spells(b, s, q, STOP) || spells(b, s, q, TOOL_USE) ? FINE : spells(b, s, q, ABORTED_KEY) ? ABORTED : FAILED;
}

/** Whether the string `b[s…q]` (quotes included) is `name`. */
function spells(b: Buffer, s: number, q: number, name: Buffer): boolean {
  return q + 1 - s === name.length && sameBytes(b, s, name);
}

/** Whether some text range holds more than spaces. */
function hasPlainText(b: Buffer, r: Int32Array, n: number): boolean {
  for (let k = 0; k < n; k += 2) for (let x = r[k]; x < r[k + 1]; x++) if (b[x] !== 0x20) return true;
  return false;
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
