// Reading session files for their list rows: synchronous reads into one reused buffer, each line
// handed over where it lies (no copy of the file, no buffer per file or per line), lines too long for
// a row skipped to their end keeping only their first and last bytes, and the event loop given a turn
// whenever a slice of this synchronous work is used up (the extension host is shared).
import { readSync } from 'node:fs';
import { giveReadBuffer, READ_CHUNK, takeReadBuffer } from '../scan/jsonScanWasm.js';

const NL = 0x0a;
/** Read size; also the most a scan holds besides an oversize line's head. */
const CHUNK = READ_CHUNK;
/** Last bytes kept of a line too long to assemble (its message time is there). */
const TAIL = 64;
const EMPTY = Buffer.alloc(0);

/** Longest synchronous slice (ms) before the event loop gets a turn. */
const SLICE_MS = 10;
let sliceStart = performance.now();

/** Whether the current slice of synchronous work is used up. */
export function sliceDue(): boolean {
  return performance.now() - sliceStart > SLICE_MS;
}

/** @internal Ends the current slice: the next `sliceDue()` is true (a test's way to be sure a walk yields). */
export function endSlice(): void {
  sliceStart = -Infinity;
}

/** Gives the event loop a turn (timers, I/O, messages) and starts a new slice. */
export async function yieldSlice(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  sliceStart = performance.now();
}

export interface LineTarget {
  /** A complete line `buf[start…end)` ("\n" excluded); `buf` is valid only during the call. */
  line(buf: Buffer, start: number, end: number): void;
  /** A line longer than the limit: its first bytes (up to the limit) and last bytes, valid only during the call. */
  oversize(head: Buffer, tail: Buffer, lineNo: number, length: number): void;
}

export interface LinesRead {
  /** Offset just after the last complete line. */
  endOffset: number;
  nextLine: number;
  /** Bytes after the last "\n" (a line still being written, or a torn last line): a copy. */
  tail: Buffer;
  /** Bytes of the file seen: `until`, or less when the file shrank while it was read. */
  size: number;
}

/**
 * The lines of the open file `fd` from byte `from` up to byte `until`. Lines up to `maxLine` bytes are
 * handed to `target.line` in the read buffer; longer ones to `target.oversize`, never assembled.
 */
export async function readLines(
  fd: number,
  from: number,
  until: number,
  firstLine: number,
  maxLine: number,
  target: LineTarget,
  signal?: AbortSignal,
): Promise<LinesRead> {
  const buf = takeReadBuffer();
  maxLine = Math.min(maxLine, CHUNK / 2); // an unfinished line must leave room to read on
  // Of an oversize line that spans reads: its first bytes and its last bytes so far (copies).
  let head = EMPTY;
  let tail = EMPTY;
  let headLen = 0;
  let tailLen = 0;
  const keepTail = (b: Buffer, from: number, to: number) => {
    const n = to - from;
    if (n >= TAIL) {
      b.copy(tail, 0, to - TAIL, to);
      tailLen = TAIL;
    } else {
      const keep = Math.min(tailLen, TAIL - n);
      tail.copyWithin(0, tailLen - keep, tailLen);
      b.copy(tail, keep, from, to);
      tailLen = keep + n;
    }
  };
  let pos = from;
  let have = 0; // bytes of an unfinished line at buf[0…have)
  let over = -1; // bytes so far of the oversize line being skipped, else -1
  let lineNo = firstLine;
  try {
    while (pos < until) {
      signal?.throwIfAborted();
      const n = readSync(fd, buf, have, Math.min(buf.length - have, until - pos), pos);
      if (n === 0) break; // the file shrank while it was read
      pos += n;
      const end = have + n;
      const view = end === buf.length ? buf : buf.subarray(0, end);
      let s = 0;
      if (over >= 0) {
        const nl = view.indexOf(NL);
        if (nl < 0) {
          over += end;
          keepTail(view, 0, end);
          if (sliceDue()) await yieldSlice();
          continue;
        }
        over += nl;
        keepTail(view, 0, nl);
        target.oversize(head.subarray(0, headLen), tail.subarray(0, tailLen), lineNo++, over);
        over = -1;
        s = nl + 1;
      }
      for (let nl = view.indexOf(NL, s); nl >= 0; nl = view.indexOf(NL, s)) {
        if (nl - s > maxLine)
          target.oversize(view.subarray(s, s + maxLine), view.subarray(Math.max(s, nl - TAIL), nl), lineNo, nl - s);
        else target.line(view, s, nl);
        lineNo++;
        s = nl + 1;
      }
      if (end - s > maxLine) {
        // Too long to assemble: its first bytes are kept, the rest is read only to find its end.
        if (head.length < maxLine) head = Buffer.allocUnsafe(maxLine);
        if (tail === EMPTY) tail = Buffer.allocUnsafe(TAIL);
        headLen = view.copy(head, 0, s, s + maxLine);
        tailLen = 0;
        keepTail(view, s, end);
        over = end - s;
        have = 0;
      } else {
        if (s > 0) buf.copyWithin(0, s, end);
        have = end - s;
      }
      if (sliceDue()) await yieldSlice();
    }
    if (over >= 0) {
      // Cut at the end of what was read: counted as it is, and not read again (it may be a GB).
      target.oversize(head.subarray(0, headLen), tail.subarray(0, tailLen), lineNo, over);
      return { endOffset: pos, nextLine: lineNo + 1, tail: EMPTY, size: pos };
    }
    return {
      endOffset: pos - have,
      nextLine: lineNo,
      tail: have ? Buffer.from(buf.subarray(0, have)) : EMPTY,
      size: pos,
    };
  } finally {
    giveReadBuffer(buf);
  }
}
