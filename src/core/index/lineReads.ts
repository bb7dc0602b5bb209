// Reading the lines of some entries on demand (bodies are not kept in the index): a session's records,
// a path, a batch of record numbers, read in coalesced ranges with the next range read while this one
// is visited, yielding to the event loop between slices. A line no longer where the index saw it (the
// file was rewritten) throws StaleFileError.
import { skipWs } from '../scan/jsonBytes.js';
import type { ByteSource } from './byteSource.js';
import type { EntryRecord, SessionIndex } from './sessionIndex.js';
import type { SessionEntry } from '../format/types.js';

export class StaleFileError extends Error {
  override name = 'StaleFileError';
}

/** Lines to read: `count` of them, each with its byte range; `skip` for those held in memory. */
export interface LineSet {
  count: number;
  offset(k: number): number;
  length(k: number): number;
  line(k: number): number;
  skip(k: number): boolean;
}

/**
 * Calls `visit` with the raw bytes of each record's line (records held in memory are skipped), reading
 * `src` in coalesced ranges and yielding to the event loop between slices of work. `bytes` is only
 * valid during the call.
 */
export function visitLines(
  src: ByteSource,
  records: readonly EntryRecord[],
  visit: (index: number, rec: EntryRecord, bytes: Buffer) => void,
  opts: { signal?: AbortSignal; sliceMs?: number } = {},
): Promise<void> {
  const set: LineSet = {
    count: records.length,
    offset: (k) => records[k].offset,
    length: (k) => records[k].length,
    line: (k) => records[k].line,
    skip: (k) => !!records[k].entry || records[k].offset < 0,
  };
  return visitSet(src, set, (k, bytes) => visit(k, records[k], bytes), opts);
}

/** visitLines over record numbers of `index` (no record objects). */
export function visitIdx(
  src: ByteSource,
  index: SessionIndex,
  idx: ArrayLike<number>,
  visit: (k: number, i: number, bytes: Buffer) => void,
  opts: { signal?: AbortSignal; sliceMs?: number } = {},
): Promise<void> {
  const set: LineSet = {
    count: idx.length,
    offset: (k) => index.offsetOf(idx[k]),
    length: (k) => index.lengthOf(idx[k]),
    line: (k) => index.lineOf(idx[k]),
    skip: (k) => index.isKept(idx[k]) || index.offsetOf(idx[k]) < 0,
  };
  return visitSet(src, set, (k, bytes) => visit(k, idx[k], bytes), opts);
}

export async function visitSet(
  src: ByteSource,
  set: LineSet,
  visit: (k: number, bytes: Buffer) => void,
  opts: { signal?: AbortSignal; sliceMs?: number } = {},
): Promise<void> {
  let n = 0;
  for (let k = 0; k < set.count; k++) if (!set.skip(k)) n++;
  if (!n) return;
  const need = new Int32Array(n);
  n = 0;
  let sorted = true;
  for (let k = 0; k < set.count; k++) {
    if (set.skip(k)) continue;
    if (n > 0 && set.offset(k) < set.offset(need[n - 1])) sorted = false;
    need[n++] = k;
  }
  // A path or a list of live records is in file order already: sorting is for the rare other case.
  if (!sorted) need.sort((a, b) => set.offset(a) - set.offset(b));
  const GAP = 64 * 1024;
  const MAX = 1024 * 1024;
  // Coalesced ranges [first, last) of `need`, each read into its own buffer; the next range is read
  // while this one is visited, so the visit never waits on I/O.
  const ranges: { k: number; j: number; from: number; to: number }[] = [];
  for (let k = 0; k < need.length;) {
    const from = set.offset(need[k]);
    let end = from + set.length(need[k]);
    let j = k + 1;
    while (j < need.length) {
      const o = set.offset(need[j]);
      const e = o + set.length(need[j]);
      if (o - end > GAP || e - from > MAX) break;
      end = Math.max(end, e);
      j++;
    }
    ranges.push({ k, j, from, to: end });
    k = j;
  }
  const readRange = async ({ from, to }: { from: number; to: number }) => {
    const buf = Buffer.allocUnsafe(to - from);
    const got = await src.read(buf, 0, buf.length, from);
    if (got !== buf.length) throw new StaleFileError('The session file is shorter than when it was read.');
    return buf;
  };
  const sliceMs = opts.sliceMs ?? 8;
  let sliceStart = performance.now();
  let next: Promise<Buffer> | undefined = readRange(ranges[0]);
  try {
    for (let q = 0; q < ranges.length; q++) {
      const { k, j, from } = ranges[q];
      const buf = await next!;
      next = q + 1 < ranges.length ? readRange(ranges[q + 1]) : undefined;
      for (let p = k; p < j; p++) {
        const i = need[p];
        const o = set.offset(i) - from;
        const bytes = buf.subarray(o, o + set.length(i));
        if (!opensObject(bytes)) throw new StaleFileError(`Line ${set.line(i)} changed on disk since it was read.`);
        visit(i, bytes);
        // Checked every 8 lines: a visit may parse a big line (an assistant message with its tool calls).
        if ((p & 7) === 7) {
          opts.signal?.throwIfAborted();
          if (performance.now() - sliceStart > sliceMs) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            sliceStart = performance.now();
          }
        }
      }
    }
  } finally {
    // A read still in flight must end before the caller closes the file.
    if (next) await next.catch(() => undefined);
  }
}

/** Whether a line read again still opens an object: '{', after any JSON whitespace (JSON.parse, and so pi, take a line that starts with some). */
function opensObject(bytes: Buffer): boolean {
  return bytes[skipWs(bytes, 0, bytes.length)] === 0x7b;
}

/** Parses a line read for `rec`; undefined when it is damaged beyond its head (reported by callers). */
export function parseRecordLine(rec: EntryRecord, bytes: Buffer): SessionEntry | undefined {
  return parseLineOf(rec.id, bytes);
}

/** Parses the line of the entry with id `id`; undefined when it is not that entry's (any more). */
export function parseLineOf(id: string, bytes: Buffer): SessionEntry | undefined {
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v) && (v as { id?: unknown }).id === id
    ? (v as SessionEntry)
    : undefined;
}

/**
 * Full entries for `records`, reading bodies from `src` in coalesced ranges. Throws StaleFileError if
 * a line is no longer where the index saw it (the file was rewritten).
 */
export async function loadEntries(
  src: ByteSource,
  records: readonly EntryRecord[],
  opts: { signal?: AbortSignal; sliceMs?: number } = {},
): Promise<(SessionEntry | undefined)[]> {
  const out: (SessionEntry | undefined)[] = records.map((r) => r.entry);
  await visitLines(src, records, (i, r, bytes) => (out[i] = parseRecordLine(r, bytes)), opts);
  return out;
}
