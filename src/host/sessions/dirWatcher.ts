// Watches session directories (outside the workspace, so with Node's fs.watch) and reports changed
// `.jsonl` paths, debounced. Directories that do not exist yet are re-checked periodically, and a
// slow poll of sizes backs up fs.watch where it drops events (network file systems, editors' renames).
import { watch, type FSWatcher } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface DirWatcherOptions {
  debounceMs?: number;
  pollMs?: number;
  /** Also report sub-directories' .jsonl files (for the sessions root in "all" scope). */
  nested?: boolean;
}

export class DirWatcher {
  private watchers = new Map<string, FSWatcher>();
  private pending = new Map<string, NodeJS.Timeout>();
  private sizes = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
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
      }
    }
    this.syncing = this.sync();
    if (!this.timer) {
      this.timer = setInterval(() => (this.syncing = this.sync()), this.opts.pollMs ?? 3000);
      this.timer.unref?.();
    }
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
          for (const e of await readdir(d, { withFileTypes: true })) if (e.isDirectory() || e.isSymbolicLink()) wanted.add(join(d, e.name));
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
          if (!name) return this.poll(d);
          const p = join(d, name.toString());
          if (p.endsWith('.jsonl')) this.fire(p);
          else if (this.opts.nested && this.dirs.includes(d)) void this.sync().then(() => this.onDirsChanged());
        });
        w.on('error', () => {
          w.close();
          this.watchers.delete(d);
        });
        this.watchers.set(d, w);
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
    return new Promise((resolve) => (this.primedWaiters.get(dir) ?? this.primedWaiters.set(dir, []).get(dir)!).push(resolve));
  }

  private fire(path: string): void {
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
    if (this.timer) clearInterval(this.timer);
    for (const w of this.watchers.values()) w.close();
    for (const t of this.pending.values()) clearTimeout(t);
    this.watchers.clear();
  }
}
