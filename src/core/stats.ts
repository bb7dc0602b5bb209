// Totals over a whole session file: entries, messages by role, tokens, cost and models used (all
// branches, like pi's /session), plus tree shape.
import type { Session } from './session.js';
import { messageOf, type Usage } from './types.js';

export interface SessionStats {
  file?: string;
  sessionId: string;
  name?: string;
  cwd: string;
  version: number;
  entries: number;
  entriesByType: Record<string, number>;
  messages: number;
  messagesByRole: Record<string, number>;
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

export async function computeStats(session: Session, signal?: AbortSignal): Promise<SessionStats> {
  const index = session.index;
  const live = index.live();
  const entriesByType: Record<string, number> = {};
  const messagesByRole: Record<string, number> = {};
  for (const r of live) {
    entriesByType[r.type] = (entriesByType[r.type] ?? 0) + 1;
    if (r.type === 'message') messagesByRole[r.role ?? '?'] = (messagesByRole[r.role ?? '?'] ?? 0) + 1;
  }
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  let cost = 0;
  const models = new Map<string, { provider: string; model: string; messages: number }>();
  const assistants = live.filter((r) => r.type === 'message' && r.role === 'assistant');
  const loaded = await session.load(assistants, signal);
  for (const e of loaded) {
    const m = e && messageOf(e);
    if (!m) continue;
    const u = m.usage as Usage | undefined;
    if (u) {
      tokens.input += num(u.input);
      tokens.output += num(u.output);
      tokens.cacheRead += num(u.cacheRead);
      tokens.cacheWrite += num(u.cacheWrite);
      tokens.total += num(u.totalTokens) || num(u.input) + num(u.output) + num(u.cacheRead) + num(u.cacheWrite);
      cost += num(u.cost?.total);
    }
    const key = `${String(m.provider)}/${String(m.model)}`;
    const cur = models.get(key) ?? { provider: String(m.provider ?? ''), model: String(m.model ?? ''), messages: 0 };
    cur.messages++;
    models.set(key, cur);
  }
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
    tokens,
    cost: Math.round(cost * 1e6) / 1e6,
    models: [...models.values()].sort((a, b) => b.messages - a.messages),
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
