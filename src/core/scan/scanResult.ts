// What the scanners answer, in structs the caller owns and hands in: one per reader, filled line after
// line (no object per line, and no answer left in a module for the next call to overwrite). ObjectKeys is
// what jsonValid.ts scanValue found of an object; LineScan what lineHead.ts found of a message line.
import { LAYOUT as L } from './wasm/layout.js';

/** What the validator notes besides a value's validity and keys: nothing, what stats reads, or also what a tree row reads. */
export type Notes = false | 'facts' | 'rows';

/** A value the WebAssembly validator notes for a tree row (layout.ts): its [start, end) are read with valueStart / valueEnd. */
export type RowValue =
  | typeof L.CONTENT
  | typeof L.STOP_REASON
  | typeof L.ERROR_MESSAGE
  | typeof L.TOOL_CALL_ID
  | typeof L.TOOL_NAME
  | typeof L.COMMAND;

const NO_WORDS = new Int32Array(0);
const W_BLOCK_COUNT = L.BLOCK_COUNT / 4;
const W_BLOCKS = L.BLOCKS / 4;
const W_BLOCK = L.BLOCK_SIZE / 4;
const W_BLOCK_END = L.BLOCK_END / 4;
const W_BLOCK_KIND = L.BLOCK_KIND / 4;
const W_TEXTS = L.BLOCK_TEXTS / 4;
const W_CONTENT_PLAIN_END = L.CONTENT_PLAIN_END / 4;

/** Facts about the outermost object of a value, filled by scanValue when it is given one. */
export class ObjectKeys {
  /** Keys spelled "role", plus keys with an escape (which may spell it once decoded); up to 3 counted in WebAssembly. */
  role = 0;
  /** Keys spelled "type" (idem). */
  type = 0;
  /** Whether a "content" key's (last) value is not null; unknown when a key had an escape. */
  content = false;
  escaped = false;
  /** Whether a "content" key is there at all (pi's isMessageWithContent); exact unless a key had an escape. */
  hasContent = false;
  /**
   * Whether the WebAssembly validator noted what stats reads of a message (asked with 'facts' or 'rows'):
   * false after the JavaScript loop, or when a key or a content block's "type" had an escape.
   */
  factsKnown = false;
  /** Where the value of the (last) "usage", "provider" and "model" key starts; -1 when absent. */
  usage = -1;
  provider = -1;
  model = -1;
  /** Blocks of the (last) "content" array whose type is "toolCall". */
  toolCalls = 0;
  /** Whether the notes a tree row reads (the methods below) cover the object too; implies factsKnown. */
  rowsKnown = false;
  /** The validator's memory as words and the address of the scanned buffer's first byte: where the notes below are. */
  words: Int32Array = NO_WORDS;
  base = 0;

  // What a tree row reads, when rowsKnown: indexes of the scanned buffer. Valid until the next scan
  // into the validator's memory.

  /** Where the noted value `at` starts (-1: no such key). */
  valueStart(at: RowValue): number {
    const w = this.words[at >> 2];
    return w === 0 ? -1 : w - this.base;
  }

  /** Where it ends (the next key or the closing brace; whitespace before it included). */
  valueEnd(at: RowValue): number {
    return this.words[(at >> 2) + 1] - this.base;
  }

  /** How many blocks of the (last) "content" array are noted (all of them, when rowsKnown). */
  blockCount(): number {
    return this.words[W_BLOCK_COUNT];
  }

  blockStart(k: number): number {
    return this.words[W_BLOCKS + W_BLOCK * k] - this.base;
  }

  blockEnd(k: number): number {
    return this.words[W_BLOCKS + W_BLOCK * k + W_BLOCK_END] - this.base;
  }

  /** layout.ts KIND_TEXT, KIND_TOOL_CALL, or 0 for another block. */
  blockKind(k: number): number {
    return this.words[W_BLOCKS + W_BLOCK * k + W_BLOCK_KIND];
  }

  /** Where the value of block k's (last) "text" key starts (-1: no such key). */
  textStart(k: number): number {
    const w = this.words[W_TEXTS + 2 * k];
    return w === 0 ? -1 : w - this.base;
  }

  /** Where that value ends (after its quote) when it is a string of printable ASCII without escapes, else -1. */
  textPlainEnd(k: number): number {
    const w = this.words[W_TEXTS + 2 * k + 1];
    return w === 0 ? -1 : w - this.base;
  }

  /** The same end for the (last) "content" value itself, else -1. */
  contentPlainEnd(): number {
    const w = this.words[W_CONTENT_PLAIN_END];
    return w === 0 ? -1 : w - this.base;
  }
}

/** Where the head of a message line in pi's shape has its fields (indexes of the line's buffer), and its message's keys. */
export class LineScan {
  idStart = 0;
  idEnd = 0;
  /** -1, -1: a null parent. */
  parentStart = -1;
  parentEnd = -1;
  /** The entry's time in ms, and where its timestamp's text is. */
  time = 0;
  timeStart = 0;
  timeEnd = 0;
  roleStart = 0;
  roleEnd = 0;
  /** Index of the `{` that opens the message object. */
  messageStart = 0;
  /** The message object's keys (and notes), when the whole line was scanned. */
  readonly message = new ObjectKeys();
}
