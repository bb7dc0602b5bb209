// Where a snapshot's tree comes from (Capture asks; one per session). On Linux, the folder watcher's list
// of what changed since the last snapshot: in-process from the previous tree when the list holds only
// files (listedSnapshot.ts), through git's index on the listed paths when a folder was made or moved in;
// otherwise, or when the watcher cannot vouch for its list, git's walk of the whole folder. While pi is
// idle the list is checked against a walk; a change the watcher missed drops it for the session.
import { underPrefix } from '../store/storeScope.js';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../../piClient/discovery.js';
import { FolderWatch, type FolderWatchOptions } from './folderWatch.js';
import { snapshotFromList, type ListedSnapshot } from './listedSnapshot.js';
import type { CheckpointStore, SnapshotResult } from '../store/store.js';
import { TreeCache } from '../store/treeEdit.js';

/** A watcher's list longer than this goes to a whole walk instead (git's command line, and no gain). */
const MAX_LISTED = 2000;
const MAX_LISTED_CHARS = 64 * 1024;

export interface SnapshotSourceOptions {
  sessionId: string;
  watch?: Pick<FolderWatchOptions, 'maxEvents' | 'maxDirs'> | false;
  timeoutMs: number;
  log: (message: string) => void;
  /** One message in pi (the watcher missed a change). */
  notify: (message: string) => void;
  /**
   * false: a list of files goes to git (diff-files and ls-files -o on the listed paths, update-index,
   * write-tree) instead of the in-process writer (the bench measures one against the other).
   */
  inProcess?: boolean;
}

export class SnapshotSource {
  private watch: FolderWatch | undefined;
  private arming: Promise<void> | undefined;
  private closed = false;
  /** Snapshots that took the watcher's word since it was last checked against a whole walk. */
  private listedSinceCheck = 0;
  /** The tree the next snapshot from the list starts from: the folder as of the last list taken. */
  private base: string | undefined;
  /** Paths taken in-process since git's index last looked: it lags there (index-based snapshots look at them too). */
  private readonly unsynced = new Set<string>();
  private trees: TreeCache | undefined;
  /** How long arming the watcher took and how many folders it watches (the bench, the log). */
  watchArm: { ms: number; dirs: number } | undefined;

  constructor(private readonly o: SnapshotSourceOptions) {}

  /** Arms the watcher in the background (after the baseline has made the session's index). */
  arm(store: CheckpointStore): void {
    if (!this.closed) this.arming = this.armWatch(store);
  }

  /** Resolves once the watcher is armed (true) or given up (false). */
  async armed(): Promise<boolean> {
    await this.arming;
    return this.watching;
  }

  get watching(): boolean {
    return !!this.watch && !this.watch.broken;
  }

  /**
   * The folder now: from the watcher's list in-process when it can, else through git's index on the
   * listed paths (and those the index lags on), else git's whole walk.
   */
  async shoot(
    store: CheckpointStore,
    message: string,
  ): Promise<{ snap: SnapshotResult; fast?: ListedSnapshot; listed: boolean }> {
    const listed = await this.listed();
    const limit = <T>(p: Promise<T>) => withTimeout(p, this.o.timeoutMs);
    const from = this.base;
    if (listed && from !== undefined && this.o.inProcess !== false) {
      const fast = await limit(snapshotFromList(store, this.treeCache(store), from, listed, message)).catch(
        (e: unknown) => {
          this.o.log(
            `checkpoints: the in-process snapshot failed (${e instanceof Error ? e.message : String(e)}); git takes it`,
          );
          return undefined;
        },
      );
      if (fast) {
        for (const p of listed) this.unsynced.add(p);
        return { snap: fast, fast, listed: true };
      }
    }
    const only = listed && [...new Set([...listed, ...this.unsynced])];
    const useOnly = only && !tooLong(only) ? only : undefined;
    const snap = await limit(store.snapshot(this.o.sessionId, message, useOnly));
    this.unsynced.clear();
    return { snap, listed: !!useOnly };
  }

  /** A snapshot of `tree` was taken: the next list starts from it. */
  settle(tree: string): void {
    this.base = tree;
  }

  /** The folder was written outside the snapshots (a restore): the next snapshot walks it all. */
  forget(): void {
    this.base = undefined;
    this.watch?.forget();
  }

  /** Whether lists were taken since the last check (Capture then queues `check`). */
  checkDue(): boolean {
    if (!this.watch || !this.listedSinceCheck) return false;
    this.listedSinceCheck = 0;
    return true;
  }

  /** The watcher's list against git's walk of the whole folder; a miss drops the watcher (never throws). */
  async check(store: CheckpointStore): Promise<void> {
    const w = this.watch;
    if (!w) return;
    try {
      const paths = await w.take();
      const fast =
        paths && !tooLong(paths) && this.base !== undefined
          ? await snapshotFromList(store, this.treeCache(store), this.base, paths).catch(() => undefined)
          : undefined;
      const walked = await store.treeNow(this.o.sessionId);
      this.unsynced.clear();
      this.base = walked;
      if (!fast || fast.tree === walked) return; // (no list to compare, a folder in it, say: the walk is the base)
      // Changes heard while the walk ran are the user's, not misses.
      const since = (await w.peek()) ?? [];
      const covered = (p: string) => since.some((s) => p === s || p.startsWith(`${s}/`));
      const missed = (await store.diffTrees(fast.tree, walked)).map((c) => c.path).filter((p) => !covered(p));
      if (!missed.length) return;
      this.drop(`it missed ${missed.length} change(s)`);
      const names = missed.slice(0, 3).join(', ') + (missed.length > 3 ? ', …' : '');
      const message = `pi-tree: the folder watcher missed ${missed.length} change${missed.length === 1 ? '' : 's'} (${names}); checkpoints walk the whole folder from now on, and the last turn's snapshot may lack ${missed.length === 1 ? 'it' : 'them'}`;
      this.o.log(message);
      try {
        this.o.notify(message);
      } catch {
        // pi's UI is gone
      }
    } catch (e) {
      // the check's failure is the watcher's: walks from now on (a snapshot's own failure turns capture off)
      this.drop(`the idle check failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Capture turned off: the watches go. */
  stop(): void {
    this.closed = true;
    this.watch?.close();
    this.watch = undefined;
  }

  /** The session ended: the watches go once arming (if under way) is over. */
  async close(): Promise<void> {
    this.closed = true;
    await this.arming;
    this.stop();
  }

  private async armWatch(store: CheckpointStore): Promise<void> {
    const t0 = performance.now();
    try {
      removeDeadBarriers(store.where.root);
      const ignored = new Set(await store.ignoredFolders(this.o.sessionId));
      if (this.closed) return;
      const w = new FolderWatch({
        cwd: store.cwd,
        barrierDir: join(store.where.root, `watch-${process.pid}-${Date.now().toString(36)}`),
        ignoredAmong: (rels) => store.ignored(rels),
        ...(this.o.watch || {}),
      });
      this.watch = w;
      // (the agent's own folders are never watched: nothing under them is captured)
      const armed = await w.arm((rel) => ignored.has(rel) || underPrefix(rel, store.privatePrefixes));
      if (this.closed) return this.stop(); // the session ended (or capture turned off) meanwhile
      if (!armed) {
        this.watch = undefined;
        this.o.log(`checkpoints: no folder watcher (${w.broken}); every snapshot walks the folder`);
        return;
      }
      this.watchArm = { ms: performance.now() - t0, dirs: w.watchedDirs };
      this.o.log(`checkpoints: watching ${w.watchedDirs} folders (${Math.round(this.watchArm.ms)} ms)`);
    } catch (e) {
      this.drop(e instanceof Error ? e.message : String(e));
    }
  }

  /** What changed since the previous snapshot, by the watcher's list; undefined: git walks the whole folder. */
  private async listed(): Promise<string[] | undefined> {
    const w = this.watch;
    if (!w) return undefined;
    const paths = await w.take();
    if (w.broken) {
      this.drop(w.broken);
      return undefined;
    }
    if (!paths || tooLong(paths)) return undefined;
    this.listedSinceCheck++;
    return paths;
  }

  private drop(why: string): void {
    this.watch?.close();
    this.watch = undefined;
    this.o.log(`checkpoints: no folder watcher from now on (${why}); every snapshot walks the folder`);
  }

  private treeCache(store: CheckpointStore): TreeCache {
    this.trees ??= new TreeCache((input) => store.run(['cat-file', '--batch'], { input }));
    return this.trees;
  }
}

/** Barrier folders (`watch-<pid>-…`) of pi processes that are gone (killed before they could remove theirs). */
function removeDeadBarriers(root: string): void {
  for (const name of readdirSync(root)) {
    const pid = /^watch-(\d+)-/.exec(name)?.[1];
    if (pid && Number(pid) !== process.pid && !pidAlive(Number(pid)))
      rmSync(join(root, name), { recursive: true, force: true });
  }
}

function tooLong(paths: readonly string[]): boolean {
  return paths.length > MAX_LISTED || paths.reduce((n, p) => n + p.length + 1, 0) > MAX_LISTED_CHARS;
}

export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(t)),
    new Promise<T>((_, reject) => {
      t = setTimeout(
        () =>
          reject(new Error(`a snapshot took longer than ${Math.round(ms / 1000)} s (a very large working folder?)`)),
        ms,
      );
    }),
  ]);
}
