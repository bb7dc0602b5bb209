// What a pi-tree process killed mid-write leaves behind, collected on the next start: the hidden temp
// copy of a fork, clone or rewrite in a session folder (`.<name>.jsonl.<8 hex>.tmp`, writeFileAtomic in
// storage.ts), and a headless pi's private folder in the temp dir (`pi-tree-pi-<pid>-XXXXXX`,
// piClient/headless.ts; `pi-tree-pi-XXXXXX` before the pid was in the name), which holds a full copy of the
// session. Only those exact names are touched, and only a regular file (temp copy) or a real folder
// (headless), never a symlink (lstat: nothing is followed), owned by this user and untouched for
// LEFTOVER_AGE_MS; a headless folder also only once the pi-tree process named in it is gone.
import { lstat, readdir, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pidAlive } from '../piClient/discovery.js';

/** How long a leftover must have been untouched (a write under way touches its file on every batch). */
export const LEFTOVER_AGE_MS = 10 * 60_000;

/** writeFileAtomic's temp name for a session file. */
const SESSION_TEMP = /^\.[^/\\]+\.jsonl\.[0-9a-f]{8}\.tmp$/;
/** withHeadlessPi's folder (mkdtemp's six characters last). */
const HEADLESS_DIR = /^pi-tree-pi-(?:([1-9][0-9]{0,9})-)?[A-Za-z0-9]{6}$/;

export interface CollectOptions {
  /** The time to measure ages from (default now). */
  now?: number;
  ageMs?: number;
}

/** The prefix withHeadlessPi gives its folder: the pid says whose it is. */
export function headlessPrefix(pid = process.pid): string {
  return `pi-tree-pi-${pid}-`;
}

type Kind = 'file' | 'dir';

/** `path`'s stat when it is a leftover of `kind` (not a link), this user's, and old enough. */
async function stale(path: string, kind: Kind, opts: CollectOptions): Promise<boolean> {
  let st;
  try {
    st = await lstat(path);
  } catch {
    return false;
  }
  if (kind === 'file' ? !st.isFile() : !st.isDirectory()) return false;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return false;
  return st.mtimeMs <= (opts.now ?? Date.now()) - (opts.ageMs ?? LEFTOVER_AGE_MS);
}

async function names(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

/** Removes the stale fork/clone/rewrite temp copies in session folder `dir`; returns what it removed. */
export async function collectSessionTemps(dir: string, opts: CollectOptions = {}): Promise<string[]> {
  const removed: string[] = [];
  for (const n of await names(dir)) {
    if (!SESSION_TEMP.test(n)) continue;
    const p = join(dir, n);
    if (!(await stale(p, 'file', opts))) continue;
    try {
      await unlink(p);
      removed.push(p);
    } catch {
      // gone, or not ours to remove
    }
  }
  return removed;
}

/** Removes the stale headless pi folders in `tmp` (default the temp dir); returns what it removed. */
export async function collectHeadlessDirs(tmp = tmpdir(), opts: CollectOptions = {}): Promise<string[]> {
  const removed: string[] = [];
  for (const n of await names(tmp)) {
    const m = HEADLESS_DIR.exec(n);
    if (!m || (m[1] && pidAlive(Number(m[1])))) continue;
    const p = join(tmp, n);
    if (!(await stale(p, 'dir', opts))) continue;
    try {
      // (rm does not follow links inside the folder: it removes the links)
      await rm(p, { recursive: true, force: true });
      removed.push(p);
    } catch {
      // gone, or not ours to remove
    }
  }
  return removed;
}

/** Both kinds: the temp copies in each of `folders`, the headless folders in `tmp`. */
export async function collectLeftovers(
  folders: readonly string[],
  tmp = tmpdir(),
  opts: CollectOptions = {},
): Promise<string[]> {
  const removed = await collectHeadlessDirs(tmp, opts);
  for (const dir of folders) removed.push(...(await collectSessionTemps(dir, opts)));
  return removed;
}
