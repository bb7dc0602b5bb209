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
  // Pieces of a line that spans chunks; joined once when its end is found.
  let pending: Buffer[] = [];
  let pendingStart = pos;
  let pendingBytes = 0;
  let oversize = false;
  const maxLine = opts.maxLineBytes ?? 512 * 1024 * 1024;
  const headKeep = Math.min(opts.oversizeHeadBytes ?? 0, maxLine);
  // Of an oversize line spanning chunks: its first bytes and its last bytes so far (copies).
  let overHead = EMPTY;
  let overTail = EMPTY;
  const keepTail = (b: Buffer, from: number, to: number) => {
    const piece = b.subarray(Math.max(from, to - TAIL_KEEP), to);
    overTail = piece.length >= TAIL_KEEP ? Buffer.from(piece) : Buffer.concat([overTail, piece]).subarray(-TAIL_KEEP);
  };
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
        if (oversize) {
          keepTail(buf, start, nl);
          opts.onOversize?.(lineNo++, pendingStart, pendingBytes + nl - start, overHead, overTail);
          oversize = false;
          overHead = overTail = EMPTY;
          pendingBytes = 0;
          start = nl + 1;
          nl = buf.indexOf(NL, start);
          continue;
        }
        if (pending.length) {
          pending.push(buf.subarray(start, nl));
          const line = Buffer.concat(pending);
          pending = [];
          pendingBytes = 0;
          if (line.length > maxLine) opts.onOversize?.(lineNo++, pendingStart, line.length, line.subarray(0, headKeep), line.subarray(-TAIL_KEEP));
          else sink(line, 0, line.length, lineNo++, pendingStart);
        } else if (nl - start > maxLine) {
          opts.onOversize?.(lineNo++, pos + start, nl - start, buf.subarray(start, start + headKeep), buf.subarray(Math.max(start, nl - TAIL_KEEP), nl));
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
      if (start < bytesRead) {
        if (!pending.length && !oversize) pendingStart = pos + start;
        pendingBytes += bytesRead - start;
        if (oversize) keepTail(buf, start, bytesRead);
        else if (pendingBytes > maxLine) {
          // Too long to assemble: remember only where it started, its first and last bytes, and skip to its end.
          oversize = true;
          pending.push(buf.subarray(start, bytesRead));
          overHead = Buffer.from(Buffer.concat(pending).subarray(0, headKeep));
          overTail = EMPTY;
          keepTail(buf, start, bytesRead);
          pending = [];
        } else {
          pending.push(Buffer.from(buf.subarray(start, bytesRead)));
        }
      }
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
  if (oversize) {
    opts.onOversize?.(lineNo, pendingStart, pendingBytes, overHead, overTail);
    return { endOffset: pos, nextLine: lineNo + 1, tail: Buffer.alloc(0), size };
  }
  const tail = pending.length ? Buffer.concat(pending) : Buffer.alloc(0);
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
