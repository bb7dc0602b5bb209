// The store's caps kept while a capture runs (capture.ts), not only when its session starts: after each
// snapshot that added bytes, the session's own sum (kept here, the manifest read only when over its cap)
// against its cap, and the store's total (an estimate: the last count plus what this session added)
// against the total cap, counted again from every manifest when over it or every few snapshots (other
// pis add too). What is dropped is collected in the background, one collect at a time, never while a
// tool call waits (a collect may wait for another pi's snapshot: storeGc.ts).
import { pruneStore } from './retention.js';
import type { CheckpointStore } from './store.js';
import type { CheckpointSettings } from './storePaths.js';

/** The total is counted again (every manifest read) after this many snapshots that added bytes. */
const RECOUNT_EVERY = 25;

export class StoreCaps {
  private session = 0;
  private total = 0;
  private since = 0;
  private collecting: Promise<void> | undefined;
  private again = false;

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

  /** Resolves once the background collect (if any) is done. */
  async collected(): Promise<void> {
    while (this.collecting) await this.collecting;
  }

  private collect(store: CheckpointStore): void {
    if (this.collecting) {
      this.again = true;
      return;
    }
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
    })();
  }
}
