// Which sessions have a running pi with the bridge, kept current for the whole host: the discovery
// directories are watched (fs.watch, and a 1 s look at the record names and pids for what a watch
// misses, such as a pi killed without removing its record), and each change is confirmed with
// discovery's liveness probe. A pi that does not answer (stopped with Ctrl+Z, blocked) stays known, as
// unresponsive: its session is still pi's (the sidebar marks it, an open tree shows pi as not free,
// actions ask to wait), and it is looked at again each poll until it answers or its pid is gone (on
// Linux a stopped pi is seen in /proc without a connection that would wait in its queue). No vscode
// import: the sidebar, the panels and the actions ask it.
import { watch, type FSWatcher } from 'node:fs';
import { homedir } from 'node:os';
import {
  canonicalPath,
  pidAlive,
  readRecords,
  scanBridges,
  type LiveBridgeInfo,
  type UnresponsiveBridgeInfo,
} from '../../core/piClient/discovery.js';
import { recordDirOf, recordDirs } from '../../core/piClient/paths.js';

/** A pi with the bridge that runs a session: answering (live), or not (unresponsive, with why). */
export type KnownBridge = LiveBridgeInfo | UnresponsiveBridgeInfo;

export const isUnresponsive = (b: KnownBridge): b is UnresponsiveBridgeInfo => 'why' in b;

export interface RegistryOptions {
  env?: NodeJS.ProcessEnv;
  /** Record directories besides the environment's (default: pi's default one as well). */
  dirs?: string[];
  pollMs?: number;
}

export class BridgeRegistry {
  private byFile = new Map<string, KnownBridge>();
  private readonly canon = new Map<string, string>();
  private readonly listeners = new Set<() => void>();
  private readonly watchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private again = false;
  private names = '';
  private disposed = false;
  private readonly env: NodeJS.ProcessEnv;
  readonly dirs: string[];

  constructor(opts: RegistryOptions = {}) {
    this.env = opts.env ?? process.env;
    // The editor's environment may name another agent dir than the shell that started pi: look in both.
    this.dirs = recordDirs(this.env, opts.dirs ?? [recordDirOf({ HOME: homedir() })]);
    this.timer = setInterval(() => this.poll(), opts.pollMs ?? 1000);
    this.timer.unref?.();
    void this.rescan();
  }

  /** The bridge of the pi running `file`, as last seen (answering or not). */
  get(file: string): KnownBridge | undefined {
    if (!this.byFile.size) return undefined;
    let key = this.canon.get(file);
    if (key === undefined) {
      key = canonicalPath(file);
      this.canon.set(file, key);
    }
    return this.byFile.get(key);
  }

  all(): KnownBridge[] {
    return [...this.byFile.values()];
  }

  onDidChange(fn: () => void): { dispose(): void } {
    this.listeners.add(fn);
    return { dispose: () => this.listeners.delete(fn) };
  }

  /** Looks again now (and once more if a look is under way); resolves when the map is current. */
  rescan(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    if (this.scanning) {
      this.again = true;
      return this.scanning;
    }
    this.scanning = (async () => {
      do {
        this.again = false;
        await this.scanOnce();
      } while (this.again && !this.disposed);
    })().finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  private async scanOnce(): Promise<void> {
    this.watchDirs();
    const { live, unresponsive } = await scanBridges({ env: this.env, dirs: this.dirs });
    const next = new Map<string, KnownBridge>();
    // Newest first: when two pis run one file, the newer one is driven (as findBridge does).
    for (const b of [...live, ...unresponsive].sort((x, y) => y.record.startedAt - x.record.startedAt)) {
      const key = canonicalPath(b.record.sessionFile);
      if (!next.has(key)) next.set(key, b);
    }
    const records = readRecords({ env: this.env, dirs: this.dirs });
    this.names = records
      .map((f) => f.recordFile)
      .sort()
      .join('\n');
    // Records of pis that did not answer the probe (stopped, blocked, a busy machine): looked at again next poll.
    this.unconfirmed = records.length > live.length;
    const sig = (m: Map<string, KnownBridge>) =>
      [...m]
        .map(([k, b]) => `${k}\0${b.stem}\0${isUnresponsive(b) ? 'unresponsive' : 'live'}`)
        .sort()
        .join('\n');
    const changed = sig(next) !== sig(this.byFile);
    this.byFile = next;
    this.canon.clear();
    if (changed && !this.disposed) for (const l of [...this.listeners]) l();
  }

  private unconfirmed = false;

  private recordNames(): string {
    return readRecords({ env: this.env, dirs: this.dirs })
      .map((f) => f.recordFile)
      .sort()
      .join('\n');
  }

  /** Cheap: record names changed, or a known pi is gone (killed: its record stays behind). */
  private poll(): void {
    if (this.disposed || this.scanning) return;
    this.watchDirs();
    const dead = [...this.byFile.values()].some((b) => !pidAlive(b.record.pid));
    if (dead || this.unconfirmed || this.recordNames() !== this.names) void this.rescan();
  }

  private watchDirs(): void {
    for (const dir of this.dirs) {
      if (this.watchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: false }, () => this.soon());
        w.on('error', () => {
          w.close();
          this.watchers.delete(dir);
        });
        this.watchers.set(dir, w);
      } catch {
        // no bridge has run with this directory yet: the poll looks again
      }
    }
  }

  private soon(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.rescan(), 30);
  }

  dispose(): void {
    this.disposed = true;
    clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    this.listeners.clear();
  }
}
