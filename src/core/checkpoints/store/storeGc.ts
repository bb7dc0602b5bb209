// Collecting the store's garbage without breaking a capture in flight. Another pi of the project may be
// mid-snapshot when checkpoints are deleted or pruned: its new objects are loose and no ref names them
// yet, and its index names blobs of files it has not hashed again (git trusts the stat cache). A plain
// `git gc --prune=now` deletes both, and that capture, and every later session seeded from its index,
// fails on missing objects. So:
// - a snapshot writes a marker file while it runs (`inFlight`), and checks for a running collect first;
// - a collect writes its own marker, waits (bounded) for the snapshots that started before it (they may
//   have found an old unreachable object already there and not freshened it: git's bulk check-in and
//   write-tree's cached trees do not), so that every snapshot still running saw the marker and writes
//   its objects the careful way (each one freshened: store.ts leaves the bulk check-in out then);
// - every index's tree is kept by a temporary ref while gc runs (write-tree on a copy, never the live
//   index), so the blobs an index names stay;
// - only objects older than a grace (a minute) and than the oldest live snapshot's start, less a margin,
//   are pruned.
import { lines, readId } from '../git/gitOutput.js';
import { copyFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../../piClient/discovery.js';
import { ensurePrivateDir } from '../../platform/privateDir.js';

/** Objects younger than this are never pruned (a capture of an older pi-tree writes no markers). */
export const PRUNE_GRACE_MS = 60_000;
/** Before the oldest live snapshot's start, this much more is kept. */
const MARKER_MARGIN_MS = 60_000;
/** A marker older than this is a reused pid's, not a snapshot's (a snapshot gives up after 20 s by default). */
const MARKER_MAX_AGE_MS = 30 * 60_000;
/** How long a collect waits for the snapshots that started before it (then it prunes nothing this time). */
const WAIT_MS = 30_000;

let seq = 0;

const markerDir = (root: string) => join(root, 'inflight');

function writeMarker(root: string, kind: 'snap' | 'gc'): string {
  const dir = markerDir(root);
  ensurePrivateDir(dir);
  const file = join(dir, `${kind}-${process.pid}-${++seq}-${Math.random().toString(36).slice(2, 8)}`);
  writeFileSync(file, String(Date.now()), { mode: 0o600, flag: 'wx' });
  return file;
}

interface Marker {
  kind: 'snap' | 'gc';
  at: number;
  file: string;
}

/** The markers of live processes (those of dead ones, or too old, are removed on the way). */
function liveMarkers(root: string): Marker[] {
  const dir = markerDir(root);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: Marker[] = [];
  for (const name of names) {
    const m = /^(snap|gc)-(\d+)-/.exec(name);
    if (!m) continue;
    const file = join(dir, name);
    let at: number;
    try {
      at = Number(readFileSync(file, 'utf8')) || statSync(file).mtimeMs;
    } catch {
      continue; // gone meanwhile
    }
    const pid = Number(m[2]);
    if ((pid !== process.pid && !pidAlive(pid)) || Date.now() - at > MARKER_MAX_AGE_MS) {
      rmSync(file, { force: true });
      continue;
    }
    out.push({ kind: m[1] as Marker['kind'], at, file });
  }
  return out;
}

/** Runs `op` with a snapshot marker in the store (collects keep what it writes). */
export async function inFlight<T>(root: string, op: () => Promise<T>): Promise<T> {
  const file = writeMarker(root, 'snap');
  try {
    return await op();
  } finally {
    rmSync(file, { force: true });
  }
}

/** Whether a collect is running in the store (a snapshot then freshens every object it finds there). */
export function collectRunning(root: string): boolean {
  return liveMarkers(root).some((m) => m.kind === 'gc');
}

export interface CollectDeps {
  root: string;
  indexDir: string;
  /** git in the store; with `index`, through that index. */
  run(args: readonly string[], o?: { index?: string; input?: string }): Promise<Buffer>;
  graceMs?: number;
  waitMs?: number;
  log?: (m: string) => void;
}

/** Drops the unreachable objects no snapshot in flight and no index can name. */
export async function collectGarbage(d: CollectDeps): Promise<{ pruned: boolean }> {
  const mine = writeMarker(d.root, 'gc');
  const started = Date.now();
  const pins: string[] = [];
  try {
    await dropStalePins(d);
    // The snapshots that started before this collect: waited for (they did not see its marker).
    const deadline = Date.now() + (d.waitMs ?? WAIT_MS);
    let early = liveMarkers(d.root).filter((m) => m.kind === 'snap' && m.at <= started);
    while (early.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      early = liveMarkers(d.root).filter((m) => m.kind === 'snap' && m.at <= started);
    }
    // Every index's tree, kept while gc runs (a copy each: the live index is never written here).
    for (const name of listOrNone(d.indexDir)) {
      if (name.includes('.')) continue; // locks, scratch copies
      const copy = join(d.indexDir, `.gc-${process.pid}-${++seq}`);
      try {
        copyFileSync(join(d.indexDir, name), copy);
        const tree = readId(await d.run(['write-tree', '--missing-ok'], { index: copy }));
        const ref = `refs/pi-tree-gc/${process.pid}-${pins.length}`;
        await d.run(['update-ref', ref, tree]);
        pins.push(ref);
      } catch (e) {
        d.log?.(
          `checkpoints: the index ${name} could not be kept through gc: ${e instanceof Error ? e.message : String(e)}`,
        );
      } finally {
        rmSync(copy, { force: true });
      }
    }
    await d.run(['reflog', 'expire', '--expire=now', '--all']).catch(() => undefined);
    if (early.length) {
      d.log?.('checkpoints: a snapshot of another pi is still running; nothing is pruned this time');
      return { pruned: false };
    }
    const live = liveMarkers(d.root).filter((m) => m.kind === 'snap');
    let expiry = Date.now() - (d.graceMs ?? PRUNE_GRACE_MS);
    for (const m of live) expiry = Math.min(expiry, m.at - MARKER_MARGIN_MS);
    try {
      await d.run(['gc', '--quiet', `--prune=${new Date(expiry).toISOString().replace(/\.\d+Z$/, 'Z')}`]);
    } catch (e) {
      // Another collect's gc runs in the store now (another pi's, the CLI's): it prunes, this one does not.
      if (!/gc is already running/.test(`${e instanceof Error ? e.message : String(e)}`)) throw e;
      d.log?.('checkpoints: another collect of the store is running; it prunes this time');
      return { pruned: false };
    }
    return { pruned: true };
  } finally {
    if (pins.length)
      await d
        .run(['update-ref', '--stdin'], { input: pins.map((r) => `delete ${r}\n`).join('') })
        .catch(() => undefined);
    rmSync(mine, { force: true });
  }
}

function listOrNone(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Temporary refs a killed collect left (its pid gone): they would keep their trees for good. */
async function dropStalePins(d: CollectDeps): Promise<void> {
  const refs = lines(await d.run(['for-each-ref', '--format=%(refname)', 'refs/pi-tree-gc/'])).filter((r) => {
    const pid = Number(/^refs\/pi-tree-gc\/(\d+)-/.exec(r)?.[1]);
    return pid && pid !== process.pid && !pidAlive(pid);
  });
  if (refs.length) await d.run(['update-ref', '--stdin'], { input: refs.map((r) => `delete ${r}\n`).join('') });
}
