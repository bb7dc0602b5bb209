// Totals over a whole session file: entries, messages by role, tokens, cost and models used (all
// branches, like pi's /session), plus tree shape.
import { parseRecordLine } from './reader.js';
import type { Session } from './session.js';
import type { EntryRecord } from './sessionIndex.js';
import { messageOf, type SessionEntry, type Usage } from './types.js';

export interface SessionStats {
  file?: string;
  sessionId: string;
  name?: string;
  cwd: string;
  version: number;
  entries: number;
  /** Null-prototype maps (a type or role named "__proto__" is a count like any other). */
  entriesByType: Record<string, number>;
  messages: number;
  messagesByRole: Record<string, number>;
  /** pi's getSessionStats() counts. */
  userMessages: number;
  assistantMessages: number;
  toolCalls: number;
  toolResults: number;
  /** Usage as pi's getSessionStats() sums it: assistant and toolResult messages, usage entries, and the
   * usage of compactions and branch summaries; total = input + output + cacheRead + cacheWrite. */
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  cost: number;
  models: { provider: string; model: string; messages: number }[];
  leafId: string | null;
  pathLength: number;
  branchPoints: number;
  tips: number;
  labels: number;
  diagnostics: number;
}

type Obj = Record<string, unknown>;

/** Usage, messages, tool calls and models of some entries, summed as pi's getSessionStats() sums them. */
export interface UsageSums {
  /** Message entries by role (null-prototype map). */
  messagesByRole: Record<string, number>;
  messages: number;
  toolCalls: number;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  cost: number;
  /** Assistant messages per provider/model, most used first. */
  models: { provider: string; model: string; messages: number }[];
}

/** Records whose bodies are read per batch, so a huge session is never all in memory. */
const BATCH = 2000;
const USAGE_KEY = Buffer.from('"usage"');

/**
 * Sums `records` (in their order, which is file order for a session or a path: the float sums then come
 * out as pi's) as pi's getSessionStats() does: usage of assistant and toolResult messages, usage entries,
 * compactions and branch summaries; total = input + output + cacheRead + cacheWrite. Lines are read in
 * slices; a tool result line is parsed only if it has a "usage" key at all (it rarely has one, and tool
 * output is most of a session's bytes). `visit` sees every assistant entry read (e.g. for its tool calls).
 */
export async function sumUsage(session: Session, records: readonly EntryRecord[], opts: { signal?: AbortSignal; visit?: (e: SessionEntry) => void } = {}): Promise<UsageSums> {
  const messagesByRole: Record<string, number> = Object.create(null);
  for (const r of records) if (r.type === 'message') messagesByRole[r.role ?? '?'] = (messagesByRole[r.role ?? '?'] ?? 0) + 1;
  const totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
  const add = (u: unknown) => {
    if (!u || typeof u !== 'object') return;
    const x = u as Usage;
    totals.input += num(x.input);
    totals.output += num(x.output);
    totals.cacheRead += num(x.cacheRead);
    totals.cacheWrite += num(x.cacheWrite);
    totals.cost += num(x.cost?.total);
  };
  let toolCalls = 0;
  const models = new Map<string, { provider: string; model: string; messages: number }>();
  const carries = records.filter((r) => (r.type === 'message' && (r.role === 'assistant' || r.role === 'toolResult')) || r.type === 'usage' || r.type === 'compaction' || r.type === 'branch_summary');
  const take = (e: SessionEntry | undefined) => {
    if (!e) return;
    if (e.type !== 'message') return add((e as Obj).usage);
    const m = messageOf(e);
    if (!m) return;
    add(m.usage);
    if (m.role !== 'assistant') return;
    opts.visit?.(e);
    if (Array.isArray(m.content)) for (const c of m.content) if (c && (c as Obj).type === 'toolCall') toolCalls++;
    const key = `${String(m.provider)}/${String(m.model)}`;
    const cur = models.get(key) ?? { provider: String(m.provider ?? ''), model: String(m.model ?? ''), messages: 0 };
    cur.messages++;
    models.set(key, cur);
  };
  for (let i = 0; i < carries.length; i += BATCH) {
    const slice = carries.slice(i, i + BATCH);
    // Each line is summed as soon as it is read, in order (the float sums must come out as pi's), so a
    // parsed entry dies young: a 50k-entry path leaves little for the collector to copy.
    const held = new Map<number, SessionEntry | undefined>();
    let next = 0;
    const drain = () => {
      while (next < slice.length) {
        const r = slice[next];
        if (r.entry) take(r.entry);
        else if (held.has(next)) {
          take(held.get(next));
          held.delete(next);
        } else if (r.offset >= 0) return; // not read yet
        next++;
      }
    };
    await session.visitLines(
      slice,
      (k, rec, bytes) => {
        held.set(k, rec.role === 'toolResult' && bytes.indexOf(USAGE_KEY) < 0 ? undefined : parseRecordLine(rec, bytes));
        drain();
      },
      opts.signal,
    );
    // lines that could not be read (and so were never visited) add nothing
    for (; next < slice.length; next++) take(slice[next].entry ?? held.get(next));
  }
  let messages = 0;
  for (const role in messagesByRole) messages += messagesByRole[role];
  return {
    messagesByRole,
    messages,
    toolCalls,
    tokens: { input: totals.input, output: totals.output, cacheRead: totals.cacheRead, cacheWrite: totals.cacheWrite, total: totals.input + totals.output + totals.cacheRead + totals.cacheWrite },
    cost: totals.cost,
    models: [...models.values()].sort((a, b) => b.messages - a.messages),
  };
}

export async function computeStats(session: Session, signal?: AbortSignal): Promise<SessionStats> {
  const index = session.index;
  const live = index.live();
  const entriesByType: Record<string, number> = Object.create(null);
  for (const r of live) entriesByType[r.type] = (entriesByType[r.type] ?? 0) + 1;
  const sums = await sumUsage(session, live, { signal });
  const messagesByRole = sums.messagesByRole;
  let branchPoints = 0;
  let tips = 0;
  for (const r of live) {
    const n = index.childrenOf(r.id).length;
    if (n > 1) branchPoints++;
    if (n === 0) tips++;
  }
  return {
    file: session.path,
    sessionId: session.header.id,
    name: session.name,
    cwd: String(session.header.cwd ?? ''),
    version: session.fileVersion,
    entries: live.length,
    entriesByType,
    messages: entriesByType.message ?? 0,
    messagesByRole,
    userMessages: messagesByRole.user ?? 0,
    assistantMessages: messagesByRole.assistant ?? 0,
    toolCalls: sums.toolCalls,
    toolResults: messagesByRole.toolResult ?? 0,
    tokens: sums.tokens,
    cost: sums.cost,
    models: sums.models,
    leafId: session.leafId,
    pathLength: index.branch(session.leafId).length,
    branchPoints,
    tips,
    labels: index.labels.size,
    diagnostics: session.diagnostics.length,
  };
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
