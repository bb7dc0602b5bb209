// Reads a session file into a SessionIndex, tolerant like pi 1.6.0 (bad lines skipped, torn last line
// ignored) but every skipped line becomes a diagnostic with its line number. Message lines written
// by pi take a fast path that reads only the line's head; their bodies are loaded when needed.
import type { ByteSource } from './byteSource.js';
import { isBlank, parseLine, scanSource, type ScanOptions, type ScanResult } from '../format/jsonl.js';
import { commitMessageLine, messageRecord } from '../scan/lineHead.js';
import { LineScan, type Notes, type ObjectKeys } from '../scan/scanResult.js';
import { migrateEntries, migrationRefusal } from '../format/migrate.js';
import { SessionIndex, type EntryRecord } from './sessionIndex.js';
import { headerOf } from './sessionHeader.js';
import { CURRENT_VERSION, type Diagnostic, type SessionEntry, type SessionHeader } from '../format/types.js';

export class NotASessionError extends Error {
  override name = 'NotASessionError';
}

/** Where reading stopped, so that later reads take only the appended bytes. */
export interface ReadState {
  endOffset: number;
  nextLine: number;
  size: number;
  /** Bytes after the last "\n": a line still being written or a torn last line. */
  tailBytes: number;
  /** The tail parsed as a whole entry (pi counts it; a later "\n" must not index it twice). */
  tailEntryOffset: number;
  /** The last complete line, to notice a file that was rewritten rather than appended to. */
  lastLine: { offset: number; bytes: Buffer } | undefined;
}

export interface LoadedSession {
  index: SessionIndex;
  /** Version as found in the file (1 when the header has none). */
  fileVersion: number;
  /** v1/v2: ids and parents exist only in memory until the file is migrated. */
  legacy: boolean;
  bom: boolean;
  /** Why the file must not be written to, if so. */
  readOnly?: string;
  state: ReadState;
}

export interface ReadOptions {
  signal?: AbortSignal;
  sliceMs?: number;
  maxLineBytes?: number;
  /**
   * Called right after a message line in pi's shape was indexed (as record `i`), while its bytes are
   * still in `b`, with what the line scanner found of its message (lineHead.ts scanLine).
   */
  onMessageLine?: MessageLineObserver;
}

/** `notes`: what it reads of the validator's notes (scanResult.ts Notes; 'facts' when not said). */
export type MessageLineObserver = ((index: SessionIndex, i: number, b: Buffer, message: ObjectKeys) => void) & {
  notes?: Notes;
};

/** What a read fills line after line: the line scanner's struct, and who sees each message line. */
export interface LineSink {
  scan: LineScan;
  observe?: MessageLineObserver;
}

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function timeOf(ts: unknown): number {
  if (typeof ts !== 'string') return 0;
  const t = Date.parse(ts);
  return Number.isNaN(t) ? 0 : t;
}

/** Ends with `}}` after optional trailing whitespace / "\r". */
function endsWithTwoBraces(b: Buffer, start: number, end: number): boolean {
  let i = end - 1;
  while (i >= start && (b[i] === 0x20 || b[i] === 0x0d || b[i] === 0x09)) i--;
  return i >= start + 1 && b[i] === 0x7d && b[i - 1] === 0x7d;
}

/** The last (up to) 64 bytes of the line ending at `end`, to recognise it later. */
export async function lineTail(src: ByteSource, start: number, end: number): Promise<ReadState['lastLine']> {
  if (end <= start) return undefined;
  const from = Math.max(start, end - 64);
  const bytes = Buffer.alloc(end - from);
  await src.read(bytes, 0, bytes.length, from);
  return { offset: start, bytes };
}

export function recordFromEntry(
  e: SessionEntry,
  line: number,
  offset: number,
  length: number,
  keep: boolean,
): EntryRecord {
  const role =
    e.type === 'message' && isObject(e.message) && typeof e.message.role === 'string' ? e.message.role : undefined;
  return {
    id: e.id,
    parentId: e.parentId,
    type: e.type,
    time: timeOf(e.timestamp),
    line,
    offset,
    length,
    role,
    entry: keep ? e : undefined,
    parent: undefined,
    seq: 0,
  };
}

/** What readSession learns as the lines go by: one per read, its fields set once (a stable shape). */
class Reading {
  readonly diagnostics: Diagnostic[] = [];
  header: SessionHeader | undefined = undefined;
  bom = false;
  /** v1/v2: the lines parsed, migrated once all are read. */
  legacyEntries: { e: Obj; line: number }[] | undefined = undefined;
  index: SessionIndex | undefined = undefined;
  notSession: string | undefined = undefined;
  /** The last non-blank complete line (ReadState.lastLine). */
  lastStart = -1;
  lastEnd = -1;

  constructor(
    readonly fileSize: number,
    readonly sink: LineSink,
  ) {}
}

/** Reads the whole file. Throws NotASessionError when it is not a pi session. */
export async function readSession(src: ByteSource, opts: ReadOptions = {}): Promise<LoadedSession> {
  const fileSize = await src.size();
  const r = new Reading(fileSize, { scan: new LineScan(), observe: opts.onMessageLine });
  const oversize = (lineNo: number, _offset: number, length: number) => {
    r.diagnostics.push({
      line: lineNo,
      severity: 'error',
      code: 'line-too-long',
      message: `Line ${lineNo} is ${length} bytes long, beyond what pi-tree reads (${opts.maxLineBytes ?? 512 * 1024 * 1024}); it was skipped.`,
    });
  };
  const scanOpts: ScanOptions = {
    signal: opts.signal,
    sliceMs: opts.sliceMs,
    maxLineBytes: opts.maxLineBytes,
    onOversize: oversize,
    size: fileSize,
  };
  const res: ScanResult = await scanSource(
    src,
    (buf, start, end, lineNo, offset) => ingestAny(r, buf, start, end, lineNo, offset),
    scanOpts,
  );
  const tailEntryOffset = ingestUnterminated(r, res);

  r.index?.queueIdsWhileReading(false);
  if (r.notSession) throw new NotASessionError(r.notSession);
  const header = r.header;
  if (!header) {
    throw new NotASessionError(
      res.size === 0
        ? 'The file is empty: it holds no pi session header.'
        : 'The file holds no pi session header ({"type":"session",…}).',
    );
  }
  const fileVersion = (header.version ?? 1) as number;
  if (r.legacyEntries) r.index = indexLegacy(header, r.legacyEntries, r.diagnostics, fileVersion);
  const index = r.index!;
  let readOnly: string | undefined;
  if (r.bom) readOnly = 'the file starts with a UTF-8 byte-order mark (pi 1.6.0 cannot read it)';
  if (fileVersion > CURRENT_VERSION) {
    readOnly = `the file is format v${fileVersion}, newer than the v3 pi-tree writes`;
    r.diagnostics.push({
      severity: 'warning',
      code: 'future-version',
      message: `Format v${fileVersion} is newer than v3; pi-tree shows it read-only.`,
    });
  }
  // (not unshift(...diagnostics): a file of garbage has more lines than a call takes arguments)
  const own = index.diagnostics.splice(0);
  for (const d of r.diagnostics) index.diagnostics.push(d);
  for (const d of own) index.diagnostics.push(d);
  if (r.legacyEntries) readOnly ??= migrationRefusal(fileVersion, index.diagnostics);
  return {
    index,
    fileVersion,
    legacy: !!r.legacyEntries,
    bom: r.bom,
    readOnly,
    state: {
      endOffset: res.endOffset,
      nextLine: res.nextLine,
      size: res.size,
      tailBytes: res.tail.length,
      tailEntryOffset,
      lastLine: await lineTail(src, r.lastStart, r.lastEnd),
    },
  };
}

/** One line of a whole-file read: the header (or what comes before it), a v1/v2 line or a v3 line. */
function ingestAny(r: Reading, buf: Buffer, start: number, end: number, lineNo: number, offset: number): void {
  if (r.notSession) return;
  if (!r.header) return readHeaderLine(r, buf.subarray(start, end), lineNo);
  if (isBlank(buf, start, end)) return;
  r.lastStart = offset;
  r.lastEnd = offset + end - start;
  if (r.legacyEntries) return keepLegacyLine(r.legacyEntries, buf.subarray(start, end), lineNo, r.diagnostics);
  ingestLine(r.index!, buf, start, end, lineNo, offset, r.diagnostics, r.sink);
}

/** A line before the header: the header itself, or why this is no pi session (blank and bad lines are passed over). */
function readHeaderLine(r: Reading, line: Buffer, lineNo: number): void {
  let b = line;
  if (lineNo === 1 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) {
    r.bom = true;
    b = b.subarray(3);
  }
  if (isBlank(b)) return;
  const v = parseLine(b);
  const header = headerOf(v);
  if (header) return startIndex(r, header);
  if (header === undefined) {
    r.diagnostics.push(badLine(lineNo, v)); // passed over, as pi passes it over
    return;
  }
  if (isObject(v) && v.kind === 'header') {
    r.notSession = `This is a v${String(v.version ?? '?')} session log of pi's newer harness (lines with "kind"/"seq"); pi 1.6.0 and pi-tree read format v3 only. The file was not changed.`;
  } else {
    r.notSession = `The first JSON line (line ${lineNo}) is not a pi session header ({"type":"session",…}); pi would refuse this file too. The file was not changed.`;
  }
}

/** The header was found: a v3 file is indexed line by line, an older one is collected for migration. */
function startIndex(r: Reading, header: SessionHeader): void {
  r.header = header;
  if (r.bom) {
    r.diagnostics.push({
      line: 1,
      severity: 'warning',
      code: 'bom',
      message: 'The file starts with a UTF-8 byte-order mark, which pi 1.6.0 cannot read; pi-tree shows it read-only.',
    });
  }
  const version = (header.version ?? 1) as number;
  if (version < CURRENT_VERSION) r.legacyEntries = [];
  // Sized for lines of ~400 bytes (grown if they are shorter): no regrowth while a big file is read.
  else {
    r.index = new SessionIndex(header, Math.min(1 << 24, Math.ceil(r.fileSize / 400)));
    // (nothing reads the index while it is read but its columns: noteRows, noteUsage)
    r.index.queueIdsWhileReading(true);
  }
}

/** A v1/v2 line, kept parsed until the migration (a second header is dropped). */
function keepLegacyLine(
  entries: { e: Obj; line: number }[],
  line: Buffer,
  lineNo: number,
  diagnostics: Diagnostic[],
): void {
  const v = parseLine(line);
  if (!isObject(v)) {
    diagnostics.push(badLine(lineNo, v));
    return;
  }
  if (v.type === 'session') return;
  entries.push({ e: v, line: lineNo });
}

/**
 * A last line without "\n": pi parses it too (and then appends the missing "\n" itself). Returns its
 * offset when it became an entry, else -1 (and a line that is not JSON is reported as torn).
 */
function ingestUnterminated(r: Reading, res: ScanResult): number {
  if (!res.tail.length || isBlank(res.tail)) return -1;
  const before = r.index?.count ?? r.legacyEntries?.length ?? 0;
  const tailLine = res.nextLine;
  // (it is not a complete line: ReadState.lastLine stays the one before it)
  const { lastStart, lastEnd } = r;
  ingestAny(r, res.tail, 0, res.tail.length, tailLine, res.endOffset);
  r.lastStart = lastStart;
  r.lastEnd = lastEnd;
  const after = r.index?.count ?? r.legacyEntries?.length ?? 0;
  if (after > before) return res.endOffset;
  const lastDiag = r.diagnostics[r.diagnostics.length - 1];
  if (lastDiag?.line === tailLine && lastDiag.code === 'malformed-json') {
    lastDiag.code = 'torn-last-line';
    lastDiag.message = `The last line (${tailLine}) is incomplete (no newline, not valid JSON); it is ignored, as pi ignores it.`;
  }
  return -1;
}

/** Migrates v1/v2 lines to v3 in memory and indexes them (lines that are no entry are reported). */
function indexLegacy(
  header: SessionHeader,
  entries: { e: Obj; line: number }[],
  diagnostics: Diagnostic[],
  fileVersion: number,
): SessionIndex {
  migrateEntries(
    header,
    entries.map((x) => x.e),
  );
  const index = new SessionIndex(header);
  for (const { e, line } of entries) {
    const ent = e as SessionEntry;
    if (typeof ent.type !== 'string') {
      diagnostics.push({
        line,
        severity: 'warning',
        code: 'invalid-entry',
        message: `Line ${line} has no "type"; skipped.`,
      });
      continue;
    }
    // A v2 line without an id (v1 lines get theirs from the migration): skipped, as a v3 one is.
    if (typeof ent.id !== 'string' || !ent.id) {
      diagnostics.push({
        line,
        severity: 'warning',
        code: 'invalid-entry',
        message: `Line ${line} is not an entry (it needs a string "type" and "id"); skipped.`,
      });
      continue;
    }
    index.add(recordFromEntry(ent, line, -1, 0, true));
  }
  diagnostics.push({
    severity: 'info',
    code: 'legacy-version',
    message: `Format v${fileVersion}: migrated to v3 in memory. The file is rewritten (with a backup) only when pi-tree first changes it.`,
  });
  return index;
}

function badLine(lineNo: number, v: unknown): Diagnostic {
  return v === undefined
    ? {
        line: lineNo,
        severity: 'warning',
        code: 'malformed-json',
        message: `Line ${lineNo} is not valid JSON and was skipped.`,
      }
    : {
        line: lineNo,
        severity: 'warning',
        code: 'not-an-object',
        message: `Line ${lineNo} is JSON but not an object; skipped.`,
      };
}

/** Whether a line may be a message line in pi's shape (worth trying the fast path on). */
function maybeMessage(buf: Buffer, start: number, end: number): boolean {
  return end - start > 40 && buf[start] === 0x7b && endsWithTwoBraces(buf, start, end);
}

/** Adds one v3 line to the index, or reports why it was skipped; true when an entry was added. */
export function ingestLine(
  index: SessionIndex,
  buf: Buffer,
  start: number,
  end: number,
  lineNo: number,
  offset: number,
  diagnostics: Diagnostic[],
  sink: LineSink,
): boolean {
  const { scan, observe } = sink;
  if (
    maybeMessage(buf, start, end) &&
    commitMessageLine(index, buf, start, end, lineNo, offset, observe ? (observe.notes ?? 'facts') : false, scan)
  ) {
    observe?.(index, index.count - 1, buf, scan.message);
    return true;
  }
  const rec = parsedRecord(buf, start, end, lineNo, offset, diagnostics);
  if (!rec) return false;
  index.add(rec);
  return true;
}

/** @internal Turns one v3 line into an index record, or reports why it was skipped: the tests' view of ingestLine's two paths. */
export function classifyLine(
  buf: Buffer,
  start: number,
  end: number,
  lineNo: number,
  offset: number,
  diagnostics: Diagnostic[],
  prevId?: string,
): EntryRecord | undefined {
  if (maybeMessage(buf, start, end)) {
    const rec = messageRecord(buf, start, end, prevId, lineNo, offset);
    if (rec) return rec;
  }
  return parsedRecord(buf, start, end, lineNo, offset, diagnostics);
}

/** The JSON.parse path of classifyLine. */
function parsedRecord(
  buf: Buffer,
  start: number,
  end: number,
  lineNo: number,
  offset: number,
  diagnostics: Diagnostic[],
): EntryRecord | undefined {
  const length = end - start;
  let v: unknown;
  try {
    v = JSON.parse(buf.toString('utf8', start, end));
  } catch (err) {
    const tooLong = err instanceof Error && /string longer|Invalid string length/i.test(err.message);
    diagnostics.push(
      tooLong
        ? {
            line: lineNo,
            severity: 'error',
            code: 'line-too-long',
            message: `Line ${lineNo} is too long to decode (${length} bytes); skipped.`,
          }
        : badLine(lineNo, undefined),
    );
    return undefined;
  }
  if (!isObject(v)) {
    diagnostics.push(badLine(lineNo, v));
    return undefined;
  }
  if (v.type === 'session') {
    diagnostics.push({
      line: lineNo,
      severity: 'warning',
      code: 'header-not-first',
      message: `Line ${lineNo} is a second session header; ignored, as pi ignores it.`,
    });
    return undefined;
  }
  if (typeof v.type !== 'string' || typeof v.id !== 'string' || v.id === '') {
    diagnostics.push({
      line: lineNo,
      severity: 'warning',
      code: 'invalid-entry',
      message: `Line ${lineNo} is not an entry (it needs a string "type" and "id"); skipped.`,
    });
    return undefined;
  }
  if (v.parentId !== null && typeof v.parentId !== 'string') {
    diagnostics.push({
      line: lineNo,
      severity: 'warning',
      code: 'invalid-entry',
      message: `Line ${lineNo}: "parentId" is neither a string nor null; the entry is treated as a root.`,
    });
    v.parentId = null;
  }
  const e = v as SessionEntry;
  // Message bodies can be huge: keep only the head; other entries are small and kept whole.
  return recordFromEntry(e, lineNo, offset, length, e.type !== 'message');
}
