// Watches session directories (outside the workspace, so with Node's fs.watch) and reports changed
// `.jsonl` paths, debounced. Directories that do not exist yet are re-checked periodically, and a
// slow poll of sizes backs up fs.watch where it drops events (network file systems, editors' renames);
// it polls less often in big folders (a stat per file). What it saw lets a listing skip the stat of
// files that did not change (unchanged()).
import { watch, type FSWatcher } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface DirWatcherOptions {
  debounceMs?: number;
  /** Poll interval for up to 1,000 files; more files stretch it in proportion. */
  pollMs?: number;
  /** Also report sub-directories' .jsonl files (for the sessions root in "all" scope). */
  nested?: boolean;
}

export class DirWatcher {
  private watchers = new Map<string, FSWatcher>();
  private pending = new Map<string, NodeJS.Timeout>();
  private sizes = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  /** When fs.watch began watching each directory (performance.now()), or last lost track of it. */
  private watchedAt = new Map<string, number>();
  /** When each path was last reported changed (the raw event, before the debounce). */
  private changedAt = new Map<string, number>();
  private dirs: string[] = [];
  private disposed = false;
  /** Directories polled at least once (a file first seen after that is new). */
  private primed = new Set<string>();
  private primedWaiters = new Map<string, (() => void)[]>();
  private syncing: Promise<void> = Promise.resolve();

  constructor(
    private readonly onChange: (path: string) => void,
    private readonly onDirsChanged: () => void,
    private readonly opts: DirWatcherOptions = {},
  ) {}

  /** Sets the directories to watch (idempotent). */
  setDirs(dirs: string[]): void {
    this.dirs = [...new Set(dirs)];
    for (const [d, w] of this.watchers) {
      if (!this.dirs.includes(d) && !this.isNestedOf(d)) {
        w.close();
        this.watchers.delete(d);
        this.watchedAt.delete(d);
      }
    }
    this.syncing = this.sync();
    if (!this.timer) this.schedule();
  }

  /** The next poll: pollMs, stretched by the number of files (1,000 per pollMs). */
  private schedule(): void {
    if (this.disposed) return;
    const ms = (this.opts.pollMs ?? 3000) * Math.max(1, this.sizes.size / 1000);
    this.timer = setTimeout(() => {
      this.syncing = this.sync();
      void this.syncing.then(
        () => this.schedule(),
        () => this.schedule(),
      );
    }, ms);
    this.timer.unref?.();
  }

  /**
   * Whether `file` is known not to have changed since `checkedAt` (a performance.now() time): its
   * folder was watched before then and no change of it was seen since. A listing then trusts its
   * cached row without a stat.
   */
  unchanged(file: string, checkedAt: number): boolean {
    const since = this.watchedAt.get(dirname(file));
    return since !== undefined && checkedAt > since && !((this.changedAt.get(file) ?? -Infinity) >= checkedAt);
  }

  private isNestedOf(d: string): boolean {
    return !!this.opts.nested && this.dirs.some((root) => d.startsWith(`${root}/`) || d.startsWith(`${root}\\`));
  }

  private async sync(): Promise<void> {
    if (this.disposed) return;
    const wanted = new Set<string>();
    for (const d of this.dirs) {
      wanted.add(d);
      if (this.opts.nested) {
        try {
          for (const e of await readdir(d, { withFileTypes: true }))
            if (e.isDirectory() || e.isSymbolicLink()) wanted.add(join(d, e.name));
        } catch {
          // not there yet
        }
      }
    }
    let changed = false;
    for (const d of wanted) {
      if (this.watchers.has(d)) continue;
      try {
        const w = watch(d, { persistent: false }, (_event, name) => {
          if (!name) {
            this.watchedAt.set(d, performance.now()); // which file is not said: none is known unchanged
            return this.poll(d);
          }
          const p = join(d, name.toString());
          if (p.endsWith('.jsonl')) this.fire(p);
          else if (this.opts.nested && this.dirs.includes(d)) void this.sync().then(() => this.onDirsChanged());
        });
        w.on('error', () => {
          w.close();
          this.watchers.delete(d);
          this.watchedAt.delete(d);
        });
        this.watchers.set(d, w);
        this.watchedAt.set(d, performance.now());
        changed = true;
      } catch {
        // the directory does not exist (yet): the next sync tries again
      }
    }
    for (const d of wanted) await this.poll(d);
    if (changed) this.onDirsChanged();
  }

  /** Compares sizes with the last poll: catches what fs.watch missed. */
  private async poll(dir: string): Promise<void> {
    let names: string[];
    try {
      names = (await readdir(dir)).filter((n) => n.endsWith('.jsonl'));
    } catch {
      return;
    }
    const seen = new Set<string>();
    for (const n of names) {
      const p = join(dir, n);
      seen.add(p);
      try {
        const s = await stat(p);
        const before = this.sizes.get(p);
        this.sizes.set(p, s.size);
        if (before !== undefined && before !== s.size) this.fire(p);
        else if (before === undefined && this.primed.has(dir)) this.fire(p);
      } catch {
        // raced with a delete
      }
    }
    for (const p of [...this.sizes.keys()]) {
      if (dirname(p) === dir && !seen.has(p)) {
        this.sizes.delete(p);
        this.fire(p);
      }
    }
    this.primed.add(dir);
    for (const resolve of this.primedWaiters.get(dir)?.splice(0) ?? []) resolve();
  }

  /** Resolves when the latest look at the directories has finished. */
  idle(): Promise<void> {
    return this.syncing;
  }

  /** Resolves once `dir` has been listed (files that appear after that are reported as new). */
  whenPrimed(dir: string): Promise<void> {
    if (this.primed.has(dir)) return Promise.resolve();
    return new Promise((resolve) =>
      (this.primedWaiters.get(dir) ?? this.primedWaiters.set(dir, []).get(dir)!).push(resolve),
    );
  }

  private fire(path: string): void {
    this.changedAt.set(path, performance.now());
    const t = this.pending.get(path);
    if (t) clearTimeout(t);
    this.pending.set(
      path,
      setTimeout(() => {
        this.pending.delete(path);
        if (!this.disposed) this.onChange(path);
      }, this.opts.debounceMs ?? 60),
    );
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.watchedAt.clear();
    for (const w of this.watchers.values()) w.close();
    for (const t of this.pending.values()) clearTimeout(t);
    this.watchers.clear();
  }
}
