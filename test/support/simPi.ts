// A stand-in for pi's turn loop at the core's level, for checkpoint tests that need many scenarios fast:
// entries appended as pi appends them (the assistant message before its calls run), the bridge's
// Capture called on the same events (tool_call before a call, turn_end after the results), and the
// calls' effects made on the real working folder by the test. The real pi runs in test/bridge and
// test/cli; this one keeps the crash and edge cases quick.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Capture, type CaptureOptions } from '../../src/core/checkpoints/capture/capture.js';
import { DEFAULT_SETTINGS, type CheckpointSettings } from '../../src/core/checkpoints/store/storePaths.js';
import { SessionBuilder, type Call } from './sessionBuilder.js';
import { encodeCwd } from '../../src/core/session/repository.js';

export class SimPi {
  readonly b: SessionBuilder;
  readonly file: string;
  capture: Capture | undefined;
  readonly notified: string[] = [];

  constructor(
    readonly cwd: string,
    readonly agentDir: string,
    opts: {
      capture?: boolean;
      settings?: Partial<CheckpointSettings>;
      program?: string;
      sessionDir: string;
      env?: NodeJS.ProcessEnv;
      timeoutMs?: number;
      packEvery?: number;
      /** The session's id (two SimPis of one project need their own). */
      id?: string;
    } & Pick<CaptureOptions, 'watch' | 'privateDirs' | 'pruneGraceMs'>,
  ) {
    const id = opts.id ?? '019b8f3a-0000-7000-8000-0000000051a1';
    this.b = new SessionBuilder({ cwd, id });
    // pi's own layout: the session's folder is named after its working folder (which vouches for that
    // cwd); a sessionDir that is already that folder is used as it is
    const dir = basename(opts.sessionDir) === encodeCwd(cwd) ? opts.sessionDir : join(opts.sessionDir, encodeCwd(cwd));
    mkdirSync(dir, { recursive: true });
    this.file = join(dir, `2026-01-05T10-00-00-000Z_${id}.jsonl`);
    if (opts.capture !== false) this.capture = this.newCapture(agentDir, opts);
    this.capture?.start(null);
    this.save();
  }

  private newCapture(agentDir: string, opts: ConstructorParameters<typeof SimPi>[2]): Capture {
    return new Capture({
      agentDir,
      cwd: this.cwd,
      sessionId: String(this.b.header.id),
      settings: { ...DEFAULT_SETTINGS, ...opts.settings },
      notify: (m) => this.notified.push(m),
      program: opts.program,
      env: opts.env,
      timeoutMs: opts.timeoutMs,
      packEvery: opts.packEvery,
      watch: opts.watch,
      privateDirs: opts.privateDirs,
      pruneGraceMs: opts.pruneGraceMs,
    });
  }

  /**
   * pi runs the session again (after a kill or an exit): a new Capture of the same session, started at
   * its leaf (the old one is dropped as a killed pi drops it: nothing more of it runs).
   */
  resume(opts: ConstructorParameters<typeof SimPi>[2]): Capture {
    this.capture = this.newCapture(this.agentDir, opts);
    this.capture.start(this.b.leaf ?? null);
    return this.capture;
  }

  save(): void {
    writeFileSync(this.file, [this.b.header, ...this.b.entries].map((e) => `${JSON.stringify(e)}\n`).join(''));
  }

  /**
   * One prompt and one tool turn: the user message, the assistant message with `calls`, `effects` run
   * between the capture's tool_call and its turn_end (what the calls do on disk), the results, an answer.
   * Returns the ids.
   */
  async turn(
    prompt: string,
    calls: Call[],
    effects: () => void,
    opts: { failed?: boolean } = {},
  ): Promise<{ user: string; call: string; results: string[]; answer: string }> {
    const user = this.b.user(prompt);
    const withIds = calls.map((c, i) => ({ ...c, id: `call_${user}_${i}` }));
    const call = this.b.assistant({ calls: withIds });
    this.save();
    for (const c of withIds) await this.capture?.beforeTool(c.name, c.args, { id: call, parentId: user });
    effects();
    const results = withIds.map((c) =>
      this.b.toolResult(c.id, c.name, opts.failed ? 'failed' : 'ok', opts.failed ? {} : {}),
    );
    if (opts.failed) for (const r of this.b.entries.slice(-results.length)) r.message.isError = true;
    this.save();
    await this.capture?.turnEnd(call, results);
    const answer = this.b.assistant({ text: `done: ${prompt}` });
    this.save();
    await this.capture?.flush();
    return { user, call, results, answer };
  }
}
