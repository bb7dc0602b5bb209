// The end of a big session file read as a session of its own: the header line and the file's last
// bytes, from the first whole line in them. pi's leaf is the last entry line of the file, and a child
// is always written after its parent, so the leaf, the path above it as far as those bytes reach and
// every branch leaving that part of the path are all there: the explorer draws that first screen
// while the whole file is still being read (at a million entries, seconds). Entries whose parent lies
// before the cut are roots here. Held in memory, read-only by construction (nothing writes it back).
import { constants } from 'node:fs';
import { openRegular } from './byteSource.js';
import { findHeader } from './sessionHeader.js';
import { Session } from '../session/session.js';
import { MemoryStorage } from '../session/storage.js';

/** Bytes read from the end: thousands of entries of pi's usual size. */
export const TAIL_BYTES = 4 * 1024 * 1024;
/** A header line longer than this is not looked for (pi's are a few hundred bytes). */
const HEADER_MAX = 1024 * 1024;

/**
 * The header and the last `maxBytes` (whole lines) of the session at `path`, as a session; undefined
 * when there is nothing to show from it: no header line, no whole line in the tail, or a file in an
 * older format (its ids are made when the whole file is migrated, so the tail's would not match).
 * Throws what the full read would (not a regular file, not a session).
 */
export async function openTail(path: string, maxBytes = TAIL_BYTES): Promise<Session | undefined> {
  const fh = await openRegular(path, constants.O_RDONLY);
  let text: Buffer;
  try {
    const size = (await fh.stat()).size;
    const head = Buffer.alloc(Math.min(HEADER_MAX, size));
    const headRead = (await fh.read(head, 0, head.length, 0)).bytesRead;
    // The lines up to the one pi takes for the header, as the whole read takes them.
    const found = findHeader(head.subarray(0, headRead), headRead === size, true);
    if (!found) return undefined;
    if (!found.header)
      text = head.subarray(0, found.end); // no session: read so that it is refused as the whole read refuses it
    else {
      if (head[found.end - 1] !== 0x0a) return undefined;
      const headerEnd = found.end - 1;
      // From the header's newline at the earliest, so that the first byte read ends a line or is in one.
      const start = Math.max(headerEnd, size - maxBytes - 1);
      const tail = Buffer.alloc(size - start);
      let got = 0;
      while (got < tail.length) {
        const n = (await fh.read(tail, got, tail.length - got, start + got)).bytesRead;
        if (n === 0) break;
        got += n;
      }
      const firstWhole = tail.indexOf(0x0a) + 1;
      if (firstWhole <= 0 || firstWhole >= got) return undefined;
      text = Buffer.concat([head.subarray(0, headerEnd + 1), tail.subarray(firstWhole, got)]);
    }
  } finally {
    await fh.close();
  }
  const s = await Session.fromStorage(new MemoryStorage(text));
  return s.legacy || s.index.size === 0 ? undefined : s;
}
