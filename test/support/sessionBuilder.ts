// Builds pi 1.6.0 session files for tests: the header and entries with pi's key order, 8-hex ids,
// ISO timestamps, realistic user/assistant/toolResult/system messages, and branches (`at(id)`).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './tmp.js';

type Obj = Record<string, any>;

export interface Call {
  name: string;
  args: Obj;
  id?: string;
}

export class SessionBuilder {
  readonly header: Obj;
  readonly entries: Obj[] = [];
  leaf: string | null = null;
  private n = 0;
  private t: number;

  constructor(opts: { id?: string; cwd?: string; start?: string } = {}) {
    this.t = Date.parse(opts.start ?? '2026-01-05T10:00:00.000Z');
    this.header = {
      type: 'session',
      version: 3,
      id: opts.id ?? '019b8f3a-0000-7000-8000-000000000001',
      timestamp: new Date(this.t).toISOString(),
      cwd: opts.cwd ?? '/home/u/proj',
    };
  }

  private nextId(): string {
    this.n++;
    return `e${this.n.toString(16).padStart(7, '0')}`;
  }

  private tick(): { iso: string; ms: number } {
    this.t += 1000;
    return { iso: new Date(this.t).toISOString(), ms: this.t };
  }

  /** Moves the append position (like pi's branch(id)); null = new root. */
  at(id: string | null): this {
    this.leaf = id;
    return this;
  }

  /** Appends an entry: `type, id, parentId, timestamp` first, then `fields` (pi's order). */
  add(type: string, fields: Obj = {}): string {
    const id = this.nextId();
    const { iso } = this.tick();
    this.entries.push({ type, id, parentId: this.leaf, timestamp: iso, ...fields });
    this.leaf = id;
    return id;
  }

  message(message: Obj): string {
    return this.add('message', { message: { ...message, timestamp: message.timestamp ?? this.t + 1000 } });
  }

  user(text: string | Obj[]): string {
    return this.message({ role: 'user', content: typeof text === 'string' ? [{ type: 'text', text }] : text });
  }

  assistant(
    opts: { text?: string; thinking?: string; calls?: Call[]; usage?: Obj | null; stopReason?: string } = {},
  ): string {
    const content: Obj[] = [];
    if (opts.thinking) content.push({ type: 'thinking', thinking: opts.thinking, thinkingSignature: 'sig' });
    if (opts.text !== undefined) content.push({ type: 'text', text: opts.text });
    for (const c of opts.calls ?? [])
      content.push({ type: 'toolCall', id: c.id ?? `call_${this.n + 1}_${c.name}`, name: c.name, arguments: c.args });
    const usage = opts.usage === null ? undefined : (opts.usage ?? usageOf(100, 20));
    return this.message({
      role: 'assistant',
      content,
      api: 'openai-completions',
      provider: 'test',
      model: 'test-model',
      ...(usage ? { usage } : {}),
      stopReason: opts.stopReason ?? (opts.calls?.length ? 'toolUse' : 'stop'),
    });
  }

  toolResult(toolCallId: string, toolName: string, text: string, extra: Obj = {}): string {
    return this.message({
      role: 'toolResult',
      toolCallId,
      toolName,
      content: [{ type: 'text', text }],
      ...extra,
      isError: false,
    });
  }

  /** An assistant turn with tool calls followed by their results. */
  toolTurn(calls: Call[], results: string[], text?: string): string {
    const withIds = calls.map((c, i) => ({ ...c, id: c.id ?? `call_${this.n + 1}_${i}` }));
    this.assistant({ text, calls: withIds });
    let last = this.leaf!;
    withIds.forEach((c, i) => (last = this.toolResult(c.id!, c.name, results[i] ?? 'ok')));
    return last;
  }

  system(content: string, extra: Obj = {}): string {
    return this.message({ role: 'system', content, ...extra });
  }

  label(targetId: string, label?: string): string {
    return this.add('label', label === undefined ? { targetId } : { targetId, label });
  }

  modelChange(modelId = 'other-model'): string {
    return this.add('model_change', { provider: 'test', modelId });
  }

  thinking(level = 'high'): string {
    return this.add('thinking_level_change', { thinkingLevel: level });
  }

  custom(customType = 'ext.state', data: unknown = { a: 1 }): string {
    const id = this.nextId();
    const { iso } = this.tick();
    this.entries.push({ type: 'custom', customType, data, id, parentId: this.leaf, timestamp: iso });
    this.leaf = id;
    return id;
  }

  customMessage(content: string, customType = 'ext.note', details?: unknown): string {
    const id = this.nextId();
    const { iso } = this.tick();
    this.entries.push({
      type: 'custom_message',
      customType,
      content,
      display: true,
      ...(details === undefined ? {} : { details }),
      id,
      parentId: this.leaf,
      timestamp: iso,
    });
    this.leaf = id;
    return id;
  }

  branchSummary(fromId: string, summary: string, extra: Obj = {}): string {
    return this.add('branch_summary', { fromId, summary, ...extra });
  }

  compaction(summary: string, firstKeptEntryId: string, tokensBefore: number, extra: Obj = {}): string {
    return this.add('compaction', { summary, firstKeptEntryId, tokensBefore, ...extra });
  }

  contextEdit(targetId: string, replacement: Obj | null): string {
    return this.add('context_edit', { targetId, replacement });
  }

  text(): string {
    return [this.header, ...this.entries].map((e) => `${JSON.stringify(e)}\n`).join('');
  }

  /** Writes the file under a fresh temp dir (removed at exit); returns its path. */
  write(
    dir = tempDir('pi-tree-summary-'),
    name = '2026-01-05T10-00-00-000Z_019b8f3a-0000-7000-8000-000000000001.jsonl',
  ): string {
    const p = join(dir, name);
    writeFileSync(p, this.text());
    return p;
  }
}

export function usageOf(input: number, output: number): Obj {
  return {
    input,
    output,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: input + output,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** Deterministic filler text of about `chars` characters. */
export function words(chars: number, seed = 1): string {
  const vocab = [
    'alpha',
    'beta',
    'gamma',
    'delta',
    'session',
    'tree',
    'branch',
    'leaf',
    'token',
    'summary',
    'model',
    'file',
  ];
  let s = '';
  let x = seed;
  while (s.length < chars) {
    x = (x * 1103515245 + 12345) % 2147483648;
    s += `${vocab[x % vocab.length]} `;
  }
  return s.slice(0, chars);
}
