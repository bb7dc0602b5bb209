// pi without a terminal, for summaries and compactions written by pi itself (the user's models, keys,
// prompts and settings) when no pi runs the session: `pi --mode rpc --session COPY -e BRIDGE`, started
// with an argument array (no shell), on a private COPY of the session. pi writes startup entries into
// any session it opens (a thinking-level change, for one), so it never opens the user's file here; the
// result is taken from pi through the bridge and written by pi-tree, exactly as pi writes it.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { headlessPrefix } from '../session/leftovers.js';
import { Session } from '../session/session.js';
import { BridgeClient } from './client.js';
import { readRecords } from './discovery.js';
import { LineSplitter } from './framing.js';
import { ensurePrivateDir } from '../platform/privateDir.js';
import type { PiProgram } from '../platform/piProgram.js';

export interface HeadlessOptions {
  /** The resolved pi program (findPi). */
  pi: PiProgram;
  /** Absolute path of the bundled bridge (dist/pi-bridge.js). */
  bridgeFile: string;
  /** Environment for pi (default process.env): PI_CODING_AGENT_DIR etc. select the user's configuration. */
  env?: NodeJS.ProcessEnv;
  /** How long pi may take to start and open its bridge (default 60 s). */
  startTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface HeadlessPi {
  client: BridgeClient;
  pid: number;
  /** The private copy pi runs on. */
  copy: string;
  /** pi-tree's leaf of the user's file when it was copied. */
  leafId: string | null;
}

export class HeadlessPiError extends Error {
  override name = 'HeadlessPiError';
}

/** Starts pi on a private copy of `sessionFile`, runs `fn` with a bridge client, stops pi, removes the copy. */
export async function withHeadlessPi<T>(
  sessionFile: string,
  opts: HeadlessOptions,
  fn: (pi: HeadlessPi) => Promise<T>,
): Promise<T> {
  const session = await Session.open(sessionFile);
  if (session.legacy)
    throw new HeadlessPiError(
      'this session is in an older pi format; change it once in pi-tree (which upgrades it) before asking pi for a summary',
    );
  const cwd = session.header.cwd;
  if (!cwd || !existsSync(cwd))
    throw new HeadlessPiError(
      `the session's folder ${cwd || '(none)'} no longer exists; pi cannot open the session without it`,
    );
  // (its name carries this process's pid: a folder left by a kill -9 is collected once that pid is gone, leftovers.ts)
  const work = mkdtempSync(join(tmpdir(), headlessPrefix()));
  let child: ChildProcess | undefined;
  let client: BridgeClient | undefined;
  try {
    const bridges = join(work, 'b');
    ensurePrivateDir(bridges);
    const copy = join(work, basename(sessionFile));
    copyFileSync(sessionFile, copy);
    const env: NodeJS.ProcessEnv = {
      ...(opts.env ?? process.env),
      PI_TREE_BRIDGE_DIR: bridges,
      PI_SKIP_VERSION_CHECK: '1',
    };
    const args = [...opts.pi.args, '--mode', 'rpc', '--session', copy, '-e', opts.bridgeFile];
    const proc = spawn(opts.pi.program, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    child = proc;
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-4000)));
    // pi asks its RPC client when an extension wants a dialog (trust prompts, confirmations): nobody is
    // there to answer, so every dialog is cancelled rather than left hanging.
    const lines = new LineSplitter(
      16 * 1024 * 1024,
      (line) => {
        let r: { type?: string; id?: string; method?: string };
        try {
          r = JSON.parse(line);
        } catch {
          return;
        }
        if (
          r.type === 'extension_ui_request' &&
          typeof r.id === 'string' &&
          ['select', 'confirm', 'input', 'editor'].includes(r.method ?? '')
        ) {
          proc.stdin!.write(`${JSON.stringify({ type: 'extension_ui_response', id: r.id, cancelled: true })}\n`);
        }
      },
      () => {},
    );
    proc.stdout!.on('data', (d: Buffer) => lines.push(d));
    proc.stdin!.on('error', () => {});
    const exited = new Promise<string>((resolve) => {
      proc.on('error', (e) => resolve(`pi could not be started (${opts.pi.program}): ${e.message}`));
      proc.on('exit', (code, sig) =>
        resolve(
          `pi exited (${sig ?? code}) before it was ready: ${stderr.trim().split('\n').slice(-3).join(' ') || 'no message'}`,
        ),
      );
    });
    const record = await waitForRecord(bridges, proc, exited, opts);
    client = await BridgeClient.connect(record);
    return await fn({ client, pid: record.pid, copy, leafId: session.leafId });
  } finally {
    client?.close();
    if (child) await stop(child);
    rmSync(work, { recursive: true, force: true });
  }
}

async function waitForRecord(dir: string, proc: ChildProcess, exited: Promise<string>, opts: HeadlessOptions) {
  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  let failure: string | undefined;
  void exited.then((m) => (failure = m));
  for (;;) {
    const found = readRecords({ onlyDirs: [dir] }).find((f) => f.record.pid === proc.pid);
    if (found) return found.record;
    if (failure) throw new HeadlessPiError(failure);
    if (opts.signal?.aborted) throw new HeadlessPiError('cancelled');
    if (Date.now() > deadline)
      throw new HeadlessPiError(
        `pi did not open the pi-tree bridge within ${Math.round((opts.startTimeoutMs ?? 60_000) / 1000)} s`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Orderly shutdown (stdin closed, as pi's RPC docs ask), SIGKILL after 10 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise<void>((r) => child.once('exit', () => r()));
  child.stdin?.end();
  const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await done;
  clearTimeout(t);
}
