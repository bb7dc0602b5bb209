// Totals over a whole session file: entries, messages by role, tokens, cost and models used (all
// branches, like pi's /session), plus tree shape. Counted over the index's columns; the usage of the
// messages that carry one is read from their lines' bytes (messageFacts.ts), a line parsed only when
// it is not in pi's shape. Nothing is held per entry, so a million-entry session is summed in one pass.
import { messageStartOf } from '../scan/lineHead.js';
import { readUsageFacts, UsageFacts } from '../scan/messageFacts.js';
import { parseLineOf } from '../index/lineReads.js';
import type { Session } from '../session/session.js';
import { F_FAST, type SessionIndex } from '../index/sessionIndex.js';
import { grown } from '../index/indexRecord.js';
import { UsageColumns, type ModelPairs } from './usageColumns.js';
import { messageOf, type SessionEntry, type Usage } from '../format/types.js';
import { asText } from '../format/values.js';

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
  /** pi's getSessionStats() counts (messages and these: every message line, as pi counts them). */
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

/**
 * Sums records `idx` (record numbers, in their order, which is file order for a session or a path: the
 * float sums then come out as pi's) as pi's getSessionStats() does: usage of assistant and toolResult
 * messages, usage entries, compactions and branch summaries; total = input + output + cacheRead +
 * cacheWrite. Usage is read from the lines' bytes (a line is parsed only off pi's shape), or taken from
 * `noted` (figures noted while the file was read, see usageColumns.ts); `visit` sees every assistant
 * entry (those lines are then parsed, e.g. for their tool calls), in file order.
 */
export async function sumUsage(
  session: Session,
  idx: ArrayLike<number>,
  opts: { signal?: AbortSignal; visit?: (e: SessionEntry) => void; noted?: UsageColumns } = {},
): Promise<UsageSums> {
  const index = session.index;
  const messagesByRole: Record<string, number> = Object.create(null);
  const carries = carriersOf(index, idx, messagesByRole);
  const noted = opts.noted?.index === index ? opts.noted : undefined;
  const own = new OwnFigures(noted?.models, opts.visit);
  await readCarriers(session, carries, own, noted, opts.signal);
  let messages = 0;
  for (const role in messagesByRole) messages += messagesByRole[role];
  return { messagesByRole, messages, ...summed(carries, own, noted) };
}

/** The records of `idx` that carry usage, in their order; counts the messages by role on the way. */
function carriersOf(index: SessionIndex, idx: ArrayLike<number>, messagesByRole: Record<string, number>): Int32Array {
  // (a typed array: a million carriers pushed onto an array are copied as it grows)
  const all = new Int32Array(idx.length);
  let n = 0;
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k];
    if (index.isType(i, 'message')) {
      const role = index.roleOf(i) ?? '?';
      messagesByRole[role] = (messagesByRole[role] ?? 0) + 1;
      if (role === 'assistant' || role === 'toolResult') all[n++] = i;
    } else if (index.isType(i, 'usage') || index.isType(i, 'compaction') || index.isType(i, 'branch_summary'))
      all[n++] = i;
  }
  return all.subarray(0, n);
}

/**
 * The figures sumUsage reads itself, in slots of their own taken in carrier order (`at`: each slot's
 * carrier; columns by carrier would be a million slots when a few hundred are read).
 */
class OwnFigures {
  readonly cols: UsageColumns;
  at = new Int32Array(0);
  count = 0;
  // (a path through a damaged file may go back in the file: its lines are read in file order then)
  ordered = true;

  constructor(
    models: ModelPairs | undefined,
    readonly visit: ((e: SessionEntry) => void) | undefined,
  ) {
    this.cols = new UsageColumns(models);
  }

  /** The figures of carrier `k`. */
  set(
    k: number,
    input: number,
    output: number,
    cacheRead: number,
    cacheWrite: number,
    cost: number,
    calls: number,
    pair: number,
  ): void {
    const owned = this.count;
    if (owned === this.at.length) this.at = grown(this.at, Math.max(256, 2 * owned));
    if (owned > 0 && this.at[owned - 1] > k) this.ordered = false;
    this.at[owned] = k;
    this.cols.set(owned, input, output, cacheRead, cacheWrite, cost, calls, pair);
    this.count = owned + 1;
  }

  /** The figures of carrier `k` from its parsed entry (`visit` sees an assistant's). */
  fromEntry(k: number, e: SessionEntry | undefined): void {
    if (!e) return;
    if (e.type !== 'message') {
      const u = usageOf((e as Obj).usage);
      return this.set(k, u.input, u.output, u.cacheRead, u.cacheWrite, u.cost, 0, -1);
    }
    const m = messageOf(e);
    if (!m) return;
    const u = usageOf(m.usage);
    if (m.role !== 'assistant') return this.set(k, u.input, u.output, u.cacheRead, u.cacheWrite, u.cost, 0, -1);
    this.visit?.(e);
    let calls = 0;
    if (Array.isArray(m.content)) for (const c of m.content) if (c && (c as Obj).type === 'toolCall') calls++;
    this.set(k, u.input, u.output, u.cacheRead, u.cacheWrite, u.cost, calls, this.cols.models.id(m.provider, m.model));
  }
}

/**
 * Reads into `own` the figures of the carriers not in `noted`: from their lines' bytes, or parsed, and
 * those held in memory from their entries, all in carrier order.
 */
async function readCarriers(
  session: Session,
  carries: Int32Array,
  own: OwnFigures,
  noted: UsageColumns | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  const index = session.index;
  const parseAssistant = own.visit !== undefined;
  // (a line the reader took by its fast path is never held in memory: no lookup for most carriers)
  const inMemory = (i: number) => index.offsetOf(i) < 0 || (!(index.lineBits(i) & F_FAST) && index.isKept(i));
  // The carriers read from the file now (their place among all carriers, so that entries held in memory
  // are taken in file order between them).
  const rest: number[] = [];
  const restAt: number[] = [];
  const memAt: number[] = [];
  for (let k = 0; k < carries.length; k++) {
    const i = carries[k];
    if (inMemory(i)) memAt.push(k);
    else if (!noted?.has(i) || (parseAssistant && index.roleCodeOf(i) === 2)) {
      rest.push(i);
      restAt.push(k);
    }
  }
  let next = 0;
  const facts = new UsageFacts();
  /** The carriers held in memory before carrier `upTo`, not taken yet. */
  const kept = (upTo: number) => {
    for (; next < memAt.length && memAt[next] < upTo; next++)
      own.fromEntry(memAt[next], index.entryOf(carries[memAt[next]]));
  };
  await session.visitIdx(
    rest,
    (k, i, bytes) => {
      const at = restAt[k];
      kept(at);
      const assistant = index.roleCodeOf(i) === 2;
      const start = parseAssistant && assistant ? -1 : messageStartOf(bytes, index, i);
      if (start < 0 || !readUsageFacts(bytes, start, facts))
        return own.fromEntry(at, parseLineOf(index.idOf(i), bytes));
      own.set(
        at,
        facts.input,
        facts.output,
        facts.cacheRead,
        facts.cacheWrite,
        facts.cost,
        assistant ? facts.toolCalls : 0,
        assistant ? own.cols.models.id(facts.provider, facts.model) : -1,
      );
    },
    signal,
  );
  kept(carries.length);
}

/** The carriers' figures summed in carrier order: read here, else noted while read, else none (an entry that could not be read). */
function summed(
  carries: Int32Array,
  own: OwnFigures,
  noted: UsageColumns | undefined,
): Omit<UsageSums, 'messagesByRole' | 'messages'> {
  const totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
  let toolCalls = 0;
  const perPair = new Map<number, number>();
  const owned = own.count;
  const ownAt = own.at;
  const slotOf = own.ordered ? undefined : new Map(Array.from(ownAt.subarray(0, owned), (k, o) => [k, o]));
  for (let k = 0, o = 0; k < carries.length; k++) {
    let cols: UsageColumns = own.cols;
    let s = slotOf ? (slotOf.get(k) ?? -1) : o < owned && ownAt[o] === k ? o++ : -1;
    if (s < 0) {
      if (!noted?.has(carries[k])) continue;
      cols = noted;
      s = carries[k];
    }
    totals.input += cols.input[s];
    totals.output += cols.output[s];
    totals.cacheRead += cols.cacheRead[s];
    totals.cacheWrite += cols.cacheWrite[s];
    totals.cost += cols.cost[s];
    toolCalls += cols.toolCalls[s];
    const pair = cols.model[s];
    if (pair >= 0) perPair.set(pair, (perPair.get(pair) ?? 0) + 1);
  }
  return {
    toolCalls,
    tokens: {
      input: totals.input,
      output: totals.output,
      cacheRead: totals.cacheRead,
      cacheWrite: totals.cacheWrite,
      total: totals.input + totals.output + totals.cacheRead + totals.cacheWrite,
    },
    cost: totals.cost,
    // (most used first; a tie in the order they first appear)
    models: [...perPair]
      .map(([pair, n]) => ({ ...own.cols.models.list[pair], messages: n }))
      .sort((a, b) => b.messages - a.messages),
  };
}

/** A usage value's figures as stats sums them (zeros for anything that is not an object). */
function usageOf(u: unknown): { input: number; output: number; cacheRead: number; cacheWrite: number; cost: number } {
  if (!u || typeof u !== 'object') return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
  const x = u as Usage;
  return {
    input: num(x.input),
    output: num(x.output),
    cacheRead: num(x.cacheRead),
    cacheWrite: num(x.cacheWrite),
    cost: num(x.cost?.total),
  };
}

/** `noted`: figures noted while the session was read (Session.open with noteUsage), if any. */
export async function computeStats(
  session: Session,
  signal?: AbortSignal,
  noted?: UsageColumns,
): Promise<SessionStats> {
  const index = session.index;
  const live = index.liveIdx();
  const entriesByType: Record<string, number> = Object.create(null);
  for (let k = 0; k < live.length; k++) {
    const type = index.typeOf(live[k]);
    entriesByType[type] = (entriesByType[type] ?? 0) + 1;
  }
  // pi's getSessionStats() counts every entry line it parsed, an earlier line of an id written twice
  // included (pi keeps both in getEntries()): usage, messages and tool calls are summed over every
  // record, in file order, not only the live ones the tree shows.
  const every = new Int32Array(index.count);
  for (let i = 0; i < every.length; i++) every[i] = i;
  const sums = await sumUsage(session, every, { signal, noted });
  const messagesByRole = sums.messagesByRole;
  const children = index.childCounts();
  let branchPoints = 0;
  let tips = 0;
  for (let k = 0; k < live.length; k++) {
    const n = children[live[k]];
    if (n > 1) branchPoints++;
    if (n === 0) tips++;
  }
  return {
    file: session.path,
    sessionId: session.header.id,
    name: session.name,
    cwd: asText(session.header.cwd ?? ''),
    version: session.fileVersion,
    entries: live.length,
    entriesByType,
    messages: sums.messages,
    messagesByRole,
    userMessages: messagesByRole.user ?? 0,
    assistantMessages: messagesByRole.assistant ?? 0,
    toolCalls: sums.toolCalls,
    toolResults: messagesByRole.toolResult ?? 0,
    tokens: sums.tokens,
    cost: sums.cost,
    models: sums.models,
    leafId: session.leafId,
    pathLength: index.branchIdx(index.leafRecord).length,
    branchPoints,
    tips,
    labels: index.labels.size,
    diagnostics: session.diagnostics.length,
  };
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
