// Two nodes side by side: their common ancestor (the longest common start of the two root→node paths,
// by entry id: within one file, or across a fork and the file it came from, which share the copied
// path's ids), each side's path after it split into turns (a turn starts at a user message), the turns
// aligned by position, and per-side totals summed as pi sums usage (stats.ts) with the files that
// side's edit and write calls touched. Work is proportional to the paths and done in slices.
import { editedPaths } from './codeChanges.js';
import { entryText, formatToolCall, toolCallsOf, type ToolCallRef } from './preview.js';
import type { Session } from './session.js';
import type { EntryRecord } from './sessionIndex.js';
import { sumUsage } from './stats.js';
import { messageOf, type SessionEntry } from './types.js';

export interface Split {
  /** The last entry both paths share (null: they share nothing). */
  ancestorId: string | null;
  /** Entries shared by both paths (root first). */
  common: number;
  /** Each side's entries after the ancestor (ancestor excluded), root first. */
  a: EntryRecord[];
  b: EntryRecord[];
}

/** Splits two root→node paths at their common ancestor. */
export function splitPaths(pa: readonly EntryRecord[], pb: readonly EntryRecord[]): Split {
  let n = 0;
  const max = Math.min(pa.length, pb.length);
  while (n < max && pa[n].id === pb[n].id && pa[n].type === pb[n].type) n++;
  return { ancestorId: n ? pa[n - 1].id : null, common: n, a: pa.slice(n), b: pb.slice(n) };
}

/** Entry ids → the path of `id` in `session` (root first); null → empty. Throws for an unknown id. */
export function pathOf(session: Session, id: string | null): EntryRecord[] {
  if (id === null) return [];
  if (!session.index.get(id)) throw new Error(`Entry ${id} not found`);
  return session.index.branch(id);
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
export function turnsOf(recs: readonly EntryRecord[]): Turn[] {
  const out: Turn[] = [];
  for (let i = 0; i < recs.length; i++) {
    const user = recs[i].type === 'message' && recs[i].role === 'user';
    if (user || !out.length) out.push({ start: i, end: i + 1, ...(user ? { userId: recs[i].id } : {}) });
    else out[out.length - 1].end = i + 1;
  }
  return out;
}

/**
 * Rows of aligned turns: the entries before each side's first user message (a summary, the rest of an
 * answer) share row 0 when either side has some; then row k holds each side's k-th user turn.
 */
export function alignTurns(a: readonly Turn[], b: readonly Turn[]): { a?: Turn; b?: Turn }[] {
  const rows: { a?: Turn; b?: Turn }[] = [];
  const pa = a[0] && !a[0].userId ? a[0] : undefined;
  const pb = b[0] && !b[0].userId ? b[0] : undefined;
  if (pa || pb) rows.push({ ...(pa ? { a: pa } : {}), ...(pb ? { b: pb } : {}) });
  const ua = pa ? a.slice(1) : a;
  const ub = pb ? b.slice(1) : b;
  for (let k = 0; k < Math.max(ua.length, ub.length); k++) rows.push({ ...(ua[k] ? { a: ua[k] } : {}), ...(ub[k] ? { b: ub[k] } : {}) });
  return rows;
}

export interface Prepared {
  split: Split;
  turnsA: Turn[];
  turnsB: Turn[];
  rows: { a?: Turn; b?: Turn }[];
}

const tick = () => new Promise<void>((r) => setImmediate(r));

/**
 * Everything the first screen needs that is not read from the file: both paths, their split, each
 * side's turns and the aligned rows. A step is a loop over up to a path's length, so it yields between
 * steps (the extension host is shared).
 */
export async function prepareCompare(sa: Session, a: string | null, sb: Session, b: string | null): Promise<Prepared> {
  const pa = pathOf(sa, a);
  await tick();
  const pb = pathOf(sb, b);
  await tick();
  const split = splitPaths(pa, pb);
  await tick();
  const turnsA = turnsOf(split.a);
  await tick();
  const turnsB = turnsOf(split.b);
  await tick();
  return { split, turnsA, turnsB, rows: alignTurns(turnsA, turnsB) };
}

export interface SideTotals {
  entries: number;
  messages: number;
  turns: number;
  userMessages: number;
  assistantMessages: number;
  toolCalls: number;
  toolResults: number;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  cost: number;
  models: { provider: string; model: string; messages: number }[];
  /** From the ancestor's time (else the side's first entry) to the side's last entry, in ms. */
  wallMs: number;
}

export interface SideSummary {
  totals: SideTotals;
  /** Paths the side's edit and write calls named, in first-touched order. */
  files: string[];
}

/** Totals and touched files of one side's records (`since`: the ancestor's time, ms). */
export async function summarizeSide(session: Session, recs: readonly EntryRecord[], since: number | undefined, signal?: AbortSignal): Promise<SideSummary> {
  const files = new Set<string>();
  const sums = await sumUsage(
    session,
    Int32Array.from(recs, (r) => r.seq),
    { signal, visit: (e) => editedPaths(e).forEach((p) => files.add(p)) },
  );
  const first = since ?? recs[0]?.time ?? 0;
  const last = recs.length ? recs[recs.length - 1].time : first;
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
export async function turnViews(session: Session, recs: readonly EntryRecord[], turns: readonly Turn[], from: number, to: number, signal?: AbortSignal): Promise<TurnView[]> {
  const chosen = turns.slice(from, to);
  const load: EntryRecord[] = [];
  for (const t of chosen) for (let i = t.start; i < Math.min(t.end, t.start + ITEMS_PER_TURN); i++) load.push(recs[i]);
  const entries = await session.load(load, signal);
  const byId = new Map<string, SessionEntry>();
  entries.forEach((e, k) => e && byId.set(load[k].id, e));
  const calls = new Map<string, ToolCallRef>();
  for (const e of entries) if (e) for (const c of toolCallsOf(e)) calls.set(c.id, c);
  return chosen.map((t, k) => {
    const items: TurnItem[] = [];
    let user: string | undefined;
    for (let i = t.start; i < Math.min(t.end, t.start + ITEMS_PER_TURN); i++) {
      const r = recs[i];
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
      if (m && (m.isError === true || (m.role === 'assistant' && m.stopReason && m.stopReason !== 'stop' && m.stopReason !== 'toolUse'))) item.error = true;
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
      startTime: recs[t.start].time,
      endTime: recs[t.end - 1].time,
    };
  });
}
