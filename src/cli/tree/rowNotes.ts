// Noting tree rows while a session is read (`pi-tree tree` reads the file once): for each message line
// the WebAssembly validator noted (jsonScan.wat), only the few values a row shows are read, while the
// line is still in the read buffer; thinking, usage and tool output are never turned into strings.
// The usual message, whose text is printable ASCII without escapes, goes into the row facts as bytes,
// straight from the buffer; any other is parsed value by value into a light message and noted through
// the same functions as a whole entry (core/context/entryText.ts), so a row reads the same either way.
import { noteCalls } from './callNotes.js';
import { jsonAt, keyList, plainValue, sameBytes } from '../../core/scan/jsonBytes.js';
import type { ObjectKeys, RowValue } from '../../core/scan/scanResult.js';
import { LAYOUT as L } from '../../core/scan/wasm/layout.js';
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
  const observe: MessageLineObserver & { fromBytes: number } = (index, i, b, message) => {
    if (rows.index === undefined) rows.bind(index);
    if (rows.index !== index || !message.rowsKnown) return;
    const code = index.roleCodeOf(i);
    if ((code === USER || code === ASSISTANT) && noteText(rows, i, b, code, message)) {
      observe.fromBytes++;
      return;
    }
    if (code === TOOL_RESULT && noteResult(rows, i, b, message)) return;
    const m = lightMessage(b, index.roleOf(i), code, message);
    if (m)
      rows.take(i, { type: 'message', id: '', parentId: null, timestamp: '', message: m } as unknown as SessionEntry);
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
function noteResult(rows: RowFacts, i: number, b: Buffer, m: ObjectKeys): boolean {
  const s = m.valueStart(L.TOOL_CALL_ID);
  if (s < 0) return false;
  const q = plainValue(b, s, m.valueEnd(L.TOOL_CALL_ID));
  if (q === s + 1) return false; // '' (no id)
  if (q >= 0) {
    if (!rows.takeResultAt(i, RESULT_BITS, b, s + 1, q)) rows.takeToolName(i, RESULT_BITS, valueAt(b, m, L.TOOL_NAME));
    return true;
  }
  const id = valueAt(b, m, L.TOOL_CALL_ID);
  if (!id) return false;
  rows.takeResult(i, RESULT_BITS, asText(id), () => valueAt(b, m, L.TOOL_NAME));
  return true;
}

/** pi's /tree shows the first 200 characters of a message's text. */
const TEXT_MAX = 200;
const PREFIX = [Buffer.from(''), Buffer.from('user: '), Buffer.from('assistant: ')];
/** [start, end) of the text values, then of the row's window of them (scratch of noteText). */
const ranges = new Int32Array(2 * L.MAX_BLOCKS);
const window = new Int32Array(2 * L.MAX_BLOCKS);

/**
 * Notes a user or assistant message straight from its bytes when every text it has is a string of
 * printable ASCII without escapes (what entryText and hasText read of it is then its bytes: nothing to
 * unescape, normalize turns nothing into spaces, and trim takes only spaces); false: not noted.
 */
function noteText(rows: RowFacts, i: number, b: Buffer, code: number, noted: ObjectKeys): boolean {
  const content = noted.valueStart(L.CONTENT);
  if (content < 0) return false;
  // The validator noted each text's [start, end) and whether it is plain (printable ASCII, no escapes).
  let n = 0;
  const c = b[content];
  if (c === 0x22) {
    const end = noted.contentPlainEnd();
    if (end < 0) return false;
    ranges[0] = content + 1;
    ranges[1] = end - 1;
    n = 2;
  } else if (c === 0x5b) {
    for (let k = 0, blocks = noted.blockCount(); k < blocks; k++) {
      if (noted.blockKind(k) !== L.KIND_TEXT) continue;
      const at = noted.textStart(k);
      if (at < 0) continue; // a text block without text adds nothing (String(undefined ?? ''))
      const end = noted.textPlainEnd(k);
      if (end < 0) return false;
      ranges[n++] = at + 1;
      ranges[n++] = end - 1;
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
    const stop = stopOf(b, noted);
    if (stop !== FINE) bits |= ERROR;
    if (from === to) {
      // no text in the row: hasText may still find some past the first 200 characters
      if (!hasPlainText(b, ranges, n)) bits |= NO_TEXT;
      if (stop === ABORTED) rows.takeText(i, bits, 'assistant: (aborted)');
      else if (noted.valueStart(L.ERROR_MESSAGE) >= 0)
        return false; // its error message is the row's text
      else rows.takeText(i, bits, 'assistant: (no content)');
      noteCalls(rows, i, b, noted);
      return true;
    }
  } else if (from === to) return false;
  let length = PREFIX[code].length;
  for (let k = from; k < to; k += 2) length += window[k + 1] - window[k];
  if (!rows.takeBytes(i, bits, PREFIX[code], b, window, from, to, length)) return false;
  if (code === ASSISTANT) noteCalls(rows, i, b, noted);
  return true;
}

/** stopOf: not an error (no stop reason, a falsy one, 'stop', 'toolUse'), 'aborted', another (an error). */
const FINE = 0;
const ABORTED = 1;
const FAILED = 2;
const [STOP, TOOL_USE, ABORTED_KEY] = keyList('"stop"', '"toolUse"', '"aborted"');

/** What the message's stop reason is (its bytes compared, when they are its text). */
function stopOf(b: Buffer, m: ObjectKeys): number {
  const s = m.valueStart(L.STOP_REASON);
  if (s < 0) return FINE;
  const q = plainValue(b, s, m.valueEnd(L.STOP_REASON));
  if (q < 0) {
    const stop = jsonAt(b, s, m.valueEnd(L.STOP_REASON));
    return !stop || stop === 'stop' || stop === 'toolUse' ? FINE : stop === 'aborted' ? ABORTED : FAILED;
  }
  return q === s + 1 || spells(b, s, q, STOP) || spells(b, s, q, TOOL_USE)
    ? FINE
    : spells(b, s, q, ABORTED_KEY)
      ? ABORTED
      : FAILED;
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
 * The message of the line just validated with only what a row reads (entryText.ts entryText, hasText,
 * toolCallsOf; the filter's stop reason), each value parsed from its own bytes: the same values
 * JSON.parse would give those keys. Undefined when the notes do not cover it.
 */
function lightMessage(b: Buffer, role: string | undefined, code: number, noted: ObjectKeys): Obj | undefined {
  const m: Obj = { role };
  if (code === USER || code === ASSISTANT) {
    const start = noted.valueStart(L.CONTENT);
    if (start >= 0) {
      if (b[start] !== 0x5b) m.content = valueAt(b, noted, L.CONTENT);
      else {
        const blocks: unknown[] = [];
        for (let k = 0, n = noted.blockCount(); k < n; k++) {
          // a block no row reads stands as an empty object (neither text nor a call)
          blocks.push(
            noted.blockKind(k) === 0 ? {} : JSON.parse(b.toString('utf8', noted.blockStart(k), noted.blockEnd(k))),
          );
        }
        m.content = blocks;
      }
    }
    if (code === ASSISTANT) {
      m.stopReason = valueAt(b, noted, L.STOP_REASON);
      m.errorMessage = valueAt(b, noted, L.ERROR_MESSAGE);
    }
  } else if (code === TOOL_RESULT) {
    m.toolCallId = valueAt(b, noted, L.TOOL_CALL_ID);
    m.toolName = valueAt(b, noted, L.TOOL_NAME);
  } else if (role === 'bashExecution') m.command = valueAt(b, noted, L.COMMAND);
  return m;
}

/** The noted value `at` (undefined: no such key), as JSON.parse gives it. */
function valueAt(b: Buffer, m: ObjectKeys, at: RowValue): unknown {
  const s = m.valueStart(at);
  return s < 0 ? undefined : jsonAt(b, s, m.valueEnd(at));
}
