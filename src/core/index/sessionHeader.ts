// A session file's header as pi 1.6.0 finds it, the one rule every reader of pi-tree applies: the first
// line that parses to a value, blank lines, lines JSON.parse rejects and falsy values (null, 0, false,
// "") passed over (session-manager.js: parseSessionHeaderCandidate, loadEntriesFromFile). That value is
// the header when it is an object with type "session" and a string id; any other value makes the file
// no session. Files are read from their start with a bound (a header is a few hundred bytes), only
// regular files, and only as far as the header: a `parentSession` is data and may name any file.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isBlank, parseLine } from '../format/jsonl.js';
import type { SessionHeader } from '../format/types.js';
import { openRegular } from './byteSource.js';

/** The most read of one file to find its header (pi scans up to 1 MiB; its headers are a few hundred bytes). */
export const HEADER_READ_MAX = 64 * 1024;

/** What pi makes of a parsed line before the header: the header, null (no session), undefined (passed over; also a line that did not parse). */
export function headerOf(v: unknown): SessionHeader | null | undefined {
  if (!v) return undefined;
  const h = v as { type?: unknown; id?: unknown };
  return typeof v === 'object' && h.type === 'session' && typeof h.id === 'string' ? (v as SessionHeader) : null;
}

/** The line that decided: the header, or null when a value other than a header came first; `end` is just after it (and its "\n"). */
export interface FoundHeader {
  header: SessionHeader | null;
  end: number;
}

/**
 * The header in `head`, the first bytes of a file: undefined while no line in it decides (only blank and
 * unparsable lines, or the deciding line cut off at the end of `head`). `whole`: `head` is the whole
 * file, so a last line without "\n" is complete (pi parses it too). `bom`: a UTF-8 byte-order mark at
 * the start is passed over, as pi-tree's reader does to show such a file read-only (pi fails to parse
 * that line, and then the file is no session to it).
 */
export function findHeader(head: Buffer, whole: boolean, bom = false): FoundHeader | undefined {
  const skip = bom && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  for (let start = skip; start < head.length;) {
    const nl = head.indexOf(0x0a, start);
    if (nl < 0 && !whole) return undefined;
    const end = nl < 0 ? head.length : nl + 1;
    if (!isBlank(head, start, end)) {
      const header = headerOf(parseLine(head.subarray(start, nl < 0 ? end : nl)));
      if (header !== undefined) return { header, end };
    }
    start = end;
  }
  return undefined;
}

/**
 * The reading of both reads, as steps: each yields where to read next (`buf[n…]`, at file offset `n`)
 * and is given the count read (0 at the end of the file). 4 KiB first, then more until a line decides,
 * the file ends or `max` bytes are read; returns the bytes read.
 */
function* headReads(max: number): Generator<{ buf: Buffer; n: number }, Buffer, number> {
  let buf = Buffer.alloc(Math.min(max, 4096));
  let n = 0;
  for (;;) {
    const got = yield { buf, n };
    n += got;
    if (got === 0 || n >= max || findHeader(buf.subarray(0, n), false)) return buf.subarray(0, n);
    if (n === buf.length) {
      const more = Buffer.alloc(Math.min(max, buf.length * 4));
      buf.copy(more, 0, 0, n);
      buf = more;
    }
  }
}

/**
 * Up to `max` bytes from the start of the regular file `file`, ending once they hold the line that
 * decides its header (findHeader). Fewer than `max` bytes: the header was decided or the file ended, so
 * `findHeader(bytes, bytes.length < max)` is pi's answer within the bound. Throws for a FIFO, device or
 * directory (never opened blocking).
 */
export async function readHead(file: string, max = HEADER_READ_MAX): Promise<Buffer> {
  const fh = await openRegular(file, constants.O_RDONLY);
  try {
    const steps = headReads(max);
    for (let step = steps.next(0); ;) {
      if (step.done) return step.value;
      const { buf, n } = step.value;
      step = steps.next((await fh.read(buf, n, buf.length - n, n)).bytesRead);
    }
  } finally {
    await fh.close();
  }
}

/**
 * The header of `file`, read synchronously (SessionCheckpoints.load is), within `max` bytes; undefined
 * when it has none there, is no regular file or cannot be read.
 */
export function readHeader(file: string, max = HEADER_READ_MAX): SessionHeader | undefined {
  if (typeof file !== 'string') return undefined; // a crafted parentSession may be any JSON value
  let fd: number | undefined;
  try {
    // O_NONBLOCK: a FIFO named like a session must not hang the open (it is refused just below)
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    if (!fstatSync(fd).isFile()) return undefined;
    const steps = headReads(max);
    for (let step = steps.next(0); ;) {
      if (step.done) return findHeader(step.value, step.value.length < max)?.header ?? undefined;
      const { buf, n } = step.value;
      step = steps.next(readSync(fd, buf, n, buf.length - n, n));
    }
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
