// Deterministic pi sessions in pi 1.6.0's exact on-disk form (spec §1-§2, §4): the layout
// `<agentDir>/sessions/--<encoded cwd>--/<ts>_<uuidv7>.jsonl`, one compact JSON object per line in pi's
// key order, 8-hex entry ids, ISO entry timestamps, message.timestamp in ms, "\n" line endings.
// `SessionBuilder` writes any shape a test needs; `writeDemoSessions` writes the demo set used by
// the e2e tests and `npm start`. Same seed and start time => byte-identical files.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** pi's per-cwd folder name: resolved cwd, one leading separator dropped, `/`, `\`, `:` → `-`. */
export function encodeCwd(cwd: string): string {
  return `--${resolve(cwd)
    .replace(/^[/\\]/, '')
    .replace(/[/\\:]/g, '-')}--`;
}

export function sessionDirFor(agentDir: string, cwd: string): string {
  return join(agentDir, 'sessions', encodeCwd(cwd));
}

export function sessionFileName(timestamp: string, sessionId: string): string {
  return `${timestamp.replace(/[:.]/g, '-')}_${sessionId}.jsonl`;
}

/** mulberry32 seeded from a string: small, fast and the same on every machine. */
class Rng {
  private state: number;
  constructor(seed: string) {
    let h = 2166136261;
    for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619);
    this.state = h >>> 0;
  }
  u32(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  hex(chars: number): string {
    let s = '';
    while (s.length < chars) s += this.u32().toString(16).padStart(8, '0');
    return s.slice(0, chars);
  }
  between(min: number, max: number): number {
    return min + (this.u32() % (max - min + 1));
  }
}

/** UUIDv7 (48-bit ms time, version 7, variant 10) with random bits from the seeded generator. */
function uuidv7(ms: number, rng: Rng): string {
  const time = ms.toString(16).padStart(12, '0');
  const randA = rng.hex(3);
  const variant = ((rng.u32() & 0x3) | 0x8).toString(16);
  const randB = rng.hex(15);
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randA}-${variant}${randB.slice(0, 3)}-${randB.slice(3)}`;
}

export interface SessionEntry {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
  [key: string]: unknown;
}

const ZERO_COST = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };

export interface BuilderOptions {
  cwd: string;
  /** Seeds ids and timing jitter. */
  seed: string;
  /** Header time; entries follow a few seconds apart. */
  start: Date | string | number;
  /** Absolute path of the session this one was branched from (header `parentSession`). */
  parentSession?: string;
  provider?: string;
  model?: string;
}

/**
 * Builds one session the way pi's SessionManager appends: every entry hangs under the current
 * leaf and becomes the leaf; `moveTo` moves the leaf without writing (as `/tree` without summary).
 */
export class SessionBuilder {
  readonly id: string;
  readonly timestamp: string;
  readonly cwd: string;
  readonly parentSession?: string;
  readonly entries: SessionEntry[] = [];
  leafId: string | null = null;
  /** Resolved labels in pi's map order (first set keeps its place; a clear removes it). */
  readonly labels = new Map<string, { label: string; timestamp: string }>();
  file?: string;
  private clock: number;
  private readonly rng: Rng;
  private readonly provider: string;
  private readonly model: string;

  constructor(opts: BuilderOptions) {
    this.rng = new Rng(opts.seed);
    this.clock = new Date(opts.start).getTime();
    this.cwd = resolve(opts.cwd);
    this.parentSession = opts.parentSession;
    this.timestamp = new Date(this.clock).toISOString();
    this.id = uuidv7(this.clock, this.rng);
    this.provider = opts.provider ?? 'anthropic';
    this.model = opts.model ?? 'claude-sonnet-4-5';
  }

  private tick(minMs: number, maxMs: number): number {
    this.clock += this.rng.between(minMs, maxMs);
    return this.clock;
  }

  private newId(): string {
    const taken = new Set(this.entries.map((e) => e.id));
    for (;;) {
      const id = this.rng.hex(8);
      if (!taken.has(id)) return id;
    }
  }

  /** Appends `{type, id, parentId, timestamp, ...fields}` (or payload-first for custom types). */
  private append(type: string, fields: Record<string, unknown>, payloadFirst = false): string {
    const base = { id: this.newId(), parentId: this.leafId, timestamp: new Date(this.tick(300, 2500)).toISOString() };
    const entry = (payloadFirst ? { type, ...fields, ...base } : { type, ...base, ...fields }) as SessionEntry;
    this.entries.push(entry);
    this.leafId = entry.id;
    return entry.id;
  }

  private usage() {
    const input = this.rng.between(800, 12_000);
    const output = this.rng.between(40, 900);
    return { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost: { ...ZERO_COST } };
  }

  private msgTime(): number {
    return this.clock - this.rng.between(1, 40);
  }

  modelChange(provider = this.provider, modelId = this.model): string {
    return this.append('model_change', { provider, modelId });
  }

  thinkingLevel(thinkingLevel: string): string {
    return this.append('thinking_level_change', { thinkingLevel });
  }

  user(text: string): string {
    this.tick(5_000, 40_000); // the human types
    return this.append('message', {
      message: { role: 'user', content: [{ type: 'text', text }], timestamp: this.msgTime() },
    });
  }

  /** An assistant turn; `tools` become toolCall blocks (answer them with `toolResult`). */
  assistant(text: string, tools: { name: string; arguments: Record<string, unknown> }[] = []): string {
    const started = this.clock + this.rng.between(50, 400);
    this.tick(2_000, 20_000); // the model streams
    const content: unknown[] = [];
    if (text) content.push({ type: 'text', text });
    for (const t of tools)
      content.push({ type: 'toolCall', id: `toolu_${this.rng.hex(24)}`, name: t.name, arguments: t.arguments });
    return this.append('message', {
      message: {
        role: 'assistant',
        content,
        api: 'anthropic-messages',
        provider: this.provider,
        model: this.model,
        usage: this.usage(),
        stopReason: tools.length ? 'toolUse' : 'stop',
        timestamp: started,
      },
    });
  }

  /** Results for every toolCall of the assistant entry `assistantId`, in order. */
  toolResults(assistantId: string, outputs: string[]): string[] {
    const assistant = this.entries.find((e) => e.id === assistantId);
    const calls = (
      (assistant?.message as { content?: { type: string; id: string; name: string }[] })?.content ?? []
    ).filter((c) => c.type === 'toolCall');
    return calls.map((call, i) =>
      this.append('message', {
        message: {
          role: 'toolResult',
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: 'text', text: outputs[i] ?? '' }],
          isError: false,
          timestamp: this.msgTime(),
        },
      }),
    );
  }

  /** pi's appendLabelChange: hangs under the leaf, references the target; no label clears. */
  label(targetId: string, label?: string): string {
    if (!this.entries.some((e) => e.id === targetId)) throw new Error(`Entry ${targetId} not found`);
    const id = this.append('label', label === undefined ? { targetId } : { targetId, label });
    if (label) this.labels.set(targetId, { label, timestamp: this.entries[this.entries.length - 1].timestamp });
    else this.labels.delete(targetId);
    return id;
  }

  name(name: string): string {
    return this.append('session_info', { name: name.replace(/[\r\n]+/g, ' ').trim() });
  }

  /** Moves the leaf without writing anything (pi's `branch(id)`). */
  moveTo(id: string | null): void {
    if (id !== null && !this.entries.some((e) => e.id === id)) throw new Error(`Entry ${id} not found`);
    this.leafId = id;
  }

  /** pi's branchWithSummary: the summary hangs under `targetId`, fromId = the leaf we leave. */
  branchSummary(
    targetId: string | null,
    summary: string,
    details = { readFiles: [] as string[], modifiedFiles: [] as string[] },
  ): string {
    const fromId = this.leafId ?? 'root';
    this.leafId = targetId;
    return this.append('branch_summary', {
      fromId,
      summary: `The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n${summary}`,
      details,
      usage: this.usage(),
      fromHook: false,
    });
  }

  compaction(summary: string, firstKeptEntryId: string, tokensBefore: number): string {
    return this.append('compaction', {
      summary,
      firstKeptEntryId,
      tokensBefore,
      details: { readFiles: [], modifiedFiles: [] },
      usage: this.usage(),
      fromHook: false,
    });
  }

  /** Root-first path to `leafId` (pi's getBranch). */
  branchTo(leafId: string): SessionEntry[] {
    const byId = new Map(this.entries.map((e) => [e.id, e]));
    const path: SessionEntry[] = [];
    for (let e = byId.get(leafId); e; e = e.parentId === null ? undefined : byId.get(e.parentId)) path.unshift(e);
    return path;
  }

  /**
   * pi's createBranchedSession(leafId) as used by /fork and /clone: the path without label entries,
   * re-chained, then one label entry per label on the path with its original timestamp.
   * The source must be written first (the new header's parentSession is its absolute path).
   */
  branchedSession(leafId: string, opts: { seed: string; start: Date | string | number }): SessionBuilder {
    if (!this.file) throw new Error('write() the source session before branching from it');
    const fork = new SessionBuilder({
      cwd: this.cwd,
      seed: opts.seed,
      start: opts.start,
      parentSession: this.file,
      provider: this.provider,
      model: this.model,
    });
    let parentId: string | null = null;
    for (const entry of this.branchTo(leafId)) {
      if (entry.type === 'label') continue;
      fork.entries.push({ ...entry, parentId });
      parentId = entry.id;
    }
    fork.leafId = parentId;
    const onPath = new Set(fork.entries.map((e) => e.id));
    for (const [targetId, { label, timestamp }] of this.labels) {
      if (!onPath.has(targetId)) continue;
      const entry: SessionEntry = {
        type: 'label',
        id: fork.newId(),
        parentId: fork.leafId,
        timestamp,
        targetId,
        label,
      };
      fork.entries.push(entry);
      fork.leafId = entry.id;
      fork.labels.set(targetId, { label, timestamp });
    }
    fork.clock = Math.max(fork.clock, this.clock);
    return fork;
  }

  header(): Record<string, unknown> {
    const h: Record<string, unknown> = {
      type: 'session',
      version: 3,
      id: this.id,
      timestamp: this.timestamp,
      cwd: this.cwd,
    };
    if (this.parentSession) h.parentSession = this.parentSession;
    return h;
  }

  text(): string {
    return [this.header(), ...this.entries].map((o) => JSON.stringify(o) + '\n').join('');
  }

  /** Writes the file into pi's layout under `agentDir` (mtime = last entry) and returns its path. */
  write(agentDir: string): string {
    const dir = sessionDirFor(agentDir, this.cwd);
    mkdirSync(dir, { recursive: true });
    this.file = join(dir, sessionFileName(this.timestamp, this.id));
    writeFileSync(this.file, this.text(), { flag: 'wx' });
    const last = new Date(this.entries.at(-1)?.timestamp ?? this.timestamp);
    utimesSync(this.file, last, last);
    return this.file;
  }
}

export interface DemoSessions {
  dir: string;
  /** Branched session with labels, a branch summary and a name. */
  branched: SessionBuilder;
  /** Fork of `branched` from before its second user message (pi's /fork), continued. */
  fork: SessionBuilder;
  /** One question, one answer. */
  small: SessionBuilder;
  /** Entry ids worth pointing at in tests. */
  ids: Record<string, string>;
}

/**
 * Writes the demo set for `cwd` into `agentDir` (pi's PI_CODING_AGENT_DIR). Deterministic for a given
 * `start`; the default puts it in the past so "newest first" orders are stable.
 */
export function writeDemoSessions(
  agentDir: string,
  cwd: string,
  start: Date | string | number = '2026-11-20T09:00:00.000Z',
): DemoSessions {
  const t0 = new Date(start).getTime();
  const b = new SessionBuilder({ cwd, seed: 'demo-branched', start: t0 });
  b.modelChange();
  b.thinkingLevel('medium');
  const ask = b.user(
    'The JSONL reader loads the whole file into memory. Make it stream, so 500 MB sessions open quickly.',
  );
  const look = b.assistant("I'll look at the reader first.", [
    { name: 'read', arguments: { path: 'src/core/reader.ts' } },
  ]);
  b.toolResults(look, [
    'export function readAll(path: string) {\n  return readFileSync(path, "utf8").split("\\n").map(parse);\n}',
  ]);
  const plan = b.assistant(
    'The reader splits one big string. Plan: read 1 MiB chunks, carry the partial last line over, parse each complete line.',
  );
  const tryMmap = b.user('Could we memory-map the file instead?');
  const mmapAnswer = b.assistant(
    "Node has no built-in mmap; it would need a native module, which VS Code extensions should avoid. I'd stay with chunked reads.",
  );
  b.label(mmapAnswer, 'dead end');
  const oldLeaf = b.leafId!;
  b.branchSummary(
    plan,
    '## Goal\nStream large session files.\n\n## Key Decisions\n- No mmap: it needs a native module.',
    { readFiles: ['src/core/reader.ts'], modifiedFiles: [] },
  );
  const streamAsk = b.user('Go with chunked reads and keep torn last lines out of the index.');
  const edit = b.assistant('', [
    { name: 'edit', arguments: { path: 'src/core/reader.ts', oldText: 'readFileSync', newText: 'createReadStream' } },
  ]);
  b.toolResults(edit, ['Edited src/core/reader.ts']);
  const done = b.assistant('The reader now streams in 1 MiB chunks; a torn last line is skipped and reported.');
  b.label(ask, 'goal');
  b.label(done, 'streaming works');
  const testsAsk = b.user('Add a test with a 100k-entry file.');
  b.assistant('Added test/core/reader.test.ts with a generated 100k-entry session; it parses in about 300 ms.');
  b.name('Stream the JSONL reader');
  b.write(agentDir);

  // /fork on "Could we memory-map…": the fork ends at that message's parent, then goes elsewhere.
  const fork = b.branchedSession(plan, { seed: 'demo-fork', start: t0 + 3_600_000 });
  fork.user('Before streaming: measure how long the current reader takes on a 200 MB file.');
  fork.assistant('', [{ name: 'bash', arguments: { command: 'node bench/reader.mjs fixtures/200mb.jsonl' } }]);
  fork.toolResults(fork.leafId!, ['readAll: 4.8 s, 1.9 GB peak RSS']);
  fork.assistant('4.8 s and 1.9 GB peak memory: streaming is worth it.');
  fork.write(agentDir);

  const small = new SessionBuilder({ cwd, seed: 'demo-small', start: t0 + 7_200_000 });
  small.modelChange();
  small.user('What does the leaf of a pi session mean?');
  small.assistant('It is the entry the conversation continues from: pi takes the last line of the file on load.');
  small.write(agentDir);

  return {
    dir: sessionDirFor(agentDir, cwd),
    branched: b,
    fork,
    small,
    ids: { ask, look, plan, tryMmap, mmapAnswer, oldLeaf, streamAsk, done, testsAsk },
  };
}
