// A watcher of the working folder, so that a snapshot asks git about the paths that changed instead of
// walking the whole folder (git's walk stats every file: ~40 ms at 10k files, ~300 ms at 100k).
// Linux only: one inotify watch per folder (Node's fs.watch on a folder), ignored folders left out.
// It answers only when it can vouch for its list; otherwise the snapshot walks the whole folder:
// - a barrier first: a file made in a private folder watched by the same inotify queue (libuv keeps one
//   per process); once its event arrives, every change made before it has been heard;
// - inotify drops events silently when its queue overflows (libuv does not report it), and a full
//   queue means at least `max_queued_events` events heard: past half of that, the list is not trusted;
// - a folder made, moved or removed stands for everything under it, and its watches are set again;
// - a watch that cannot be set (the user's inotify limit) turns the watcher off for good.
// The capture checks the watcher against a whole walk when pi is idle (capture.ts).
import { mkdirSync, readdirSync, readFileSync, rmSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { lstatOrUndefined } from '../store/storeFiles.js';

export interface FolderWatchOptions {
  cwd: string;
  /** A private folder outside `cwd` for the barrier's files (made, and removed on close). */
  barrierDir: string;
  /** Events past which the list is not trusted (default: half of inotify's queue). */
  maxEvents?: number;
  /** Folders past which the watcher gives up (default: a quarter of the user's inotify watches). */
  maxDirs?: number;
  /** How long the barrier's event may take (default 2 s). */
  barrierMs?: number;
  /** Which of these new folders the ignore rules leave out (they are not watched). */
  ignoredAmong?: (rels: string[]) => Promise<string[]>;
}

/** Folder names never watched whatever the ignore files say (git keeps out of them too). */
const NEVER = new Set(['.git']);

export class FolderWatch {
  static supported(): boolean {
    return process.platform === 'linux';
  }

  private readonly dirs = new Map<string, { w: FSWatcher; ino: number }>();
  private dirty = new Set<string>();
  private events = 0;
  /** Something was heard that cannot be put into the list (no name, a watch error). */
  private lost = false;
  /** The list holds every change since the last take() (false until the first take after arming). */
  private complete = false;
  private armed = false;
  private brokenWhy: string | undefined;
  private barrierWatch: FSWatcher | undefined;
  private readonly waiters = new Map<string, () => void>();
  private seq = 0;
  private readonly maxEvents: number;
  private readonly maxDirs: number;
  /** Folders left out (ignored and holding no tracked file): relative paths. */
  private skip: (rel: string) => boolean = () => false;

  constructor(private readonly o: FolderWatchOptions) {
    this.maxEvents = o.maxEvents ?? Math.floor(procNumber('/proc/sys/fs/inotify/max_queued_events', 16384) / 2);
    this.maxDirs = o.maxDirs ?? Math.floor(procNumber('/proc/sys/fs/inotify/max_user_watches', 8192) / 4);
  }

  /** Why the watcher gave up, if it did. */
  get broken(): string | undefined {
    return this.brokenWhy;
  }

  get watchedDirs(): number {
    return this.dirs.size;
  }

  /**
   * Sets the watches: every folder under `cwd` but those `skip` names (and .git, nested repositories).
   * The walk yields to pi's event loop every few milliseconds. Resolves false when the watcher gave up.
   */
  async arm(skip: (rel: string) => boolean): Promise<boolean> {
    this.skip = skip;
    try {
      mkdirSync(this.o.barrierDir, { recursive: true, mode: 0o700 });
      this.barrierWatch = watch(this.o.barrierDir, { persistent: false }, (_t, name) => {
        const done = typeof name === 'string' ? this.waiters.get(name) : undefined;
        if (done) done();
      });
      this.barrierWatch.on('error', () => this.giveUp('the barrier folder could not be watched'));
      await this.watchTree('');
    } catch (e) {
      this.giveUp(e instanceof Error ? e.message : String(e));
    }
    this.armed = !this.brokenWhy;
    return this.armed;
  }

  /**
   * The paths (relative; a folder stands for all under it) that may have changed since the previous
   * take, or undefined when only a walk of the whole folder can say (not armed yet, the first take
   * after arming, a barrier that did not come back, too many events, something lost).
   */
  async take(): Promise<string[] | undefined> {
    if (!this.armed || this.brokenWhy) return undefined;
    const heard = await this.barrier();
    const dirty = this.dirty;
    this.dirty = new Set();
    const trusted = this.complete && heard && !this.lost && this.events <= this.maxEvents;
    this.events = 0;
    this.lost = false;
    this.complete = true;
    const paths = [...dirty];
    // Folders made, moved or removed: their watches set again before git looks (a change after this is heard).
    const fresh = paths.filter((p) => this.unwatchIfReplaced(p));
    if (fresh.length) {
      const ignored = new Set(this.o.ignoredAmong ? await this.o.ignoredAmong(fresh).catch(() => []) : []);
      for (const p of fresh) if (!ignored.has(p) && !this.dirs.has(p)) await this.watchTree(p);
    }
    if (this.brokenWhy) return undefined;
    return trusted ? paths : undefined;
  }

  /** The paths heard since the last take, once the barrier is back (the list stays); undefined if not heard. */
  async peek(): Promise<string[] | undefined> {
    if (!this.armed || this.brokenWhy || !(await this.barrier())) return undefined;
    return [...this.dirty];
  }

  /** The next take answers undefined (a restore wrote the folder: the snapshot after it walks it all). */
  forget(): void {
    this.complete = false;
  }

  close(): void {
    for (const { w } of this.dirs.values()) w.close();
    this.dirs.clear();
    this.barrierWatch?.close();
    this.barrierWatch = undefined;
    this.armed = false;
    rmSync(this.o.barrierDir, { recursive: true, force: true });
  }

  private giveUp(why: string): void {
    if (this.brokenWhy) return;
    this.brokenWhy = why;
    this.close();
  }

  private barrier(): Promise<boolean> {
    const name = `b${process.pid}-${++this.seq}`;
    const file = join(this.o.barrierDir, name);
    return new Promise<boolean>((resolve) => {
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(name);
        rmSync(file, { force: true });
        resolve(ok);
      };
      const timer = setTimeout(() => finish(false), this.o.barrierMs ?? 2000);
      this.waiters.set(name, () => finish(true));
      try {
        writeFileSync(file, '', { mode: 0o600 });
      } catch {
        finish(false);
      }
    });
  }

  /**
   * A changed path: a watched folder gone or replaced loses its watches (and those under it). True when
   * a folder is there now that is not watched and should be.
   */
  private unwatchIfReplaced(rel: string): boolean {
    const st = lstatOrUndefined(join(this.o.cwd, rel));
    const known = this.dirs.get(rel);
    if (known && st?.isDirectory() && st.ino === known.ino) return false;
    if (known) {
      const under = `${rel}/`;
      for (const [d, { w }] of this.dirs) {
        if (d === rel || d.startsWith(under)) {
          w.close();
          this.dirs.delete(d);
        }
      }
    }
    return !!st?.isDirectory() && this.parentWatched(rel);
  }

  private parentWatched(rel: string): boolean {
    const slash = rel.lastIndexOf('/');
    return this.dirs.has(slash < 0 ? '' : rel.slice(0, slash));
  }

  /** Watches `root` (relative) and the folders under it, breadth first, yielding every ~8 ms. */
  private async watchTree(root: string): Promise<void> {
    const queue = [root];
    let slice = performance.now();
    while (queue.length && !this.brokenWhy) {
      const rel = queue.shift()!;
      if (this.dirs.has(rel)) continue; // watched already (and what is under it)
      const abs = join(this.o.cwd, rel);
      let names;
      try {
        names = readdirSync(abs, { withFileTypes: true });
      } catch {
        continue; // gone, or unreadable: git cannot read it either
      }
      if (rel && names.some((d) => d.name === '.git')) continue; // a nested repository: git lists it as one path
      if (this.dirs.size >= this.maxDirs)
        return this.giveUp(`the folder has more than ${this.maxDirs} folders to watch`);
      const st = lstatOrUndefined(abs);
      if (!st?.isDirectory()) continue;
      let w: FSWatcher;
      try {
        w = watch(abs, { persistent: false }, (_t, name) => this.heard(rel, name));
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') continue;
        return this.giveUp(
          code === 'ENOSPC'
            ? "the user's inotify watch limit is reached (fs.inotify.max_user_watches)"
            : `a folder could not be watched: ${(e as Error).message}`,
        );
      }
      w.on('error', () => {
        this.lost = true;
        this.dirty.add(rel);
      });
      this.dirs.set(rel, { w, ino: st.ino });
      for (const d of names) {
        if (!d.isDirectory() || NEVER.has(d.name)) continue;
        const child = rel ? `${rel}/${d.name}` : d.name;
        if (!this.skip(child)) queue.push(child);
      }
      if (performance.now() - slice > 8) {
        await new Promise((r) => setImmediate(r));
        slice = performance.now();
      }
    }
  }

  private heard(dir: string, name: string | Buffer | null): void {
    this.events++;
    if (typeof name !== 'string' || !name || name.includes('\uFFFD')) {
      this.lost = true;
      return;
    }
    const rel = dir ? `${dir}/${name}` : name;
    if (NEVER.has(name) || this.skip(rel)) return;
    this.dirty.add(rel);
  }
}

function procNumber(file: string, fallback: number): number {
  try {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isFinite(n) && n > 0 ? n : fallback;
  } catch {
    return fallback;
  }
}
