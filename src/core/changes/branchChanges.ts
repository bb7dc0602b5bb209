// The code changes along a path (root → node): per entry, the files its tool calls changed, whether the
// call failed (its tool result says isError), and per file a summary for "files changed on this branch".
// Assistant lines are parsed; a tool result is only looked at for its call id and error flag.
import { changeSize, changesOfEntry, type ChangeTool, type FileChange } from './codeChanges.js';
import type { BashFileOp } from './bashFiles.js';
import { parseRecordLine } from '../index/lineReads.js';
import type { Session } from '../session/session.js';
import type { EntryRecord } from '../index/sessionIndex.js';
import { keyList, objectValues, skipWs, valueIn, type InnerValues } from '../scan/jsonBytes.js';
import { messageOf, type SessionEntry } from '../format/types.js';
import { asText } from '../format/values.js';

/** A change as lists show it: no file contents, just what, where and how big. */
export interface ChangeInfo {
  tool: ChangeTool;
  path: string;
  callId: string;
  op?: BashFileOp;
  /** Lines of new text and of replaced text (edit), or of the content (write). */
  added: number;
  removed: number;
  /** The tool result reported an error: the file was probably not changed. */
  failed?: boolean;
}

export interface EntryChanges {
  entryId: string;
  changes: ChangeInfo[];
}

export interface FileSummary {
  path: string;
  /** Changes to the file on the branch (failed ones included). */
  changes: number;
  failed: number;
  tools: ChangeTool[];
  added: number;
  removed: number;
  firstEntryId: string;
  lastEntryId: string;
}

const LINE_KEYS = keyList('message');
const RESULT_KEYS = keyList('toolCallId', 'isError');
const lineAt = new Int32Array(2);
const resultAt = new Int32Array(4);
const result: InnerValues = { key: 0, names: RESULT_KEYS, at: resultAt, read: false };
const BATCH = 1000;

export function changeInfo(c: FileChange, failed: boolean): ChangeInfo {
  const size = changeSize(c);
  return {
    tool: c.tool,
    path: c.path,
    callId: c.callId,
    ...(c.op ? { op: c.op } : {}),
    ...size,
    ...(failed ? { failed: true } : {}),
  };
}

/**
 * Adds the call id of the tool result line `bytes` when the result reports an error. Only the message's
 * own "toolCallId" and "isError" are read, as JSON.parse gives them (whatever the spacing, escapes or
 * key order; an "isError" nested in its details is not the message's); its output is passed over.
 */
function errorsOf(bytes: Buffer, failed: Set<string>): void {
  let m: { toolCallId?: unknown; isError?: unknown } | undefined;
  const start = skipWs(bytes, 0, bytes.length);
  if (objectValues(bytes, start, bytes.length, LINE_KEYS, lineAt, result) >= 0 && lineAt[0] !== 0 && result.read) {
    if (resultAt[2] !== 0 && valueIn(bytes, resultAt, 1) === true)
      m = { toolCallId: valueIn(bytes, resultAt, 0), isError: true };
  } else {
    // a key with an escape (it could spell one of these), or a message that is not an object
    let v: unknown;
    try {
      v = JSON.parse(bytes.toString('utf8'));
    } catch {
      return; // not the line the index saw (reported where lines are read)
    }
    m = v && typeof v === 'object' ? (messageOf(v as SessionEntry) as typeof m) : undefined;
  }
  if (m?.isError === true) failed.add(asText(m.toolCallId));
}

/**
 * The assistant and tool result entries of `recs`, read in batches (the event loop gets its turns
 * between them): each batch's assistant messages parsed and handed to `onBatch` in order (undefined
 * for the other entries), each tool result only looked at for its call id and error flag, added to
 * `failed`.
 */
export async function readToolLines(
  session: Session,
  recs: readonly EntryRecord[],
  failed: Set<string>,
  onBatch: (records: readonly EntryRecord[], assistants: readonly (SessionEntry | undefined)[]) => void,
  signal?: AbortSignal,
): Promise<void> {
  const wanted = recs.filter((r) => r.type === 'message' && (r.role === 'assistant' || r.role === 'toolResult'));
  for (let i = 0; i < wanted.length; i += BATCH) {
    const slice = wanted.slice(i, i + BATCH);
    const loaded: (SessionEntry | undefined)[] = slice.map((r) => (r.role === 'assistant' ? r.entry : undefined));
    await session.visitLines(
      slice,
      (k, rec, bytes) => {
        if (rec.role === 'assistant') loaded[k] = parseRecordLine(rec, bytes);
        else errorsOf(bytes, failed);
      },
      signal,
    );
    // records held in memory (unmigrated files): their tool results are read from the entry
    for (const r of slice) {
      const m =
        r.role === 'toolResult' && r.entry?.type === 'message'
          ? (r.entry.message as { toolCallId?: unknown; isError?: unknown })
          : undefined;
      if (m?.isError === true) failed.add(asText(m.toolCallId));
    }
    onBatch(slice, loaded);
  }
}

/** Every entry of `recs` (a path, root first) with file changes, in order. */
export async function changesOnPath(
  session: Session,
  recs: readonly EntryRecord[],
  signal?: AbortSignal,
): Promise<EntryChanges[]> {
  const failed = new Set<string>();
  const found: { entryId: string; changes: FileChange[] }[] = [];
  await readToolLines(
    session,
    recs,
    failed,
    (_, loaded) => {
      for (const e of loaded) {
        const changes = changesOfEntry(e);
        if (changes.length) found.push({ entryId: e!.id, changes });
      }
    },
    signal,
  );
  return found.map((f) => ({ entryId: f.entryId, changes: f.changes.map((c) => changeInfo(c, failed.has(c.callId))) }));
}

/** Per file: how often and how it was changed on the branch, in first-changed order. */
export function summarizeFiles(entries: readonly EntryChanges[]): FileSummary[] {
  const by = new Map<string, FileSummary>();
  for (const e of entries) {
    for (const c of e.changes) {
      let s = by.get(c.path);
      if (!s)
        by.set(
          c.path,
          (s = {
            path: c.path,
            changes: 0,
            failed: 0,
            tools: [],
            added: 0,
            removed: 0,
            firstEntryId: e.entryId,
            lastEntryId: e.entryId,
          }),
        );
      s.changes++;
      if (c.failed) s.failed++;
      else {
        s.added += c.added;
        s.removed += c.removed;
      }
      if (!s.tools.includes(c.tool)) s.tools.push(c.tool);
      s.lastEntryId = e.entryId;
    }
  }
  return [...by.values()];
}

/** The changes of one entry: an assistant message's calls, or the one call a tool result answers. */
export interface EntryFileChanges {
  /** The assistant entry holding the calls. */
  entryId: string;
  changes: FileChange[];
  /** Call ids whose results report an error. */
  failed: Set<string>;
}

/** How far a tool result may sit below its call (parallel calls' results come one after another). */
const MAX_RESULT_DEPTH = 64;

export async function changesAt(session: Session, id: string, signal?: AbortSignal): Promise<EntryFileChanges> {
  const index = session.index;
  let rec = index.get(id);
  if (!rec) throw new Error(`Entry ${id} not found`);
  let onlyCall: string | undefined;
  if (rec.role === 'toolResult') {
    const [self] = await session.load([rec], signal);
    onlyCall = asText((self?.type === 'message' && (self.message as { toolCallId?: unknown }).toolCallId) || '');
    let p = index.treeParent(rec);
    for (let steps = 0; p && p.role !== 'assistant' && steps < MAX_RESULT_DEPTH; steps++) p = index.treeParent(p);
    if (!p || p.role !== 'assistant') return { entryId: id, changes: [], failed: new Set() };
    rec = p;
  }
  if (rec.role !== 'assistant') return { entryId: id, changes: [], failed: new Set() };
  const [entry] = await session.load([rec], signal);
  let changes = changesOfEntry(entry);
  if (onlyCall !== undefined) changes = changes.filter((c) => c.callId === onlyCall);
  // The results below the call, on every branch (a retry may have answered it twice).
  const results: EntryRecord[] = [];
  let level = index.childrenOf(rec.id).filter((r) => r.role === 'toolResult');
  for (let depth = 0; level.length && depth < MAX_RESULT_DEPTH && results.length < 4 * MAX_RESULT_DEPTH; depth++) {
    for (const r of level) results.push(r);
    level = level.flatMap((r) => index.childrenOf(r.id).filter((c) => c.role === 'toolResult'));
  }
  const failed = new Set<string>();
  for (const e of await session.load(results, signal)) {
    const m = e?.type === 'message' ? (e.message as { toolCallId?: unknown; isError?: unknown }) : undefined;
    if (m?.isError === true) failed.add(asText(m.toolCallId));
  }
  return { entryId: rec.id, changes, failed };
}
