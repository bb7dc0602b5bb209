// Totals over a whole session file: entries, messages by role, tokens, cost and models used (all
// branches, like pi's /session), plus tree shape. Counted over the index's columns; the usage of the
// messages that carry one is read from their lines' bytes (messageFacts.ts), a line parsed only when
// it is not in pi's shape. Nothing is held per entry, so a million-entry session is summed in one pass.
import { messageStartOf } from './lineHead.js';
import { facts, readUsageFacts } from './messageFacts.js';
import { parseLineOf } from './lineReads.js';
import type { Session } from './session.js';
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

/**
 * Sums records `idx` (record numbers, in their order, which is file order for a session or a path: the
 * float sums then come out as pi's) as pi's getSessionStats() does: usage of assistant and toolResult
 * messages, usage entries, compactions and branch summaries; total = input + output + cacheRead +
 * cacheWrite. Usage is read from the lines' bytes (a line is parsed only off pi's shape); `visit` sees
 * every assistant entry (those lines are then parsed, e.g. for their tool calls).
 */
export async function sumUsage(session: Session, idx: ArrayLike<number>, opts: { signal?: AbortSignal; visit?: (e: SessionEntry) => void } = {}): Promise<UsageSums> {
  const index = session.index;
  const messagesByRole: Record<string, number> = Object.create(null);
  const carries: number[] = [];
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k];
    if (index.isType(i, 'message')) {
      const role = index.roleOf(i) ?? '?';
      messagesByRole[role] = (messagesByRole[role] ?? 0) + 1;
      if (role === 'assistant' || role === 'toolResult') carries.push(i);
    } else if (index.isType(i, 'usage') || index.isType(i, 'compaction') || index.isType(i, 'branch_summary')) carries.push(i);
  }
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
  // The last key made, by its parts (consecutive messages mostly share their model).
  let lastParts: [unknown, unknown, string] = [Symbol(), Symbol(), ''];
  const countModel = (provider: unknown, model: unknown) => {
    if (lastParts[0] !== provider || lastParts[1] !== model) lastParts = [provider, model, `${String(provider)}/${String(model)}`];
    const key = lastParts[2];
    const cur = models.get(key) ?? { provider: String(provider ?? ''), model: String(model ?? ''), messages: 0 };
    cur.messages++;
    models.set(key, cur);
  };
  const fromEntry = (e: SessionEntry | undefined) => {
    if (!e) return;
    if (e.type !== 'message') {
      add((e as Obj).usage);
      return;
    }
    const m = messageOf(e);
    if (!m) return;
    add(m.usage);
    if (m.role !== 'assistant') return;
    opts.visit?.(e);
    if (Array.isArray(m.content)) for (const c of m.content) if (c && (c as Obj).type === 'toolCall') toolCalls++;
    countModel(m.provider, m.model);
  };
  // In file order, as pi sums them (so the float sums come out the same): entries held in memory are
  // summed in their place between the lines read from the file.
  let next = 0;
  const kept = (upTo: number) => {
    for (; next < upTo; next++) if (index.isKept(carries[next]) || index.offsetOf(carries[next]) < 0) fromEntry(index.entryOf(carries[next]));
  };
  const parseAssistant = opts.visit !== undefined;
  await session.visitIdx(
    carries,
    (k, i, bytes) => {
      kept(k);
      next = k + 1;
      const assistant = index.roleCodeOf(i) === 2;
      const at = parseAssistant && assistant ? -1 : messageStartOf(bytes, index, i);
      if (at < 0 || !readUsageFacts(bytes, at)) return fromEntry(parseLineOf(index.idOf(i), bytes));
      totals.input += facts.input;
      totals.output += facts.output;
      totals.cacheRead += facts.cacheRead;
      totals.cacheWrite += facts.cacheWrite;
      totals.cost += facts.cost;
      if (!assistant) return;
      toolCalls += facts.toolCalls;
      countModel(facts.provider, facts.model);
    },
    opts.signal,
  );
  kept(carries.length);
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
  const live = index.liveIdx();
  const entriesByType: Record<string, number> = Object.create(null);
  for (let k = 0; k < live.length; k++) {
    const type = index.typeOf(live[k]);
    entriesByType[type] = (entriesByType[type] ?? 0) + 1;
  }
  const sums = await sumUsage(session, live, { signal });
  const messagesByRole = sums.messagesByRole;
  await index.prepareTree();
  let branchPoints = 0;
  let tips = 0;
  for (let k = 0; k < live.length; k++) {
    const n = index.childCount(live[k]);
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
