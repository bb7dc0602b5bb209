// Finding running bridges: discovery records in private directories, checked before they are believed
// (owner, modes, shape, an endpoint pi-tree itself would have chosen), then probed. A record is live (the
// socket answers with its token and pid), stale (its pid is dead, or nobody listens: ECONNREFUSED or
// ENOENT) or unresponsive (the pid lives and its socket is there but does not answer: pi stopped with
// Ctrl+Z, or blocked; a full accept queue, EAGAIN, is that too). Only stale records are removed, with
// their socket, and nothing else: no path read from a record is ever deleted. An unresponsive pi is never
// taken for "no pi": findBridge throws PiUnresponsiveError, so nobody writes the file behind it.
import { lstatSync, readdirSync, readFileSync, realpathSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BridgeClient, BridgeError } from './client.js';
import { isPrivateDir } from '../platform/privateDir.js';
import { allowedEndpoints, recordDirs, STEM_RE } from './paths.js';
import type { BridgeRecord, StateData } from './protocol.js';
import { parseRecord } from './protocolChecks.js';

export interface DiscoveryOptions {
  env?: NodeJS.ProcessEnv;
  /** More record directories to look in (besides the environment's and the default one). */
  dirs?: string[];
  /** Look only in these directories (a private pi pi-tree started itself). */
  onlyDirs?: string[];
  /** Remove the records of dead pis (default true). */
  clean?: boolean;
  /** How long a live pi may take to answer the probe (default 1000 ms). */
  probeTimeoutMs?: number;
}

export interface FoundRecord {
  record: BridgeRecord;
  recordFile: string;
  dir: string;
  stem: string;
}

export interface LiveBridgeInfo extends FoundRecord {
  /** pi's state as the probe saw it. */
  state: StateData;
}

/** A pi that runs a session but does not answer (stopped, blocked): it goes on from its own leaf later. */
export interface UnresponsiveBridgeInfo extends FoundRecord {
  why: string;
}

export type Liveness =
  { status: 'live'; state: StateData } | { status: 'stale'; why: string } | { status: 'unresponsive'; why: string };

/** The pi running a session does not answer: nothing may be done to its file behind its back. */
export class PiUnresponsiveError extends Error {
  override name = 'PiUnresponsiveError';
  readonly code = 'unresponsive';
  constructor(readonly info: UnresponsiveBridgeInfo) {
    super(`pi ${info.record.pid} runs this session but does not answer (${info.why}); nothing was done`);
  }

  get pid(): number {
    return this.info.record.pid;
  }
}

const MAX_RECORD_BYTES = 64 * 1024;

/** Records in the directories, checked for shape and place; not yet for liveness. */
export function readRecords(opts: DiscoveryOptions = {}): FoundRecord[] {
  const env = opts.env ?? process.env;
  const out: FoundRecord[] = [];
  for (const dir of opts.onlyDirs ?? recordDirs(env, opts.dirs)) {
    if (!isPrivateDir(dir)) continue; // a directory others can write to could hold planted records
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const stem = name.slice(0, -5);
      if (!STEM_RE.test(stem)) continue;
      const recordFile = join(dir, name);
      const record = readRecord(recordFile);
      if (!record) continue;
      if (record.pid !== Number(stem.split('-')[0])) continue;
      if (!allowedEndpoints(dir, stem, env).includes(record.endpoint)) continue;
      out.push({ record, recordFile, dir, stem });
    }
  }
  return out;
}

function readRecord(file: string): BridgeRecord | undefined {
  try {
    const st = lstatSync(file);
    if (!st.isFile() || st.size > MAX_RECORD_BYTES) return undefined;
    if (process.platform !== 'win32') {
      if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return undefined;
      if ((st.mode & 0o077) !== 0) return undefined;
    }
    return parseRecord(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The state letter of `pid` in /proc/<pid>/stat (R, S, T stopped, Z zombie …); Linux only, else undefined. */
function procState(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2);
  } catch {
    return undefined;
  }
}

/** False when no process of ours has this pid (ESRCH, or EPERM: the pid now belongs to another user), or it has exited and waits to be reaped. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const state = procState(pid);
  return state !== 'Z' && state !== 'X';
}

/** True when the kernel shows `pid` stopped (Ctrl+Z, SIGSTOP) or stopped by a tracer; Linux only. */
export function pidStopped(pid: number): boolean {
  const state = procState(pid);
  return state === 'T' || state === 't';
}

/** Connect errors that mean nobody listens at the endpoint (anything else: somebody may, and is not answering). */
const NOBODY_LISTENS = new Set(['ECONNREFUSED', 'ENOENT']);

/**
 * Is the record's pi alive and answering with this record's token and pid? A stopped pi is not even
 * connected to (each connection would wait in its accept queue until it resumes), and the probe's
 * connection is always closed, also when it times out.
 */
export async function checkLiveness(found: FoundRecord, probeTimeoutMs = 1000, again = true): Promise<Liveness> {
  const { record } = found;
  if (!pidAlive(record.pid)) return { status: 'stale', why: `pid ${record.pid} is gone` };
  if (pidStopped(record.pid)) return { status: 'unresponsive', why: 'it is stopped: Ctrl+Z or SIGSTOP' };
  let client: BridgeClient;
  try {
    client = await BridgeClient.connect(record, { timeoutMs: probeTimeoutMs });
  } catch (e) {
    // Refused or no socket file: nobody listens there (a pid reused, or a pi frozen before listening).
    // A full accept queue (EAGAIN), a timeout or any other error: a pi is there and does not take it.
    if (e instanceof BridgeError && e.sysCode !== undefined && NOBODY_LISTENS.has(e.sysCode))
      return { status: 'stale', why: e.message };
    const why =
      e instanceof BridgeError && e.sysCode === 'EAGAIN'
        ? 'its socket takes no more connections'
        : e instanceof BridgeError && e.code === 'timeout'
          ? `no connection within ${probeTimeoutMs} ms`
          : (e as Error).message;
    return { status: 'unresponsive', why };
  }
  try {
    const state = await client.state({ timeoutMs: probeTimeoutMs });
    if (state.pid !== record.pid)
      return { status: 'unresponsive', why: `the socket answers for pid ${state.pid}, not ${record.pid}` };
    return { status: 'live', state };
  } catch (e) {
    // Hung up without answering: pi exiting (the next connect is refused) or full (it is not): one more look.
    if (again && e instanceof BridgeError && e.code === 'peer-gone') {
      client.close();
      return checkLiveness(found, probeTimeoutMs, false);
    }
    const code = e instanceof BridgeError ? e.code : undefined;
    const why =
      code === 'timeout'
        ? `no answer within ${probeTimeoutMs} ms`
        : code === 'peer-gone'
          ? 'it hung up without answering'
          : (e as Error).message;
    return { status: 'unresponsive', why };
  } finally {
    client.close();
  }
}

/** Removes a stale record and the socket pi-tree would have placed for it (never a path from the record). */
export function removeStale(found: FoundRecord, env: NodeJS.ProcessEnv = process.env): void {
  try {
    unlinkSync(found.recordFile);
  } catch {
    // gone already
  }
  if (process.platform === 'win32') return;
  for (const sock of allowedEndpoints(found.dir, found.stem, env)) {
    try {
      if (lstatSync(sock).isSocket()) unlinkSync(sock);
    } catch {
      // not there
    }
  }
}

/** Leftover temp files of record writers that died mid-write. */
function cleanTemps(dirs: string[]): void {
  for (const dir of dirs) {
    if (!isPrivateDir(dir)) continue;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) {
      const m = /^\.([1-9][0-9]{0,9})-[0-9a-f]{8}\.[0-9a-f]{8}\.tmp$/.exec(n);
      if (m && !pidAlive(Number(m[1]))) {
        try {
          unlinkSync(join(dir, n));
        } catch {
          // gone
        }
      }
    }
  }
}

/** Every bridge whose pi is alive: live ones and unresponsive ones (newest first); stale records are removed on the way (unless clean is false). */
export async function scanBridges(
  opts: DiscoveryOptions = {},
): Promise<{ live: LiveBridgeInfo[]; unresponsive: UnresponsiveBridgeInfo[] }> {
  const env = opts.env ?? process.env;
  const found = readRecords(opts);
  const checked = await Promise.all(found.map(async (f) => ({ f, l: await checkLiveness(f, opts.probeTimeoutMs) })));
  const live: LiveBridgeInfo[] = [];
  const unresponsive: UnresponsiveBridgeInfo[] = [];
  for (const { f, l } of checked) {
    if (l.status === 'live') live.push({ ...f, state: l.state });
    else if (l.status === 'unresponsive') unresponsive.push({ ...f, why: l.why });
    else if (opts.clean !== false) removeStale(f, env);
  }
  if (opts.clean !== false) cleanTemps(opts.onlyDirs ?? recordDirs(env, opts.dirs));
  const newest = (a: FoundRecord, b: FoundRecord) => b.record.startedAt - a.record.startedAt;
  return { live: live.sort(newest), unresponsive: unresponsive.sort(newest) };
}

/** A path in canonical form for comparison (symlinks resolved when the file exists). */
export function canonicalPath(p: string): string {
  let r = resolve(p);
  try {
    r = realpathSync.native(r);
  } catch {
    // a session pi has not written yet compares as named
  }
  return process.platform === 'win32' || process.platform === 'darwin' ? r.toLowerCase() : r;
}

/**
 * The live bridge of the pi running `sessionFile` (the newest, if several pis run it), matched by
 * realpath; undefined when no pi runs it. Throws PiUnresponsiveError when the newest pi that runs it
 * does not answer: that is a pi, which would go on from its own leaf, not "no pi".
 */
export async function findBridge(
  sessionFile: string,
  opts: DiscoveryOptions = {},
): Promise<LiveBridgeInfo | undefined> {
  const want = canonicalPath(sessionFile);
  const env = opts.env ?? process.env;
  const candidates = readRecords(opts).filter((f) => canonicalPath(f.record.sessionFile) === want);
  for (const f of candidates.sort((a, b) => b.record.startedAt - a.record.startedAt)) {
    const l = await checkLiveness(f, opts.probeTimeoutMs);
    if (l.status === 'live') return { ...f, state: l.state };
    if (l.status === 'unresponsive') throw new PiUnresponsiveError({ ...f, why: l.why });
    if (opts.clean !== false) removeStale(f, env);
  }
  return undefined;
}
