// What a row of pi's /tree needs of each entry, by record number: its text, what the filter reads of
// it (its role, whether an assistant message has text or ended in error), the tool call a result
// answers, and the texts of the calls a message makes. noteRows fills them while the session is read:
// for each message line the WebAssembly validator noted (jsonScan.wat), only the few values a row shows
// are parsed (text and toolCall blocks, stop reason, error, tool names), while the line is still in the
// read buffer; thinking, usage and tool output are never turned into strings. Entries it could not note
// are given to `take` whole, afterwards. Both go through the same functions (preview.ts), so a row
// reads the same either way.
import { outerKeys } from './jsonValid.js';
import { wasmNotes } from './jsonScanWasm.js';
import { entryText, formatToolCall, hasText, toolCallsOf } from './preview.js';
import { grown } from './indexRecord.js';
import { StrSlots } from './idKeys.js';
import type { MessageLineObserver } from './reader.js';
import type { SessionIndex } from './sessionIndex.js';
import { messageOf, type SessionEntry } from './types.js';

type Obj = Record<string, unknown>;

/** bits: the facts are there; an assistant message without text; one that ended in error. */
export const KNOWN = 1;
export const NO_TEXT = 2;
export const ERROR = 4;
/** bits >> ROLE_SHIFT & 3: the role as the filter reads it (ROLES). */
const ROLE_SHIFT = 3;
/** The text is a string in `odd` (it needs escaping on a terminal, or is not well-formed UTF-16). */
const ODD = 32;
const ROLES = [undefined, 'user', 'assistant', 'toolResult'] as const;

// eslint-disable-next-line no-control-regex -- the characters safeText escapes (src/cli/safeText.ts)
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
// Anything but printable ASCII (whose UTF-8 is its characters, one byte each)
const NOT_PLAIN = /[^\x20-\x7e]/;
// A surrogate without its pair: UTF-8 cannot hold it (it would come back as U+FFFD)
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const CHUNK = 1 << 22;
const BATCH = 1 << 16;

/**
 * Row texts as UTF-8 in chunks of 4 MiB, by handle (chunk × CHUNK + offset) and length: a million rows
 * of text held as a million strings cost as much memory again, and a second of garbage collection.
 * Texts the bytes would not give back exactly (lone surrogates), or that need escaping on a terminal,
 * stay strings. Printable ASCII texts (most) are joined and written a batch at a time: a write per
 * text costs more than its bytes.
 */
class TextArena {
  private readonly chunks: Buffer[] = [];
  /** Where the next text goes in the last chunk (the batch not written yet included). */
  private at: number;
  private batch = '';
  private batchAt = 0;
  private readonly batchMax: number;
  /** The byte length of the last text put. */
  length = 0;
  /** `chunk`: bytes per chunk (smaller in tests, to cross chunks often). */
  constructor(private readonly chunk = CHUNK) {
    this.at = chunk;
    this.batchMax = Math.min(BATCH, chunk);
  }
  /** Puts `s`; its handle, or -1 when it stays a string. */
  put(s: string): number {
    const chunk = this.chunk;
    if (s.length <= this.batchMax && !NOT_PLAIN.test(s)) {
      if (this.at + s.length > chunk) this.newChunk();
      const h = (this.chunks.length - 1) * chunk + this.at;
      this.batch += s;
      this.at += s.length;
      this.length = s.length;
      if (this.batch.length >= this.batchMax) this.flush();
      return h;
    }
    if (s.length * 3 > chunk || UNSAFE.test(s) || LONE_SURROGATE.test(s)) return -1;
    this.flush();
    if (this.at + s.length * 3 > chunk) this.newChunk();
    const c = this.chunks.length - 1;
    const h = c * chunk + this.at;
    this.length = this.chunks[c].write(s, this.at, 'utf8');
    this.at += this.length;
    this.batchAt = this.at;
    return h;
  }
  /** The chunk of handle `h` (every text put is in it). */
  chunkOf(h: number): Buffer {
    this.flush();
    return this.chunks[Math.floor(h / this.chunk)];
  }
  /** Where in its chunk handle `h` is. */
  offsetOf(h: number): number {
    return h % this.chunk;
  }
  private newChunk(): void {
    this.flush();
    this.chunks.push(Buffer.allocUnsafe(this.chunk));
    this.at = this.batchAt = 0;
  }
  private flush(): void {
    if (!this.batch) return;
    this.chunks[this.chunks.length - 1].write(this.batch, this.batchAt, 'latin1');
    this.batchAt = this.at;
    this.batch = '';
  }
}

/** Row facts by record number. */
export class RowFacts {
  /** The index the records belong to (noteRows binds it on the first line). */
  index: SessionIndex | undefined;
  bits = new Uint8Array(0);
  // For a tool result: the slot of the call it answers (+1; 0: none), or its id while no call with that
  // id has been seen. A later call with the same id takes over the slot, so the last one in file order
  // names the result, as in pi.
  private resultSlot = new Int32Array(0);
  private readonly resultId = new Map<number, string>();
  private readonly arena: TextArena;
  // The text of record i: handle and byte length in the arena, or a string in `odd`.
  private textAt = new Float64Array(0);
  private textLen = new Int32Array(0);
  private readonly odd = new Map<number, string>();
  // Calls by id: the text of the last one in file order, in a slot that knows its record.
  private readonly callSlot = new StrSlots();
  private callAt = new Float64Array(0);
  private callLen = new Int32Array(0);
  private callRecs = new Int32Array(0);
  private readonly oddCalls = new Map<number, string>();

  /** `chunkBytes`: the size of the text arena's chunks (4 MiB; smaller in tests). */
  constructor(chunkBytes?: number) {
    this.arena = new TextArena(chunkBytes);
  }

  has(i: number): boolean {
    return i < this.bits.length && (this.bits[i] & KNOWN) !== 0;
  }

  /** The role the filter reads ('user', 'assistant', 'toolResult' or another). */
  roleOf(i: number): (typeof ROLES)[number] {
    return ROLES[(this.bits[i] >> ROLE_SHIFT) & 3];
  }

  /** The row text of record `i` (one the facts have). */
  textOf(i: number): string {
    if (this.bits[i] & ODD) return this.odd.get(i)!;
    const h = this.textAt[i];
    const c = this.arena.chunkOf(h);
    const o = this.arena.offsetOf(h);
    return c.toString('utf8', o, o + this.textLen[i]);
  }

  /**
   * Writes the row text of record `i` as a terminal shows it: its UTF-8 bytes as they are, or
   * `escaped(text)` for a text that needs it.
   */
  writeText(i: number, out: { add(s: string): void; addBytes(b: Buffer, start: number, end: number): void }, escaped: (s: string) => string): void {
    if (this.bits[i] & ODD) return out.add(escaped(this.odd.get(i)!));
    const h = this.textAt[i];
    const o = this.arena.offsetOf(h);
    out.addBytes(this.arena.chunkOf(h), o, o + this.textLen[i]);
  }

  /** Gives tool result `i` the text of the call it answers, if there is one (other records: nothing). */
  nameAfterCall(i: number): void {
    if (this.roleOf(i) !== 'toolResult') return; // (no lookup for the rows that are not results)
    let s = this.resultSlot[i] - 1;
    if (s < 0) {
      const id = this.resultId.get(i);
      if (id === undefined) return;
      s = this.callSlot.find(id);
      if (s < 0) return;
    }
    const odd = this.oddCalls.get(s);
    if (odd !== undefined) {
      this.odd.set(i, odd);
      this.bits[i] |= ODD;
      return;
    }
    this.odd.delete(i);
    this.bits[i] &= ~ODD;
    this.textAt[i] = this.callAt[s];
    this.textLen[i] = this.callLen[s];
  }

  /** Notes record `i` from its entry (or the light message noteRows made of its line). */
  take(i: number, e: SessionEntry): void {
    const m = messageOf(e);
    const role = m?.role;
    const code = role === 'user' ? 1 : role === 'assistant' ? 2 : role === 'toolResult' ? 3 : 0;
    let bits = KNOWN | (code << ROLE_SHIFT);
    if (code === 2) {
      if (!hasText(m!.content)) bits |= NO_TEXT;
      if (m!.stopReason && m!.stopReason !== 'stop' && m!.stopReason !== 'toolUse') bits |= ERROR;
    }
    if (i >= this.bits.length) {
      const cap = Math.max(i + 1, 2 * this.bits.length, 1024);
      this.bits = grown(this.bits, cap);
      this.textAt = grown(this.textAt, cap);
      this.textLen = grown(this.textLen, cap);
      this.resultSlot = grown(this.resultSlot, cap);
    }
    let text: string;
    if (code === 3 && m!.toolCallId) {
      const id = String(m!.toolCallId);
      const s = this.callSlot.find(id);
      if (s >= 0) {
        // its call's text (nameAfterCall takes it again at the end, should a later call have the id)
        this.bits[i] = bits;
        this.resultSlot[i] = s + 1;
        return this.nameAfterCall(i);
      }
      this.resultId.set(i, id);
      text = `[${String(m!.toolName ?? 'tool')}]`;
    } else text = entryText(e);
    const h = this.arena.put(text);
    if (h < 0) {
      bits |= ODD;
      this.odd.set(i, text);
    } else {
      this.textAt[i] = h;
      this.textLen[i] = this.arena.length;
    }
    this.bits[i] = bits;
    for (const c of toolCallsOf(e)) this.addCall(i, c.id, formatToolCall(c.name, c.arguments));
  }

  private addCall(i: number, id: string, text: string): void {
    const s = this.callSlot.slot(id);
    if (!this.callSlot.added) {
      if (this.callRecs[s] > i) return; // a later call with this id is already there
    } else if (s >= this.callRecs.length) {
      const cap = Math.max(s + 1, 2 * this.callRecs.length, 1024);
      this.callRecs = grown(this.callRecs, cap);
      this.callAt = grown(this.callAt, cap);
      this.callLen = grown(this.callLen, cap);
    }
    this.callRecs[s] = i;
    const h = this.arena.put(text);
    if (h < 0) this.oddCalls.set(s, text);
    else {
      this.oddCalls.delete(s);
      this.callAt[s] = h;
      this.callLen[s] = this.arena.length;
    }
  }
}

/** Role codes (sessionIndex.ts ROLE_NAMES) whose rows read more than the role. */
const USER = 1;
const ASSISTANT = 2;
const TOOL_RESULT = 3;

/**
 * A reader observer (ReadOptions.onMessageLine) that notes into `rows` what the tree shows of each
 * message line the validator noted, right after the line was indexed.
 */
export function noteRows(rows: RowFacts): MessageLineObserver {
  const observe: MessageLineObserver = (index, i, b) => {
    rows.index ??= index;
    if (rows.index !== index || !outerKeys.rowsKnown) return;
    const m = lightMessage(b, index.roleOf(i), index.roleCodeOf(i));
    if (m) rows.take(i, { type: 'message', id: '', parentId: null, timestamp: '', message: m } as unknown as SessionEntry);
  };
  observe.notes = 'rows';
  return observe;
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
  if (words[w] === 0) return undefined;
  const s = words[w] - base;
  const e = words[w + 1] - base;
  // The usual value, a string of ASCII without escapes, is its bytes as they are.
  if (b[s] === 0x22) {
    let k = s + 1;
    while (k < e && b[k] !== 0x22 && b[k] !== 0x5c && b[k] < 0x80) k++;
    if (k < e && b[k] === 0x22) {
      let r = k + 1;
      while (r < e && (b[r] === 0x20 || b[r] === 0x09 || b[r] === 0x0a || b[r] === 0x0d)) r++;
      if (r === e) return b.toString('latin1', s + 1, k);
    }
  }
  return JSON.parse(b.toString('utf8', s, e));
}
