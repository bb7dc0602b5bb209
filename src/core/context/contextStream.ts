// What the model sees at a leaf, streamed: pi's buildSessionProjection (the latest compaction, its kept
// range without system messages, everything after it; context edits applied) over record numbers, the
// bodies read a batch at a time, so a million-entry path is never in memory whole. Before the kept
// range only what sets the thinking level, the model or the tools is read.
import type { ByteSource } from '../index/byteSource.js';
import { activeTools, pathSettings, projectEntry } from './context.js';
import { rawMessageOf } from '../scan/lineHead.js';
import { parseLineOf, visitIdx } from '../index/lineReads.js';
import type { EntryRecord, SessionIndex } from '../index/sessionIndex.js';
import type { AgentMessage, CompactionEntry, ContextEditEntry, SessionContext, SessionEntry } from '../format/types.js';

// Entries before a compaction's kept range that still shape the context's settings.
const SETTINGS_TYPES = new Set(['thinking_level_change', 'model_change', 'active_tools_change', 'compaction']);

/** A context message, or a stored message's raw JSON bytes (see Session.streamContextRaw). */
export type ContextItem = AgentMessage | { raw: Buffer };

/** What the stream reads from: a session's index, its entries, its bytes. */
export interface ContextSource {
  index: SessionIndex;
  load(records: readonly EntryRecord[], signal?: AbortSignal): Promise<(SessionEntry | undefined)[]>;
  openSource(): Promise<ByteSource>;
  sliceMs?: number;
}

export async function streamContextItems(
  from: ContextSource,
  leafId: string | null,
  emit: (items: ContextItem[]) => void,
  opts: { signal?: AbortSignal; batch?: number; raw: boolean },
): Promise<Omit<SessionContext, 'messages'> & { path: string[] }> {
  const index = from.index;
  // Record numbers, not record objects: a million-entry path makes no object per entry.
  const recs = index.branchIdx(leafId === null ? -1 : index.lookup(leafId));
  const settings = await settingsOf(from, recs, opts.signal);
  const { thinkingLevel, model } = pathSettings(settings);
  await streamSelected(from, selectedOf(index, recs), emit, opts);
  const path = new Array<string>(recs.length);
  for (let k = 0; k < recs.length; k++) path[k] = index.idOf(recs[k]);
  return { thinkingLevel, model, activeToolNames: activeTools(settings), path };
}

function isSystem(index: SessionIndex, i: number): boolean {
  return index.isType(i, 'message') && index.roleOf(i) === 'system';
}

/** The entries of the path `recs` that set the thinking level, the model or the tools (and system messages). */
async function settingsOf(
  from: ContextSource,
  recs: Int32Array,
  signal: AbortSignal | undefined,
): Promise<SessionEntry[]> {
  const index = from.index;
  let lastModel = -1;
  for (let k = recs.length - 1; k >= 0 && lastModel < 0; k--) {
    const i = recs[k];
    if (index.isType(i, 'model_change') || (index.isType(i, 'message') && index.roleOf(i) === 'assistant'))
      lastModel = k;
  }
  const settingRecs: EntryRecord[] = [];
  for (let k = 0; k < recs.length; k++) {
    const i = recs[k];
    if (k === lastModel || SETTINGS_TYPES.has(index.typeOf(i)) || isSystem(index, i)) settingRecs.push(index.view(i));
  }
  return (await from.load(settingRecs, signal)).filter((e): e is SessionEntry => !!e);
}

/** The records of the path that make the context: the latest compaction, its kept range without system messages, everything after it. */
function selectedOf(index: SessionIndex, recs: Int32Array): Int32Array {
  let ci = -1;
  for (let i = recs.length - 1; i >= 0 && ci < 0; i--) if (index.isType(recs[i], 'compaction')) ci = i;
  if (ci < 0) return recs;
  let start = ci;
  const firstKept = (index.entryOf(recs[ci]) as CompactionEntry | undefined)?.firstKeptEntryId;
  const kept = typeof firstKept === 'string' ? index.lookup(firstKept) : -1;
  for (let i = 0; i < ci && kept >= 0; i++) {
    if (recs[i] === kept) {
      start = i;
      break;
    }
  }
  const sel: number[] = [recs[ci]];
  for (let k = start; k < ci; k++) if (!isSystem(index, recs[k])) sel.push(recs[k]);
  for (let k = ci + 1; k < recs.length; k++) sel.push(recs[k]);
  return Int32Array.from(sel);
}

/** The context items of `selected` (context edits applied), handed to `emit` a batch at a time. */
async function streamSelected(
  from: ContextSource,
  selected: Int32Array,
  emit: (items: ContextItem[]) => void,
  opts: { signal?: AbortSignal; batch?: number; raw: boolean },
): Promise<void> {
  const index = from.index;
  const edits = new Map<string, ContextEditEntry>();
  for (const i of selected) {
    const e = index.isType(i, 'context_edit') ? (index.entryOf(i) as ContextEditEntry | undefined) : undefined;
    if (e) edits.set(e.targetId, e);
  }
  const batch = opts.batch ?? 1000;
  const src = await from.openSource();
  try {
    for (let b = 0; b < selected.length; b += batch) {
      const part = selected.subarray(b, b + batch);
      const items: ContextItem[][] = new Array(part.length);
      const project = (k: number, e: SessionEntry | undefined) => {
        // Only the newest compaction (first) contributes; an older one inside the kept range does not.
        if (e && !(e.type === 'compaction' && b + k > 0)) items[k] = projectEntry(e, edits.get(e.id));
      };
      await visitIdx(
        src,
        index,
        part,
        (k, i, bytes) => {
          if (opts.raw && !(edits.size && edits.has(index.idOf(i)))) {
            const raw = rawMessageOf(bytes, index, i);
            if (raw) {
              items[k] = [{ raw: Buffer.from(raw) }]; // `bytes` is only valid during this call
              return;
            }
          }
          project(k, parseLineOf(index.idOf(i), bytes));
        },
        { signal: opts.signal, sliceMs: from.sliceMs },
      );
      for (let k = 0; k < part.length; k++) {
        const e = index.entryOf(part[k]);
        if (e) project(k, e);
      }
      const out: ContextItem[] = [];
      for (const list of items) if (list) for (const m of list) out.push(m);
      emit(out);
    }
  } finally {
    await src.close();
  }
}
