// The tool calls a session recorded that may have changed files, for the code at an entry and restore
// plans. Read once per session and kept: pi only appends, an entry never changes, and the details pane
// asks for the code at every node it shows (parsing the path's messages again for each ask took ~1 s of
// the extension host's thread at 100k entries). An assistant line is parsed; a tool result is only looked
// at for its call id and error flag (branchChanges' readToolLines, in batches).
import { mayChangeFiles } from '../toolKinds.js';
import { readToolLines } from '../../changes/branchChanges.js';
import { callsOf } from '../../changes/codeChanges.js';
import type { EntryRecord } from '../../index/sessionIndex.js';
import type { Session } from '../../session/session.js';

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

/** The calls on `recs` (in order) that may change files (not pi's read-only tools), with their failure flags. */
export async function callsOn(session: Session, recs: readonly EntryRecord[]): Promise<RecordedCall[]> {
  let log = logs.get(session);
  if (!log) logs.set(session, (log = { calls: new Map(), failed: new Set(), seen: new Set() }));
  const known = log;
  await readToolLines(
    session,
    recs.filter((r) => !known.seen.has(r.id)),
    known.failed,
    (records, assistants) =>
      records.forEach((r, k) => {
        known.seen.add(r.id);
        const calls = callsOf(assistants[k])
          .filter((c) => mayChangeFiles(c.name))
          .map((c) => ({ id: c.id, name: c.name, args: c.arguments }));
        if (calls.length) known.calls.set(r.id, calls);
      }),
  );
  const out: RecordedCall[] = [];
  for (const r of recs)
    for (const c of known.calls.get(r.id) ?? [])
      out.push({ entryId: r.id, name: c.name, args: c.args, failed: known.failed.has(c.id) });
  return out;
}
