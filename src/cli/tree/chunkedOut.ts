// The tree command's output, written into buffers of about a megabyte: a million-entry tree is printed
// without a string per row or the whole text held at once.
import { writeHexId } from '../../core/index/idKeys.js';
import type { CliIO } from '../io.js';

/** Where the tree's rows are written: text, bytes and ids without making strings of them. */
export interface ChunkedOut {
  add(s: string): void;
  addBytes(b: Buffer, start: number, end: number): void;
  addHexId(key: number): void;
  addPrefix(s: string): void;
  flush(): void;
}

/** Output written into buffers of about a megabyte, each handed to `write` (io.out or io.json) when full. */
export function chunked(io: CliIO, write: (b: Buffer) => void): ChunkedOut {
  let buf = Buffer.allocUnsafe(1 << 20);
  let at = 0;
  const flush = () => {
    if (at) write(buf.subarray(0, at));
    // (a gigabyte of tree text in new megabyte buffers is a gigabyte of garbage outside the heap)
    if (!io.outWritten) buf = Buffer.allocUnsafe(Math.max(1 << 20, buf.length));
    at = 0;
  };
  const room = (bytes: number) => {
    if (at + bytes <= buf.length) return;
    flush();
    if (bytes > buf.length) buf = Buffer.allocUnsafe(bytes);
  };
  // The rows of a chain share their prefix: its bytes are encoded once.
  let lastPrefix = '';
  let prefixBytes = Buffer.alloc(0);
  return {
    add(s: string) {
      room(s.length * 3);
      at += buf.write(s, at, 'utf8');
    },
    /** An id in pi's shape (8 hex digits) from its key, without a string. */
    addHexId(key: number) {
      room(8);
      writeHexId(key, buf, at);
      at += 8;
    },
    addBytes(b: Buffer, start: number, end: number) {
      room(end - start);
      // (a loop for the short ones: a copy call costs more than a few bytes)
      if (end - start > 64) at += b.copy(buf, at, start, end);
      else for (let x = start; x < end; x++) buf[at++] = b[x];
    },
    addPrefix(s: string) {
      if (s !== lastPrefix) {
        lastPrefix = s;
        prefixBytes = Buffer.from(s, 'utf8');
      }
      room(prefixBytes.length);
      at += prefixBytes.copy(buf, at);
    },
    flush,
  };
}
