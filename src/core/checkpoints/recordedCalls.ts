// The tool calls a session recorded that may have changed files, for the code at an entry and restore
// plans. Read once per session and kept: pi only appends, an entry never changes, and the details pane
// asks for the code at every node it shows (parsing the path's messages again for each ask took ~1 s of
// the extension host's thread at 100k entries). An assistant line is parsed; a tool result is only looked
// at for its call id and error flag. Lines are read in batches, so the event loop gets its turns.
import { errorsOf, heldErrorsOf } from '../changes/branchChanges.js';
import { callsOf } from '../changes/codeChanges.js';
import type { SessionEntry } from '../format/types.js';
import { parseRecordLine } from '../index/lineReads.js';
import type { EntryRecord } from '../index/sessionIndex.js';
import type { Session } from '../session/session.js';
import { mayChangeFiles } from './capture.js';

export interface RecordedCall {
  entryId: string;
  name: string;
  args: unknown;
  failed: boolean;
}

interface Call {
  id: string;
  name: string;
  args: unknown;
}

interface CallLog {
  /** Assistant entry id → its calls that may change files. */
  calls: Map<string, Call[]>;
  /** Ids of the calls whose result reports an error. */
  failed: Set<string>;
  /** Entries already read. */
  seen: Set<string>;
}

const logs = new WeakMap<Session, CallLog>();
const BATCH = 1000;

/** The calls on `recs` (in order) that may change files (not pi's read-only tools), with their failure flags. */
export async function callsOn(session: Session, recs: readonly EntryRecord[]): Promise<RecordedCall[]> {
  let log = logs.get(session);
  if (!log) logs.set(session, (log = { calls: new Map(), failed: new Set(), seen: new Set() }));
  const todo = recs.filter((r) => r.type === 'message' && (r.role === 'assistant' || r.role === 'toolResult') && !log.seen.has(r.id));
  for (let i = 0; i < todo.length; i += BATCH) await read(session, todo.slice(i, i + BATCH), log);
  const out: RecordedCall[] = [];
  for (const r of recs) for (const c of log.calls.get(r.id) ?? []) out.push({ entryId: r.id, name: c.name, args: c.args, failed: log.failed.has(c.id) });
  return out;
}

async function read(session: Session, recs: readonly EntryRecord[], log: CallLog): Promise<void> {
  const loaded: (SessionEntry | undefined)[] = recs.map((r) => (r.role === 'assistant' ? r.entry : undefined));
  await session.visitLines(recs, (k, rec, bytes) => {
    if (rec.role === 'assistant') loaded[k] = parseRecordLine(rec, bytes);
    else errorsOf(bytes, log.failed);
  });
  recs.forEach((r, k) => {
    heldErrorsOf(r, log.failed);
    log.seen.add(r.id);
    const calls = callsOf(loaded[k])
      .filter((c) => mayChangeFiles(c.name))
      .map((c) => ({ id: c.id, name: c.name, args: c.arguments }));
    if (calls.length) log.calls.set(r.id, calls);
  });
}
