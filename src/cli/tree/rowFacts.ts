// What a row of pi's /tree needs of each entry, by record number: its text, what the filter reads of
// it (its role, whether an assistant message has text or ended in error), the tool call a result
// answers, and the texts of the calls a message makes. noteRows (rowNotes.ts) fills them while the
// session is read; entries it could not note are given to `take` whole, afterwards, through the same
// functions (core/context/entryText.ts), so a row reads the same either way.
import { entryText, formatToolCall, hasText, toolCallsOf } from '../../core/context/entryText.js';
import { grown } from '../../core/index/indexRecord.js';
import { ByteSlots } from '../../core/index/idKeys.js';
import type { SessionIndex } from '../../core/index/sessionIndex.js';
import { messageOf, type SessionEntry } from '../../core/format/types.js';
import { asText } from '../../core/format/values.js';

/** bits: the facts are there; an assistant message without text; one that ended in error. */
export const KNOWN = 1;
export const NO_TEXT = 2;
export const ERROR = 4;
/** bits >> ROLE_SHIFT & 3: the role as the filter reads it (ROLES). */
export const ROLE_SHIFT = 3;
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
  /**
   * Puts `prefix` and then the bytes of `b` in the ranges `ranges[from…to)` ([start, end) pairs), all
   * printable ASCII (so their UTF-8 is what they read as); its handle. `length`: their bytes in all.
   */
  putBytes(prefix: Buffer, b: Buffer, ranges: Int32Array, from: number, to: number, length: number): number {
    const h = this.reserve(length);
    if (h < 0) return -1;
    const dst = this.chunks[this.chunks.length - 1];
    let at = this.at + prefix.copy(dst, this.at);
    for (let k = from; k < to; k += 2) {
      const s = ranges[k];
      const e = ranges[k + 1];
      // (a loop for the short ones: a copy call costs more than a few bytes)
      if (e - s > 64) at += b.copy(dst, at, s, e);
      else for (let x = s; x < e; x++) dst[at++] = b[x];
    }
    this.length = length;
    this.at = this.batchAt = at;
    return h;
  }
  /** Puts the printable ASCII bytes `src[0…length)`; its handle, or -1 when they do not fit in a chunk. */
  putRaw(src: Buffer, length: number): number {
    const h = this.reserve(length);
    if (h < 0) return -1;
    const dst = this.chunks[this.chunks.length - 1];
    if (length > 64) src.copy(dst, this.at, 0, length);
    else for (let x = 0; x < length; x++) dst[this.at + x] = src[x];
    this.length = length;
    this.at = this.batchAt = this.at + length;
    return h;
  }
  /** Room for `length` bytes at the end of the last chunk (a new one when they do not fit there); their handle, or -1 past a chunk. */
  private reserve(length: number): number {
    if (length > this.chunk) return -1;
    this.flush();
    if (this.at + length > this.chunk) this.newChunk();
    return (this.chunks.length - 1) * this.chunk + this.at;
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
  // Calls by id (as ByteSlots keys: the same from a string or from a read buffer's bytes): the text of
  // the last one in file order, in a slot that knows its record.
  private readonly callSlot = new ByteSlots();
  private callAt = new Float64Array(0);
  private callLen = new Int32Array(0);
  private callRecs = new Int32Array(0);
  private readonly oddCalls = new Map<number, string>();

  /** `chunkBytes`: the size of the text arena's chunks (4 MiB; smaller in tests). */
  constructor(chunkBytes?: number) {
    this.arena = new TextArena(chunkBytes);
  }

  /**
   * Binds the facts to `index`, with room for as many records as it was sized for: pages never written
   * take no memory, and columns grown by doubling would be copied and touched twice (a fresh page costs
   * a fault: ~12 µs on the benchmark's VM; 17 MB at a million records).
   */
  bind(index: SessionIndex): void {
    this.index = index;
    if (index.capacity > this.bits.length) this.room(index.capacity - 1);
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
  writeText(
    i: number,
    out: { add(s: string): void; addBytes(b: Buffer, start: number, end: number): void },
    escaped: (s: string) => string,
  ): void {
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
    if (this.bits[i] & ODD) {
      this.odd.delete(i);
      this.bits[i] &= ~ODD;
    }
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
    if (code === 3 && m!.toolCallId) this.takeResult(i, bits, asText(m!.toolCallId), () => m!.toolName);
    else this.takeText(i, bits, entryText(e));
    for (const c of toolCallsOf(e)) this.addCall(i, c.id, formatToolCall(c.name, c.arguments));
  }

  /** Notes record `i` with `bits` (KNOWN and its role included) and its row text. */
  takeText(i: number, bits: number, text: string): void {
    this.room(i);
    const h = this.arena.put(text);
    if (h < 0) {
      bits |= ODD;
      this.odd.set(i, text);
    } else {
      this.textAt[i] = h;
      this.textLen[i] = this.arena.length;
    }
    this.bits[i] = bits;
  }

  /**
   * Notes record `i` with `bits` and the row text `prefix` + the printable ASCII bytes of `b` in
   * `ranges[from…to)` ([start, end) pairs, `length` bytes with the prefix); false when it does not fit.
   */
  takeBytes(
    i: number,
    bits: number,
    prefix: Buffer,
    b: Buffer,
    ranges: Int32Array,
    from: number,
    to: number,
    length: number,
  ): boolean {
    this.room(i);
    const h = this.arena.putBytes(prefix, b, ranges, from, to, length);
    if (h < 0) return false;
    this.textAt[i] = h;
    this.textLen[i] = length;
    this.bits[i] = bits;
    return true;
  }

  /** Notes tool result `i`, which answers the call with id `id`: named after the call when it is known, else `[toolName()]`. */
  takeResult(i: number, bits: number, id: string, toolName: () => unknown): void {
    this.room(i);
    const s = this.callSlot.find(id);
    if (s >= 0) return this.namedAfter(i, bits, s);
    this.resultId.set(i, id);
    this.takeToolName(i, bits, toolName());
  }

  /**
   * takeResult for an id that is the bytes `b[from…to)` (its text: ASCII without escapes); false when no
   * call has the id yet: the id is kept, and the row's text is the caller's to note (takeToolName).
   */
  takeResultAt(i: number, bits: number, b: Buffer, from: number, to: number): boolean {
    this.room(i);
    const s = this.callSlot.findAt(b, from, to);
    if (s >= 0) {
      this.namedAfter(i, bits, s);
      return true;
    }
    this.resultId.set(i, b.toString('latin1', from, to));
    return false;
  }

  /** Notes record `i`, a tool result whose call is not known (yet), as `[toolName]`. */
  takeToolName(i: number, bits: number, toolName: unknown): void {
    this.takeText(i, bits, `[${asText(toolName ?? 'tool')}]`);
  }

  /** Tool result `i` takes the text of the call in slot `s` (nameAfterCall takes it again at the end, should a later call have the id). */
  private namedAfter(i: number, bits: number, s: number): void {
    this.bits[i] = bits;
    this.resultSlot[i] = s + 1;
    this.nameAfterCall(i);
  }

  private room(i: number): void {
    if (i < this.bits.length) return;
    const cap = Math.max(i + 1, 2 * this.bits.length, 1024);
    this.bits = grown(this.bits, cap);
    this.textAt = grown(this.textAt, cap);
    this.textLen = grown(this.textLen, cap);
    this.resultSlot = grown(this.resultSlot, cap);
  }

  /** Notes a tool call of record `i` (pi's formatToolCall text): the last call with an id in the file names its results. */
  addCall(i: number, id: string, text: string): void {
    const s = this.claimCall(i, id);
    if (s >= 0) this.setCallText(s, text);
  }

  /**
   * The slot of a call of record `i` with id `id`, to give its text (setCallText, setCallBytes); -1
   * when a later call with the id is there already.
   */
  claimCall(i: number, id: string): number {
    return this.claim(i, this.callSlot.slot(id));
  }

  /** claimCall for an id that is the bytes `b[from…to)` (its text: ASCII without escapes). */
  claimCallAt(i: number, b: Buffer, from: number, to: number): number {
    return this.claim(i, this.callSlot.slotAt(b, from, to));
  }

  setCallText(s: number, text: string): void {
    const h = this.arena.put(text);
    if (h < 0) this.oddCalls.set(s, text);
    else this.setCall(s, h, this.arena.length);
  }

  /** The call text of slot `s` is the printable ASCII bytes `src[0…length)`. */
  setCallBytes(s: number, src: Buffer, length: number): void {
    const h = this.arena.putRaw(src, length);
    if (h < 0) this.setCallText(s, src.toString('latin1', 0, length));
    else this.setCall(s, h, length);
  }

  private setCall(s: number, h: number, length: number): void {
    if (this.oddCalls.size !== 0) this.oddCalls.delete(s);
    this.callAt[s] = h;
    this.callLen[s] = length;
  }

  private claim(i: number, s: number): number {
    if (!this.callSlot.added) {
      if (this.callRecs[s] > i) return -1; // a later call with this id is already there
    } else if (s >= this.callRecs.length) {
      const cap = Math.max(s + 1, 2 * this.callRecs.length, 1024);
      this.callRecs = grown(this.callRecs, cap);
      this.callAt = grown(this.callAt, cap);
      this.callLen = grown(this.callLen, cap);
    }
    this.callRecs[s] = i;
    return s;
  }
}
