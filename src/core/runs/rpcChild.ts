// pi in RPC mode as a child process (pi's docs/rpc.md): `pi --mode rpc …` started with an argument array
// (no shell; the cwd is the session's folder), its JSONL records split on LF only (not on U+2028/U+2029,
// "Framing"), commands correlated by id, every other record handed to one listener, and an orderly stop
// ("Shutdown": stdin closed, pi aborts what runs and exits; SIGTERM, then SIGKILL, only when it does not).
//
// Never an orphan. pi-tree ends every pi it started on the ways out it controls: a stop after each run,
// the stop on cancel, and a SIGTERM from the process's 'exit' handler for any still running (a pi-tree
// that throws, returns early or calls process.exit). What it cannot control, a kill -9 of pi-tree (the
// CLI, or VS Code's extension host), closes the pipes, and pi 1.6.0 ends on its own: it reads EOF on
// stdin, aborts its turn (the assistant message it had so far is written as one whole line with
// stopReason "aborted") and exits; or, when it has an event to write first, its failed write to the
// closed stdout makes it exit at once (pi's output guard), the prompt then the session's last line. Whole
// lines and no pi left either way (test/core/runs/orphan.test.ts; test/cli/ask.test.ts and
// variants.test.ts kill the CLI itself).
// On POSIX pi runs in its own process group, so a Ctrl+C in pi-tree's terminal reaches pi-tree only, which
// then cancels (abort, then the orderly stop) instead of pi dying of SIGINT mid-turn.
import { spawn, type ChildProcess } from 'node:child_process';
import type { PiProgram } from '../platform/piProgram.js';

/** One record pi wrote on stdout (a response, an event, an extension UI request). */
export type PiRecord = { type: string; [key: string]: unknown };

/** pi answered a command with `success: false`; the message is pi's. */
export class PiCommandError extends Error {
  override name = 'PiCommandError';
  constructor(
    readonly command: string,
    message: string,
  ) {
    super(message);
  }
}

/** pi could not be started, or exited (or stopped answering) while pi-tree waited for it. */
export class PiProcessError extends Error {
  override name = 'PiProcessError';
}

export interface RpcChildOptions {
  pi: PiProgram;
  /** pi's arguments after `--mode rpc`. */
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Every record that is not a response (events, extension UI requests), in order. */
  onRecord?: (rec: PiRecord) => void;
}

/** Longest record read; a longer one (an agent_end with megabytes of tool output) is skipped whole. */
const MAX_RECORD_BYTES = 64 * 1024 * 1024;
/** How long pi may take to exit after its stdin closed (it aborts its turn and disposes first). */
const STOP_GRACE_MS = 10_000;
/** After SIGTERM, before SIGKILL. */
const TERM_GRACE_MS = 5_000;

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** On the process's exit (any path that still runs JavaScript), every pi still running gets SIGTERM. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const c of running) {
      try {
        c.kill('SIGTERM');
      } catch {
        // gone
      }
    }
  });
}

type Pending = { resolve: (data: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout; command: string };

export class RpcChild {
  private readonly pending = new Map<string, Pending>();
  private seq = 0;
  private stderr = '';
  private ended: string | undefined;
  /** Resolves once pi has exited (or could not be started), with why. */
  readonly exited: Promise<string>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly opts: RpcChildOptions,
  ) {
    installExitHook();
    running.add(child);
    this.exited = new Promise<string>((resolve) => {
      child.once('error', (e) => {
        running.delete(child);
        this.end(`pi could not be started (${opts.pi.program}): ${e.message}`);
        resolve(this.ended!);
      });
      child.once('exit', (code, sig) => {
        running.delete(child);
        const last = this.stderrTail();
        this.end(`pi exited (${sig ?? `code ${code}`})${last ? `: ${last}` : ''}`);
        resolve(this.ended!);
      });
    });
    child.stderr!.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString('utf8')).slice(-8000)));
    child.stdin!.on('error', () => {});
    let parts: Buffer[] = [];
    let size = 0;
    let skipping = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      let start = 0;
      for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, nl);
        start = nl + 1;
        if (skipping || size + piece.length > MAX_RECORD_BYTES) {
          skipping = false;
          parts = [];
          size = 0;
          continue;
        }
        const line = (parts.length ? Buffer.concat([...parts, piece]) : piece).toString('utf8');
        parts = [];
        size = 0;
        this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
      }
      if (start >= chunk.length || skipping) return;
      const rest = chunk.subarray(start);
      if (size + rest.length > MAX_RECORD_BYTES) {
        skipping = true;
        parts = [];
        size = 0;
        return;
      }
      parts.push(Buffer.from(rest));
      size += rest.length;
    });
  }

  /** Starts `pi --mode rpc ARGS` (its own process group on POSIX: see the file's comment). */
  static start(opts: RpcChildOptions): RpcChild {
    const env: NodeJS.ProcessEnv = { ...(opts.env ?? process.env), PI_SKIP_VERSION_CHECK: '1' };
    const child = spawn(opts.pi.program, [...opts.pi.args, '--mode', 'rpc', ...opts.args], {
      cwd: opts.cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
      detached: process.platform !== 'win32',
    });
    return new RpcChild(child, opts);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Why pi is gone, once it is. */
  get gone(): string | undefined {
    return this.ended;
  }

  /** The last lines pi wrote on stderr, as one line. */
  stderrTail(): string {
    return this.stderr.trim().split('\n').slice(-3).join(' ').replace(/\s+/g, ' ').slice(0, 600);
  }

  private onLine(line: string): void {
    let rec: PiRecord;
    try {
      rec = JSON.parse(line);
    } catch {
      return; // not a protocol record
    }
    if (!rec || typeof rec !== 'object' || typeof rec.type !== 'string') return;
    if (rec.type === 'response' && typeof rec.id === 'string') {
      const p = this.pending.get(rec.id);
      if (!p) return;
      this.pending.delete(rec.id);
      clearTimeout(p.timer);
      if (rec.success === true) p.resolve(rec.data);
      else
        p.reject(
          new PiCommandError(
            p.command,
            typeof rec.error === 'string' && rec.error ? rec.error : `pi refused ${p.command}`,
          ),
        );
      return;
    }
    // Nobody answers pi's dialogs here (trust prompts, confirmations): each is cancelled, never left hanging.
    if (
      rec.type === 'extension_ui_request' &&
      typeof rec.id === 'string' &&
      ['select', 'confirm', 'input', 'editor'].includes(String(rec.method))
    ) {
      this.write({ type: 'extension_ui_response', id: rec.id, cancelled: true });
    }
    this.opts.onRecord?.(rec);
  }

  private write(rec: object): void {
    if (this.ended || !this.child.stdin!.writable) return;
    this.child.stdin!.write(`${JSON.stringify(rec)}\n`);
  }

  /** Sends one command and resolves with its response's data; rejects with pi's words, or when pi is gone or does not answer in time. */
  send(command: { type: string; [key: string]: unknown }, timeoutMs: number): Promise<unknown> {
    if (this.ended) return Promise.reject(new PiProcessError(this.ended));
    const id = `pt${++this.seq}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.pending.delete(id))
          reject(
            new PiProcessError(
              `pi (pid ${this.pid}) did not answer ${command.type} within ${Math.round(timeoutMs / 1000)} s`,
            ),
          );
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer, command: command.type });
      this.write({ ...command, id });
    });
  }

  private end(why: string): void {
    if (this.ended) return;
    this.ended = why;
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new PiProcessError(why));
    }
    this.pending.clear();
  }

  /**
   * The orderly stop: stdin closed (pi aborts a turn still running, disposes and exits), SIGTERM if pi is
   * still there after `graceMs`, SIGKILL a few seconds later. Resolves once pi has exited.
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null || this.ended) {
      await this.exited;
      return;
    }
    this.child.stdin!.end();
    const term = setTimeout(() => this.signal('SIGTERM'), graceMs);
    const kill = setTimeout(() => this.signal('SIGKILL'), graceMs + TERM_GRACE_MS);
    await this.exited;
    clearTimeout(term);
    clearTimeout(kill);
  }

  private signal(sig: NodeJS.Signals): void {
    try {
      this.child.kill(sig);
    } catch {
      // gone
    }
  }
}
