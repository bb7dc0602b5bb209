// Two nodes side by side: their common ancestor (the longest common start of the two root→node paths,
// by entry id: within one file, or across a fork and the file it came from, which share the copied
// path's ids), each side's path after it split into turns (a turn starts at a user message), the turns
// aligned by position, and per-side totals summed as pi sums usage (stats.ts) with the files that
// side's edit and write calls touched. Work is proportional to the paths and done in slices.
import type { CompareTotals } from '../../compareProtocol.js';
import { editedPaths } from './codeChanges.js';
import { entryText, formatToolCall, toolCallsOf, type ToolCallRef } from '../context/entryText.js';
import type { Session } from '../session/session.js';
import type { EntryRecord, SessionIndex } from '../index/sessionIndex.js';
import { sumUsage } from '../context/stats.js';
import { messageOf, type SessionEntry } from '../format/types.js';

export interface Split {
  /** The last entry both paths share (null: they share nothing). */
  ancestorId: string | null;
  /** Entries shared by both paths (root first). */
  common: number;
  /**
   * Each side's entries after the ancestor (ancestor excluded), root first, as record numbers in its
   * session's index: a 50k-entry side is 200 KB of numbers, not 50k record objects.
   */
  a: Int32Array;
  b: Int32Array;
}

/** Whether record `i` of `x` and record `j` of `y` have the same id (no id string is made for pi's ids). */
function sameId(x: SessionIndex, i: number, y: SessionIndex, j: number): boolean {
  const ki = x.idKeyOf(i);
  const kj = y.idKeyOf(j);
  return ki >= 0 || kj >= 0 ? ki === kj : x.idOf(i) === y.idOf(j);
}

/** Splits two root→node paths (`pa` in `sa`, `pb` in `sb`) at their common ancestor. */
export function splitPaths(sa: Session, pa: Int32Array, sb: Session, pb: Int32Array): Split {
  const [x, y] = [sa.index, sb.index];
  let n = 0;
  const max = Math.min(pa.length, pb.length);
  while (n < max && sameId(x, pa[n], y, pb[n]) && x.typeOf(pa[n]) === y.typeOf(pb[n])) n++;
  return { ancestorId: n ? x.idOf(pa[n - 1]) : null, common: n, a: pa.subarray(n), b: pb.subarray(n) };
}

/** The root→`id` path in `session` as record numbers (root first); null → empty. Throws for an unknown id. */
export function pathOf(session: Session, id: string | null): Int32Array {
  if (id === null) return new Int32Array(0);
  const i = session.index.lookup(id);
  if (i < 0) throw new Error(`Entry ${id} not found`);
  return session.index.branchIdx(i);
}

/** Records `idx` of `session` as objects (for the few read at once: a turn, a page of a side). */
export function recordsOf(session: Session, idx: ArrayLike<number>): EntryRecord[] {
  return Array.from(idx, (i) => session.index.view(i));
}

export interface Turn {
  /** Index of the turn's first entry in its side's records. */
  start: number;
  /** Index after its last entry. */
  end: number;
  /** The user message that opens the turn (absent for the entries before a side's first user message). */
  userId?: string;
}

/** Turns of a side: each user message opens one; entries before the first user message make turn 0. */
export function turnsOf(session: Session, recs: Int32Array): Turn[] {
  const x = session.index;
  const out: Turn[] = [];
  let open: Turn | undefined;
  for (let k = 0; k < recs.length; k++) {
    const i = recs[k];
    if (x.isType(i, 'message') && x.roleOf(i) === 'user')
      out.push((open = { start: k, end: k + 1, userId: x.idOf(i) }));
    else if (open) open.end = k + 1;
    else out.push((open = { start: k, end: k + 1 }));
  }
  return out;
}

export interface AlignedRow {
  a?: Turn;
  b?: Turn;
}

/**
 * Rows of aligned turns: the entries before each side's first user message (a summary, the rest of an
 * answer) share row 0 when either side has some; then row k holds each side's k-th user turn.
 */
export function alignTurns(a: readonly Turn[], b: readonly Turn[]): AlignedRow[] {
  const rows: AlignedRow[] = [];
  const fa = a[0] && !a[0].userId ? 1 : 0;
  const fb = b[0] && !b[0].userId ? 1 : 0;
  if (fa || fb) {
    const row: AlignedRow = {};
    if (fa) row.a = a[0];
    if (fb) row.b = b[0];
    rows.push(row);
  }
  const n = Math.max(a.length - fa, b.length - fb);
  for (let k = 0; k < n; k++) {
    const row: AlignedRow = {};
    if (k + fa < a.length) row.a = a[k + fa];
    if (k + fb < b.length) row.b = b[k + fb];
    rows.push(row);
  }
  return rows;
}

export interface Prepared {
  split: Split;
  turnsA: Turn[];
  turnsB: Turn[];
  rows: AlignedRow[];
}

const tick = () => new Promise<void>((r) => setImmediate(r));

/**
 * Everything the first screen needs that is not read from the file: both paths, their split, each
 * side's turns and the aligned rows. Each step is a loop over up to a path's length on typed columns (a
 * few ms at 50k entries), and it yields between steps: the extension host is shared.
 */
export async function prepareCompare(sa: Session, a: string | null, sb: Session, b: string | null): Promise<Prepared> {
  const pa = pathOf(sa, a);
  await tick();
  const pb = pathOf(sb, b);
  await tick();
  const split = splitPaths(sa, pa, sb, pb);
  await tick();
  const turnsA = turnsOf(sa, split.a);
  await tick();
  const turnsB = turnsOf(sb, split.b);
  await tick();
  return { split, turnsA, turnsB, rows: alignTurns(turnsA, turnsB) };
}

/** A side's counts, as the compare view shows them (the protocol's type: one shape on both ends). */
export type SideTotals = CompareTotals;

export interface SideSummary {
  totals: SideTotals;
  /** Paths the side's edit and write calls named, in first-touched order. */
  files: string[];
}

/** Totals and touched files of one side's records (`since`: the ancestor's time, ms). */
export async function summarizeSide(
  session: Session,
  recs: Int32Array,
  since: number | undefined,
  signal?: AbortSignal,
): Promise<SideSummary> {
  const files = new Set<string>();
  const sums = await sumUsage(session, recs, { signal, visit: (e) => editedPaths(e).forEach((p) => files.add(p)) });
  const x = session.index;
  const first = since ?? (recs.length ? x.timeOf(recs[0]) : 0);
  const last = recs.length ? x.timeOf(recs[recs.length - 1]) : first;
  return {
    totals: {
      entries: recs.length,
      messages: sums.messages,
      // a turn opens with each user message
      turns: sums.messagesByRole.user ?? 0,
      userMessages: sums.messagesByRole.user ?? 0,
      assistantMessages: sums.messagesByRole.assistant ?? 0,
      toolCalls: sums.toolCalls,
      toolResults: sums.messagesByRole.toolResult ?? 0,
      tokens: sums.tokens,
      cost: sums.cost,
      models: sums.models,
      wallMs: first && last ? Math.max(0, last - first) : 0,
    },
    files: [...files],
  };
}

/** One entry of a turn as the compare view lists it. */
export interface TurnItem {
  id: string;
  /** Entry type and role (`message`/`assistant` …). */
  type: string;
  role?: string;
  /** One line: pi's /tree row text, or the tool call for a tool result. */
  text: string;
  /** Tool calls of an assistant message, as pi's /tree writes them (`[edit: src/a.ts]`). */
  calls?: string[];
  error?: boolean;
}

export interface TurnView {
  /** Index of the turn on its side. */
  index: number;
  userId?: string;
  /** The user message (one line, up to 200 characters), when the turn opens with one. */
  user?: string;
  /** The turn's entries as lines, bookkeeping (labels, names, leaf moves…) left out. */
  items: TurnItem[];
  /** Entries in the turn. */
  entries: number;
  /** Entries past the first ITEMS_PER_TURN, not listed. */
  more: number;
  startTime: number;
  endTime: number;
}

export const ITEMS_PER_TURN = 60;

/** Entries a turn's lines leave out: they change no message (pi's /tree hides them by default too). */
const BOOKKEEPING = new Set(['label', 'leaf', 'session_info', 'custom', 'usage', 'active_tools_change']);

/** The turns `[from, to)` of a side as the compare view shows them (entries read on demand). */
export async function turnViews(
  session: Session,
  recs: Int32Array,
  turns: readonly Turn[],
  from: number,
  to: number,
  signal?: AbortSignal,
): Promise<TurnView[]> {
  const chosen = turns.slice(from, to);
  const x = session.index;
  const load: EntryRecord[] = [];
  for (const t of chosen)
    for (let i = t.start; i < Math.min(t.end, t.start + ITEMS_PER_TURN); i++) load.push(x.view(recs[i]));
  const entries = await session.load(load, signal);
  const byId = new Map<string, SessionEntry>();
  entries.forEach((e, k) => e && byId.set(load[k].id, e));
  const calls = new Map<string, ToolCallRef>();
  for (const e of entries) if (e) for (const c of toolCallsOf(e)) calls.set(c.id, c);
  return chosen.map((t, k) => {
    const items: TurnItem[] = [];
    let user: string | undefined;
    for (let i = t.start; i < Math.min(t.end, t.start + ITEMS_PER_TURN); i++) {
      const r = x.view(recs[i]);
      if (BOOKKEEPING.has(r.type)) continue;
      const e = byId.get(r.id);
      if (!e) {
        items.push({ id: r.id, type: r.type, role: r.role, text: '(unreadable line)', error: true });
        continue;
      }
      const m = messageOf(e);
      const text = entryText(e, calls).slice(0, 240);
      if (i === t.start && t.userId) {
        user = text.replace(/^user: /, '');
        continue;
      }
      const item: TurnItem = { id: r.id, type: e.type, ...(m ? { role: m.role } : {}), text };
      const tc = toolCallsOf(e);
      if (tc.length) item.calls = tc.map((c) => formatToolCall(c.name, c.arguments));
      if (
        m &&
        (m.isError === true ||
          (m.role === 'assistant' && m.stopReason && m.stopReason !== 'stop' && m.stopReason !== 'toolUse'))
      )
        item.error = true;
      items.push(item);
    }
    const entries = t.end - t.start;
    return {
      index: from + k,
      ...(t.userId ? { userId: t.userId } : {}),
      ...(user !== undefined ? { user } : {}),
      items,
      entries,
      more: Math.max(0, entries - ITEMS_PER_TURN),
      startTime: x.timeOf(recs[t.start]),
      endTime: x.timeOf(recs[t.end - 1]),
    };
  });
}
