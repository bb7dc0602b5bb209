// Streaming JSONL reading on raw bytes (works for files far beyond V8's max string length and for
// single lines of tens of MB) and the line writer. Lines are split on "\n" only, like pi; "\r" before
// "\n" is tolerated because JSON.parse accepts trailing whitespace.
import type { ByteSource } from '../index/byteSource.js';
import { giveReadBuffer, READ_CHUNK, takeReadBuffer } from '../scan/jsonScanWasm.js';
import { jsonExact } from '../../shared/safeJson.js';

const CHUNK = READ_CHUNK;
const NL = 0x0a;

export interface LineSink {
  /**
   * One line: bytes `buf[start…end)` (no "\n"), at byte `offset` of the file. `buf` is only valid during
   * the call (it is a reused read buffer); no per-line Buffer is made, which matters at 100k lines.
   */
  (buf: Buffer, start: number, end: number, lineNo: number, offset: number): void;
}

export interface ScanResult {
  /** Byte offset just after the last complete line ("\n" included). */
  endOffset: number;
  /** Number of the next line to be read (1-based). */
  nextLine: number;
  /** Bytes after the last "\n" (a line still being written, or a torn last line). */
  tail: Buffer;
  /** Total bytes in the file when the scan ended. */
  size: number;
}

export interface ScanOptions {
  from?: number;
  firstLine?: number;
  signal?: AbortSignal;
  /** Yield to the event loop when a slice of work took longer than this (ms). */
  sliceMs?: number;
  /** Stop after this byte offset (used to read up to a known size). */
  until?: number;
  /** The source's size when the caller has just stat'ed it (saves an fstat per file in a listing). */
  size?: number;
  /** Lines longer than this are not assembled; `onOversize` is called instead. */
  maxLineBytes?: number;
  /**
   * Called for a line longer than maxLineBytes, which is never assembled. `head` holds its first
   * bytes (up to `oversizeHeadBytes`, default 0) and `tail` its last (up to 64); both are valid only
   * during the call. A listing reads a row's facts from them without buffering the line.
   */
  onOversize?: (lineNo: number, offset: number, length: number, head: Buffer, tail: Buffer) => void;
  oversizeHeadBytes?: number;
}

const TAIL_KEEP = 64;
const EMPTY = Buffer.alloc(0);

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The line that spans chunks, if any: its pieces, joined once when its end is found; past maxLineBytes
 * only where it started and copies of its first and last bytes (it is skipped to its end, never joined).
 */
class SpanningLine {
  pieces: Buffer[] = [];
  /** Its offset in the file. */
  start = 0;
  bytes = 0;
  oversize = false;
  head = EMPTY;
  tail = EMPTY;

  constructor(
    readonly maxLine: number,
    readonly headKeep: number,
  ) {}

  /** Of an oversize line: its last bytes so far (a copy). */
  keepTail(b: Buffer, from: number, to: number): void {
    const piece = b.subarray(Math.max(from, to - TAIL_KEEP), to);
    this.tail = piece.length >= TAIL_KEEP ? Buffer.from(piece) : Buffer.concat([this.tail, piece]).subarray(-TAIL_KEEP);
  }

  /** The bytes `buf[start…end)` after a chunk's last "\n" (`pos`: the chunk's offset in the file). */
  carry(buf: Buffer, start: number, end: number, pos: number): void {
    if (!this.pieces.length && !this.oversize) this.start = pos + start;
    this.bytes += end - start;
    if (this.oversize) this.keepTail(buf, start, end);
    else if (this.bytes > this.maxLine) {
      // Too long to assemble: remember only where it started, its first and last bytes, and skip to its end.
      this.oversize = true;
      this.pieces.push(buf.subarray(start, end));
      this.head = Buffer.from(Buffer.concat(this.pieces).subarray(0, this.headKeep));
      this.tail = EMPTY;
      this.keepTail(buf, start, end);
      this.pieces = [];
    } else {
      this.pieces.push(Buffer.from(buf.subarray(start, end)));
    }
  }

  /** The whole line, its last piece `buf[start…end)`; the next line starts afresh. */
  join(buf: Buffer, start: number, end: number): Buffer {
    this.pieces.push(buf.subarray(start, end));
    const line = Buffer.concat(this.pieces);
    this.pieces = [];
    this.bytes = 0;
    return line;
  }

  /** Reports the oversize line that ends at `buf[end]`; the next line starts afresh. */
  endOversize(buf: Buffer, start: number, end: number, lineNo: number, onOversize: ScanOptions['onOversize']): void {
    this.keepTail(buf, start, end);
    onOversize?.(lineNo, this.start, this.bytes + end - start, this.head, this.tail);
    this.oversize = false;
    this.head = this.tail = EMPTY;
    this.bytes = 0;
  }
}

export async function scanSource(src: ByteSource, sink: LineSink, opts: ScanOptions = {}): Promise<ScanResult> {
  const sliceMs = opts.sliceMs ?? 12;
  let pos = opts.from ?? 0;
  let lineNo = opts.firstLine ?? 1;
  const size = opts.size ?? (await src.size());
  const until = Math.min(opts.until ?? size, size);
  // Reused buffers in the JSON validator's memory where free (lines are validated where they lie), else
  // sized to what is left to read: listing 1000 small sessions must not allocate 1000 MB. Two buffers
  // when there is more than one chunk: the next chunk is read (on libuv's pool) while this one is parsed.
  const bufSize = Math.max(1, Math.min(CHUNK, until - pos));
  let buf = takeReadBuffer(bufSize);
  let spare = bufSize < until - pos ? takeReadBuffer(bufSize) : undefined;
  let ahead: Promise<number> | undefined;
  const maxLine = opts.maxLineBytes ?? 512 * 1024 * 1024;
  const span = new SpanningLine(maxLine, Math.min(opts.oversizeHeadBytes ?? 0, maxLine));
  span.start = pos;
  let sliceStart = performance.now();
  try {
    while (pos < until) {
      opts.signal?.throwIfAborted();
      const bytesRead = await (ahead ?? src.read(buf, 0, Math.min(bufSize, until - pos), pos));
      ahead = undefined;
      if (bytesRead === 0) break;
      if (spare && pos + bytesRead < until) {
        ahead = src.read(spare, 0, Math.min(bufSize, until - pos - bytesRead), pos + bytesRead);
      }
      let start = 0;
      let nl = buf.indexOf(NL, 0);
      while (nl !== -1 && nl < bytesRead) {
        if (span.oversize) {
          span.endOversize(buf, start, nl, lineNo++, opts.onOversize);
          start = nl + 1;
          nl = buf.indexOf(NL, start);
          continue;
        }
        if (span.pieces.length) {
          const line = span.join(buf, start, nl);
          if (line.length > maxLine)
            opts.onOversize?.(
              lineNo++,
              span.start,
              line.length,
              line.subarray(0, span.headKeep),
              line.subarray(-TAIL_KEEP),
            );
          else sink(line, 0, line.length, lineNo++, span.start);
        } else if (nl - start > maxLine) {
          opts.onOversize?.(
            lineNo++,
            pos + start,
            nl - start,
            buf.subarray(start, start + span.headKeep),
            buf.subarray(Math.max(start, nl - TAIL_KEEP), nl),
          );
        } else {
          sink(buf, start, nl, lineNo++, pos + start);
        }
        start = nl + 1;
        nl = buf.indexOf(NL, start);
        // Also within a chunk: before the JIT has compiled the sink, a chunk of 2,000 lines holds the
        // thread for 50-90 ms.
        if ((lineNo & 255) === 0 && performance.now() - sliceStart > sliceMs) {
          await yieldNow();
          sliceStart = performance.now();
        }
      }
      if (start < bytesRead) span.carry(buf, start, bytesRead, pos);
      pos += bytesRead;
      if (spare) [buf, spare] = [spare, buf];
      if (performance.now() - sliceStart > sliceMs) {
        await yieldNow();
        sliceStart = performance.now();
      }
    }
  } finally {
    // A read still in flight (the scan was aborted or a sink threw) must end before the caller closes the file.
    if (ahead) await ahead.catch(() => 0);
    giveReadBuffer(buf);
    if (spare) giveReadBuffer(spare);
  }
  if (span.oversize) {
    opts.onOversize?.(lineNo, span.start, span.bytes, span.head, span.tail);
    return { endOffset: pos, nextLine: lineNo + 1, tail: Buffer.alloc(0), size };
  }
  const tail = span.pieces.length ? Buffer.concat(span.pieces) : Buffer.alloc(0);
  return { endOffset: pos - tail.length, nextLine: lineNo, tail, size };
}

/** True when the bytes are only spaces, tabs, "\r" (pi skips such lines). */
export function isBlank(bytes: Buffer, start = 0, end = bytes.length): boolean {
  for (let i = start; i < end; i++) {
    const c = bytes[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return false;
  }
  return true;
}

/**
 * One compact JSON line, "\n"-terminated, as pi writes it (key order = the object's own order). An entry
 * nested too deeply for JSON.stringify (pi's clone throws there) is written whole all the same: a copied
 * entry keeps every byte.
 */
export function toLine(value: unknown): string {
  return `${jsonExact(value)}\n`;
}

/** Parses a JSON line; returns `undefined` when it is not valid JSON. */
export function parseLine(bytes: Buffer | string): unknown {
  try {
    return JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
