// The store's caps kept while a capture runs (capture.ts), not only when its session starts: after each
// snapshot that added bytes, the session's own sum (kept here, the manifest read only when over its cap)
// against its cap, and the store's total (an estimate: the last count plus what this session added)
// against the total cap, counted again from every manifest when over it or every few snapshots (other
// pis add too). What is dropped is collected in the background, one collect at a time, never while a
// tool call waits (a collect may wait for another pi's snapshot: storeGc.ts). A collect keeps what is
// younger than the prune grace, so one more runs once the grace has passed after the last drop (else
// what the last minute dropped stayed until the next drop). A session that ends within that minute
// leaves it to the next collect of the store.
import { pruneStore } from './retention.js';
import type { CheckpointStore } from './store.js';
import type { CheckpointSettings } from './storePaths.js';

/** The total is counted again (every manifest read) after this many snapshots that added bytes. */
const RECOUNT_EVERY = 25;
/** The follow-up collect runs this long after the grace, so that the drop's objects are past it. */
const FOLLOW_UP_MARGIN_MS = 1000;

export class StoreCaps {
  private session = 0;
  private total = 0;
  private since = 0;
  private collecting: Promise<void> | undefined;
  private again = false;
  private followUp: NodeJS.Timeout | undefined;
  private stopped = false;
  /** A drop was collected since the last follow-up was armed. */
  private followUpDue = false;

  constructor(
    private readonly settings: CheckpointSettings,
    private readonly sessionId: string,
    private readonly log: (m: string) => void,
  ) {}

  /**
   * Prunes what is over the caps: every session at the start (no `added`), then after a snapshot that
   * added `added` bytes, this session alone while the total is within its cap.
   */
  async keep(store: CheckpointStore, added?: number): Promise<void> {
    const s = this.settings;
    if (added !== undefined) {
      this.session += added;
      this.total += added;
      this.since++;
    }
    const overOwn = s.maxSessionBytes > 0 && this.session > s.maxSessionBytes;
    const recount = s.maxTotalBytes > 0 && (this.total > s.maxTotalBytes || this.since >= RECOUNT_EVERY);
    if (added !== undefined && !overOwn && !recount) return;
    const all = added === undefined || recount;
    const r = await pruneStore(store, s, { own: this.sessionId, onlyOwn: !all, collect: false });
    this.session = r.bySession.get(this.sessionId) ?? 0;
    if (all) {
      this.total = r.after;
      this.since = 0;
    }
    if (r.dropped) this.collect(store);
  }

  /** No collect is started from now on (the session ended); one running goes on to its end. */
  stop(): void {
    clearTimeout(this.followUp);
    this.followUp = undefined;
    this.stopped = true;
  }

  /** Resolves once the background collect (if any) is done. */
  async collected(): Promise<void> {
    while (this.collecting) await this.collecting;
  }

  private collect(store: CheckpointStore, followUp = true): void {
    if (this.stopped) return;
    if (followUp) this.followUpDue = true;
    if (this.collecting) {
      this.again = true;
      return;
    }
    clearTimeout(this.followUp);
    this.collecting = (async () => {
      do {
        this.again = false;
        await store
          .collect({ log: this.log })
          .catch((e: unknown) =>
            this.log(`checkpoints: collecting the store failed: ${e instanceof Error ? e.message : String(e)}`),
          );
      } while (this.again);
      this.collecting = undefined;
      // What this collect kept for being younger than the grace: collected once it is older.
      if (this.followUpDue && !this.stopped) {
        this.followUpDue = false;
        this.followUp = setTimeout(() => this.collect(store, false), store.pruneGraceMs + FOLLOW_UP_MARGIN_MS);
        this.followUp.unref?.();
      }
    })();
  }
}
