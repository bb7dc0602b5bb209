// Deterministic (seeded) pi 1.6.0-shaped sessions for tests and benchmarks: turns of user → assistant
// (tool calls) → tool results → assistant, occasional jumps back (branch points, some with a branch
// summary), labels, model and thinking changes, compactions, bash executions, custom messages and some
// large tool outputs. Entries are appended the way pi appends them: parentId = the current leaf.
export interface GenerateOptions {
  seed?: number;
  /** Approximate number of entries (the generator stops at the first turn boundary past it). */
  entries: number;
  /** Chance per turn to jump back to an earlier point first (a branch point). */
  branchRate?: number;
  /** Compactions to place along the way. */
  compactions?: number;
  labels?: number;
  /** Chance that a tool result is large (4–40 KB). */
  largeOutputRate?: number;
  /** Longest ordinary tool output, in words (default 130). */
  outputWords?: number;
  cwd?: string;
  /** Session id (defaults to a UUIDv7-shaped id from the seed). */
  id?: string;
  /** Start time (ms). */
  start?: number;
  /** Add a system message entry first (pi 1.6.0 writes one on the first request). */
  systemMessage?: boolean;
}

export interface GeneratedSession {
  text: string;
  header: Record<string, unknown>;
  entries: Record<string, unknown>[];
  leafId: string | null;
  userIds: string[];
}

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  'the a session tree branch leaf label summary model context file read write edit test build fix refactor parse index render layout node entry path compaction token cost function module error value type check review plan step'.split(
    ' ',
  );
const FILES = [
  'src/core/session.ts',
  'src/core/reader.ts',
  'src/host/panel.ts',
  'webview/main.ts',
  'README.md',
  'package.json',
  'test/core/session.test.ts',
  'docs/design.md',
];

export function generateSession(opts: GenerateOptions): GeneratedSession {
  const entries: Record<string, unknown>[] = [];
  const userIds: string[] = [];
  let header: Record<string, unknown> = {};
  const r = emitSession(
    opts,
    (e, isHeader) => {
      if (isHeader) header = e;
      else entries.push(e);
    },
    userIds,
  );
  const text = [header, ...entries].map((e) => `${JSON.stringify(e)}\n`).join('');
  return { text, header, entries, leafId: r.leafId, userIds };
}

/**
 * The same session, handed to `sink` one entry at a time (header first) and kept nowhere: what writes
 * a million-entry session to a file without holding it (see bench/shapes.ts).
 */
export function emitSession(
  opts: GenerateOptions,
  sink: (e: Record<string, unknown>, isHeader: boolean) => void,
  userIds: string[] = [],
): { leafId: string | null; count: number } {
  const rnd = mulberry32(opts.seed ?? 1);
  const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)];
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 16).toString(16)).join('');
  let time = opts.start ?? Date.UTC(2026, 10, 1, 9, 0, 0);
  const tick = (ms = 400 + rnd() * 4000) => (time += Math.round(ms));
  const iso = () => new Date(time).toISOString();
  const ids = new Set<string>();
  const newId = () => {
    let id = hex(8);
    while (ids.has(id)) id = hex(8);
    ids.add(id);
    return id;
  };
  const sessionId = opts.id ?? `${hex(8)}-${hex(4)}-7${hex(3)}-${'89ab'[Math.floor(rnd() * 4)]}${hex(3)}-${hex(12)}`;
  const header = { type: 'session', version: 3, id: sessionId, timestamp: iso(), cwd: opts.cwd ?? '/home/dev/project' };
  sink(header, true);
  // Only the count is kept: usage figures grow with it.
  const entries = { length: 0 };
  let leaf: string | null = null;
  const path: string[] = []; // ids on the current path (for jumps and compactions)
  const append = (build: (id: string, parentId: string | null, ts: string) => Record<string, unknown>) => {
    tick();
    const e = build(newId(), leaf, iso());
    entries.length++;
    sink(e, false);
    leaf = e.id as string;
    path.push(leaf);
    return e;
  };
  const usage = (input: number, output: number) => {
    const cacheRead = Math.floor(input * 0.8);
    return {
      input: input - cacheRead,
      output,
      cacheRead,
      cacheWrite: 0,
      totalTokens: input + output,
      cost: {
        input: (input - cacheRead) * 3e-6,
        output: output * 15e-6,
        cacheRead: cacheRead * 3e-7,
        cacheWrite: 0,
        total: (input - cacheRead) * 3e-6 + output * 15e-6 + cacheRead * 3e-7,
      },
    };
  };
  const model = { api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5' };
  append((id, parentId, ts) => ({
    type: 'model_change',
    id,
    parentId,
    timestamp: ts,
    provider: 'anthropic',
    modelId: 'claude-sonnet-4-5',
  }));
  append((id, parentId, ts) => ({
    type: 'thinking_level_change',
    id,
    parentId,
    timestamp: ts,
    thinkingLevel: 'medium',
  }));
  if (opts.systemMessage) {
    append((id, parentId, ts) => ({
      type: 'message',
      id,
      parentId,
      timestamp: ts,
      message: {
        role: 'system',
        content: 'You are pi.',
        sections: { base: 'You are pi.' },
        toolsAdded: [
          { name: 'read', description: 'Read a file', parameters: {} },
          { name: 'bash', description: 'Run bash', parameters: {} },
        ],
        timestamp: time,
      },
    }));
  }
  const compactAt = new Set<number>();
  const nCompactions = opts.compactions ?? 0;
  for (let i = 1; i <= nCompactions; i++) compactAt.add(Math.floor((opts.entries * i) / (nCompactions + 1)));
  let labelsLeft = opts.labels ?? 0;
  let turn = 0;
  while (entries.length < opts.entries) {
    turn++;
    // Jump back to an earlier point on the path (what /tree does), sometimes leaving a summary.
    if (turn > 3 && rnd() < (opts.branchRate ?? 0.03) && path.length > 8) {
      const back = path[Math.max(0, path.length - 2 - Math.floor(rnd() * Math.min(60, path.length - 2)))];
      const from = leaf;
      const cut = path.lastIndexOf(back);
      path.length = cut + 1;
      leaf = back;
      if (rnd() < 0.35) {
        append((id, _parentId, ts) => ({
          type: 'branch_summary',
          id,
          parentId: back,
          timestamp: ts,
          fromId: from,
          summary: `The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n## Goal\n${words(12)}`,
          details: { readFiles: [pick(FILES)], modifiedFiles: [] },
          fromHook: false,
        }));
      }
    }
    const user = append((id, parentId, ts) => ({
      type: 'message',
      id,
      parentId,
      timestamp: ts,
      message: {
        role: 'user',
        content: [{ type: 'text', text: `${words(6 + Math.floor(rnd() * 30))}?` }],
        timestamp: time,
      },
    }));
    userIds.push(user.id as string);
    const steps = 1 + Math.floor(rnd() * 4);
    for (let s = 0; s < steps; s++) {
      const calls = Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => {
        const name = pick(['read', 'read', 'edit', 'write', 'bash', 'grep']);
        const args: Record<string, unknown> =
          name === 'bash'
            ? { command: `npm test -- ${words(2)}` }
            : name === 'grep'
              ? { pattern: pick(WORDS), path: 'src' }
              : { path: pick(FILES) };
        if (name === 'edit') Object.assign(args, { oldText: words(5), newText: words(6) });
        return { type: 'toolCall', id: `toolu_${hex(20)}`, name, arguments: args };
      });
      const text = rnd() < 0.6 ? [{ type: 'text', text: words(8 + Math.floor(rnd() * 40)) }] : [];
      append((id, parentId, ts) => ({
        type: 'message',
        id,
        parentId,
        timestamp: ts,
        message: {
          role: 'assistant',
          content: [
            ...(rnd() < 0.3 ? [{ type: 'thinking', thinking: words(30), thinkingSignature: hex(40) }] : []),
            ...text,
            ...calls,
          ],
          ...model,
          usage: usage(2000 + entries.length * 3, 50 + Math.floor(rnd() * 400)),
          stopReason: 'toolUse',
          timestamp: time,
        },
      }));
      for (const c of calls) {
        const big = rnd() < (opts.largeOutputRate ?? 0.02);
        const out = big
          ? words(800 + Math.floor(rnd() * 6000))
          : words(10 + Math.floor(rnd() * ((opts.outputWords ?? 130) - 10)));
        append((id, parentId, ts) => ({
          type: 'message',
          id,
          parentId,
          timestamp: ts,
          message: {
            role: 'toolResult',
            toolCallId: c.id,
            toolName: c.name,
            content: [{ type: 'text', text: out }],
            isError: rnd() < 0.05,
            timestamp: time,
          },
        }));
      }
    }
    append((id, parentId, ts) => ({
      type: 'message',
      id,
      parentId,
      timestamp: ts,
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: words(10 + Math.floor(rnd() * 60)) }],
        ...model,
        usage: usage(2500 + entries.length * 3, 100 + Math.floor(rnd() * 600)),
        stopReason: 'stop',
        timestamp: time,
      },
    }));
    if (rnd() < 0.03)
      append((id, parentId, ts) => ({
        type: 'message',
        id,
        parentId,
        timestamp: ts,
        message: {
          role: 'bashExecution',
          command: `ls ${pick(FILES)}`,
          output: words(6),
          exitCode: rnd() < 0.2 ? 1 : 0,
          cancelled: false,
          truncated: false,
          timestamp: time,
        },
      }));
    if (rnd() < 0.02)
      append((id, parentId, ts) => ({
        type: 'custom_message',
        customType: 'note',
        content: words(8),
        display: true,
        id,
        parentId,
        timestamp: ts,
      }));
    if (rnd() < 0.02)
      append((id, parentId, ts) => ({
        type: 'thinking_level_change',
        id,
        parentId,
        timestamp: ts,
        thinkingLevel: pick(['off', 'low', 'medium', 'high']),
      }));
    if (labelsLeft > 0 && rnd() < 0.05) {
      labelsLeft--;
      const target = path[Math.floor(rnd() * path.length)];
      append((id, parentId, ts) => ({
        type: 'label',
        id,
        parentId,
        timestamp: ts,
        targetId: target,
        label: `mark-${labelsLeft}`,
      }));
    }
    for (const at of compactAt) {
      if (entries.length >= at) {
        compactAt.delete(at);
        const kept = path[Math.max(0, path.length - 30)];
        append((id, parentId, ts) => ({
          type: 'compaction',
          id,
          parentId,
          timestamp: ts,
          summary: `## Goal\n${words(40)}\n\n## Progress\n${words(60)}`,
          firstKeptEntryId: kept,
          tokensBefore: 100000 + Math.floor(rnd() * 50000),
          details: { readFiles: [pick(FILES)], modifiedFiles: [pick(FILES)] },
          fromHook: false,
        }));
      }
    }
  }
  return { leafId: leaf, count: entries.length };
}
