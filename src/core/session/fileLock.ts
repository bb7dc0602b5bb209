// pi-tree's advisory write lock: `<real file>.pi-tree.lock`, a small file that names its holder
// ({pid, host, token}). pi itself takes no lock; this only keeps two pi-tree processes from appending
// under the same leaf. What makes it sound:
// - heartbeat: the holder refreshes the lock's mtime every second, so a long write is never "old";
// - a lock is taken over only when its holder is gone (same host: the pid is dead), or its heartbeat
//   stopped long ago (hung, or a reused pid), or, when the holder cannot be checked (another host, an
//   empty record), its mtime is far from now in EITHER direction (a future mtime is not "fresh forever");
// - takeovers are serialized by a guard file, and the lock is judged again under the guard, so two
//   waiters never both remove a lock and both create one;
// - release removes the lock only while it still holds this holder's token;
// - every wait is bounded, and a lock path that cannot be a lock (a directory) or a stale lock that
//   cannot be removed is an error that says so, never a busy loop.
// (proper-lockfile, which pi depends on, has no liveness check and its takeover races the same way.)
import { lstat, open, readFile, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { fileKind } from '../index/byteSource.js';
import { nodeCrypto } from '../platform/lazyNode.js';

export interface LockOptions {
  /** Longest wait for another writer (default 15 s). */
  waitMs?: number;
  /** A live holder on this host whose heartbeat stopped this long ago is taken as hung (default 30 s). */
  hungMs?: number;
  /** A lock whose holder cannot be checked is stale when its mtime is this far from now (default 10 s). */
  staleMs?: number;
  /** How often the holder refreshes the lock (default 1 s). */
  heartbeatMs?: number;
}

export class LockBusyError extends Error {
  override name = 'LockBusyError';
}

interface Owner {
  pid: number;
  host: string;
  token: string;
}

interface LockInfo {
  isFile: boolean;
  kind: string;
  mtimeMs: number;
  owner: Owner | undefined;
}

const HOST = hostname();

async function inspect(path: string): Promise<LockInfo | undefined> {
  let s;
  try {
    s = await lstat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  if (!s.isFile())
    return {
      isFile: false,
      kind: s.isSymbolicLink() ? 'a symbolic link' : fileKind(s),
      mtimeMs: s.mtimeMs,
      owner: undefined,
    };
  let owner: Owner | undefined;
  try {
    const v = JSON.parse(await readFile(path, 'utf8')) as Partial<Owner>;
    if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.token === 'string') owner = v as Owner;
  } catch {
    // empty (its writer died between creating and filling it) or not ours: judged by its mtime
  }
  return { isFile: true, kind: 'a file', mtimeMs: s.mtimeMs, owner };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/** Why the lock may be taken over, or undefined while its holder may still be writing. */
function staleReason(info: LockInfo, opts: Required<LockOptions>, now = Date.now()): string | undefined {
  const age = Math.abs(now - info.mtimeMs);
  const o = info.owner;
  if (o && o.host === HOST) {
    if (o.pid !== process.pid && !pidAlive(o.pid)) return `its holder, process ${o.pid}, is gone`;
    if (age > opts.hungMs) return `its holder, process ${o.pid}, has not refreshed it for ${Math.round(age / 1000)} s`;
    return undefined;
  }
  if (age > opts.staleMs)
    return `it was last refreshed ${Math.round(age / 1000)} s ${now >= info.mtimeMs ? 'ago' : 'in the future'}`;
  return undefined;
}

function holderText(info: LockInfo | undefined): string {
  const o = info?.owner;
  if (!o) return 'another pi-tree process';
  return o.host === HOST ? `pi-tree process ${o.pid}` : `a pi-tree process on ${o.host} (pid ${o.pid})`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function defaults(opts: LockOptions): Required<LockOptions> {
  return {
    waitMs: opts.waitMs ?? 15_000,
    hungMs: opts.hungMs ?? 30_000,
    staleMs: opts.staleMs ?? 10_000,
    heartbeatMs: opts.heartbeatMs ?? 1000,
  };
}

/** Creates `path` exclusively holding `record`; false when it exists. */
async function create(path: string, record: string): Promise<boolean> {
  let fh;
  try {
    fh = await open(path, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    await fh.writeFile(record);
  } finally {
    await fh.close();
  }
  return true;
}

/**
 * Removes the lock at `lock` if it is (still) stale, holding `<lock>.takeover` meanwhile so that only
 * one waiter at a time judges and removes it.
 */
async function takeOver(lock: string, record: string, opts: Required<LockOptions>): Promise<void> {
  const guard = `${lock}.takeover`;
  if (!(await create(guard, record))) {
    // Someone else is taking over. A guard is held for microseconds; one left by a process that died
    // in them is removed once that is certain.
    const g = await inspect(guard);
    if (g?.isFile && staleReason(g, { ...opts, hungMs: opts.staleMs })) await unlink(guard).catch(() => {});
    return;
  }
  try {
    const info = await inspect(lock);
    const reason = info?.isFile ? staleReason(info, opts) : undefined;
    if (!reason) return; // gone, or replaced by a live holder's lock meanwhile
    try {
      await unlink(lock);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      throw new Error(
        `A stale pi-tree lock ${lock} (${reason}) cannot be removed (${code}); remove it by hand to write this session.`,
        { cause: e },
      );
    }
  } finally {
    await unlink(guard).catch(() => {});
  }
}

/** Runs `fn` while holding the lock at `lock`. Throws LockBusyError when it stays held for `waitMs`. */
export async function withFileLock<T>(lock: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const opts = defaults(options);
  const token = nodeCrypto().randomBytes(8).toString('hex');
  const record = `${JSON.stringify({ pid: process.pid, host: HOST, token })}\n`;
  const deadline = Date.now() + opts.waitMs;
  let delay = 5;
  let held = false;
  for (;;) {
    try {
      held = await create(lock, record);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A session in a folder we may not write: the write itself will say so; there is no one to exclude.
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') break;
      throw e;
    }
    if (held) break;
    const info = await inspect(lock);
    if (info && !info.isFile) {
      throw new Error(`${lock} is ${info.kind}, not a pi-tree lock file; remove it to write this session.`);
    }
    if (info && staleReason(info, opts)) await takeOver(lock, record, opts);
    else if (Date.now() >= deadline) {
      throw new LockBusyError(
        `${holderText(info)} is writing this session (lock ${lock}); waited ${Math.round(opts.waitMs / 1000)} s. Try again.`,
      );
    }
    if (Date.now() >= deadline + opts.waitMs)
      throw new LockBusyError(
        `Could not take the lock ${lock} in ${Math.round((2 * opts.waitMs) / 1000)} s. Try again.`,
      );
    await sleep(delay * (0.5 + Math.random()));
    delay = Math.min(delay * 2, 200);
  }
  const beat = held
    ? setInterval(() => {
        void (async () => {
          const info = await inspect(lock).catch(() => undefined);
          if (info?.owner?.token === token) {
            const now = new Date();
            await utimes(lock, now, now).catch(() => {});
          }
        })();
      }, opts.heartbeatMs)
    : undefined;
  beat?.unref();
  try {
    return await fn();
  } finally {
    clearInterval(beat);
    if (held) {
      // Only our own lock: if it was taken over (we were judged hung), the new holder's stays.
      const info = await inspect(lock).catch(() => undefined);
      if (info?.owner?.token === token) await unlink(lock).catch(() => {});
    }
  }
}
