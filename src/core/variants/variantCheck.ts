// A variant's check: the user's own command line (`npm test`, say), typed by the user for this run, run
// by the user's shell in the variant's folder once its turn has ended. It is never built from session
// data: the line goes to the shell as one argument. The shell and whatever it starts are a process group
// of their own, so a timeout or a cancel stops all of it, not just the shell. Only the end of the output
// is kept (stdout and stderr as they came), so a chatty test run cannot fill memory. Outside Windows a
// small watchdog (this runtime, `-e`) leads the group and starts the shell: when pi-tree's process dies
// without stopping it (kill -9 of the CLI, a crashed editor), the watchdog's stdin ends and it stops the
// whole group, as pi stops on its stdin's end.
import { spawn } from 'node:child_process';
import type { VariantCheck } from './variantRun.js';

export interface CheckOptions {
  /** The user's command line. */
  command: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Stops the check (default 10 minutes). */
  timeoutMs?: number;
  /** The output kept, from its end (default 64 KiB). */
  maxOutput?: number;
  signal?: AbortSignal;
}

export const CHECK_TIMEOUT_MS = 10 * 60_000;
/** The longest a check may be given (`--check-timeout`, the editor's setting): a day. */
export const MAX_CHECK_TIMEOUT_MS = 24 * 60 * 60_000;
export const CHECK_OUTPUT_BYTES = 64 * 1024;
/** How long a stopped check's processes get between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 3_000;

/**
 * The watchdog, run as `node -e WATCHDOG program ...args`: starts the program in its own (the
 * watchdog's) process group, ends as it ends (its exit code, or the same signal), and when its stdin
 * ends (pi-tree is gone) stops the whole group, SIGTERM then SIGKILL. ELECTRON_RUN_AS_NODE (how an
 * editor's runtime runs it as Node) is not passed on to the check unless the caller had it.
 */
const WATCHDOG = `
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
const env = { ...process.env };
if (env.PI_TREE_WATCHDOG_ERAN !== '1') delete env.ELECTRON_RUN_AS_NODE;
delete env.PI_TREE_WATCHDOG_ERAN;
const c = spawn(process.argv[1], process.argv.slice(2), { stdio: ['ignore', 'inherit', 'inherit'], env });
let orphaned = false;
c.on('error', (e) => {
  process.stderr.write('the check could not start: ' + e.message + '\\n');
  process.exit(127);
});
c.on('exit', (code, signal) => {
  if (orphaned) return;
  if (!signal) process.exit(code ?? 1);
  process.kill(process.pid, signal);
  setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 200);
});
process.stdin.on('end', () => {
  orphaned = true;
  process.on('SIGTERM', () => {});
  try { process.kill(0, 'SIGTERM'); } catch {}
  setTimeout(() => { try { process.kill(0, 'SIGKILL'); } catch {} process.exit(1); }, ${KILL_GRACE_MS});
});
process.stdin.resume();
`;

/** The user's shell and the arguments that make it run one command line. */
export function userShell(env: NodeJS.ProcessEnv = process.env): { program: string; args: (line: string) => string[] } {
  if (process.platform === 'win32')
    return { program: env.ComSpec || 'cmd.exe', args: (line) => ['/d', '/s', '/c', line] };
  return { program: env.SHELL || '/bin/sh', args: (line) => ['-c', line] };
}

/** Runs the check; never throws (a check that cannot start says so in its output, exit code null or 127). */
export function runCheck(o: CheckOptions): Promise<VariantCheck> {
  const t0 = performance.now();
  const max = o.maxOutput ?? CHECK_OUTPUT_BYTES;
  const env = o.env ?? process.env;
  const sh = userShell(env);
  let kept: Buffer[] = [];
  let size = 0;
  const keep = (b: Buffer) => {
    kept.push(b);
    size += b.length;
    if (size > 2 * max) {
      const all = Buffer.concat(kept);
      kept = [all.subarray(all.length - max)];
      size = max;
    }
  };
  const output = () => {
    const all = Buffer.concat(kept);
    const tail = all.length > max ? all.subarray(all.length - max) : all;
    // (a cut in the middle of a UTF-8 character decodes to U+FFFD: the first line is the cut one anyway)
    return tail.toString('utf8');
  };
  return new Promise<VariantCheck>((resolve) => {
    if (o.signal?.aborted) return resolve({ exitCode: null, output: 'cancelled before the check started', ms: 0 });
    const groups = process.platform !== 'win32';
    const child = groups
      ? spawn(process.execPath, ['-e', WATCHDOG, sh.program, ...sh.args(o.command)], {
          cwd: o.cwd,
          env: {
            ...env,
            ELECTRON_RUN_AS_NODE: '1',
            PI_TREE_WATCHDOG_ERAN: env.ELECTRON_RUN_AS_NODE === '1' ? '1' : '0',
          },
          // (stdin: the watchdog's line to pi-tree; it ends when pi-tree's process does)
          stdio: ['pipe', 'pipe', 'pipe'],
          detached: true,
        })
      : spawn(sh.program, sh.args(o.command), {
          cwd: o.cwd,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
          windowsHide: true,
        });
    child.stdin?.on('error', () => {}); // (a watchdog gone first: nothing to tell it)
    let why: string | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (reason: string) => {
      if (why || child.exitCode !== null || child.signalCode !== null) return;
      why = reason;
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
    };
    const limit = o.timeoutMs ?? CHECK_TIMEOUT_MS;
    const timer = setTimeout(
      () =>
        stop(`the check ran past ${limit >= 1000 ? `${Math.round(limit / 1000)} s` : `${limit} ms`} and was stopped`),
      limit,
    );
    const onAbort = () => stop('the check was cancelled');
    o.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let ended = false;
    const end = (error?: string) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      o.signal?.removeEventListener('abort', onAbort);
      let text = output();
      if (error) text += `${text && !text.endsWith('\n') ? '\n' : ''}${error}\n`;
      if (why) text += `${text && !text.endsWith('\n') ? '\n' : ''}pi-tree: ${why}\n`;
      resolve({
        exitCode: exit?.code ?? null,
        ...(exit?.signal ? { signal: exit.signal } : {}),
        output: text,
        ms: Math.round(performance.now() - t0),
      });
    };
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      child.stdin?.destroy();
      // The shell is done; a background process it left behind (holding the output open) goes with it.
      signalGroup(child.pid, 'SIGTERM');
      clearTimeout(killTimer);
      killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
    });
    child.once('error', (e) => end(`the check could not start: ${e.message}`));
    child.once('close', () => end());
  });
}

/** Signals the process group led by `pid` (its own group: detached), or the process alone where groups are not a thing. */
function signalGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, sig);
  } catch {
    // already gone
  }
}
