// Where a panel's snapshot comes from: a big session is read and projected again in a worker thread
// (same bytes, same result) whose parts cross to the webview as packed bytes, so its parsing, garbage
// and packing stay off the extension host's thread; that worker starts with the panel, beside the
// host's own read and the webview's load. Small sessions, migrated ones (ids made in memory) and any
// worker failure are projected here, in slices. The first snapshot's milestones go to the log (the
// click bench reads them).
import { statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Session } from '../../core/session/session.js';
import type { NodeView, SnapshotNodes } from '../../protocol.js';
import { log } from '../platform/log.js';
import { firstScreenNodes } from '../projection/firstScreen.js';
import { Projector, projectParts } from '../projection/projection.js';
import { useRun, WorkerMismatch, WorkerRun, type WorkerFirstScreen } from '../projection/workerProjection.js';

export const SNAPSHOT_PART = 1000;
/** Sessions with at least this many entries are projected in a worker thread. */
const WORKER_MIN = 5000;
/** Files of at least this size start their worker with the panel (5,000 entries of pi's are 3-5 MB). */
const EARLY_MIN_BYTES = 2_000_000;
/** The longest a big file's whole read waits for the webview to be ready (see `released`)… */
const HOLD_MAX_MS = 1000;
/** …and then for it to paint the first screen. */
const SHOWN_MAX_MS = 500;

/** Posts one part: the first (`from` 0) opens a snapshot of revision `rev`, the rest follow it. */
export type PartSink = (rev: number, body: SnapshotNodes, count: number, from: number) => void;
/** Posts the first screen of a big session (see projection/firstScreen.ts), drawn until the snapshot of the next revision is whole. */
export type FirstScreenSink = (rev: number, nodes: NodeView[]) => void;

type Milestone = 'open' | 'ready' | 'firstScreen' | 'firstPart' | 'sent';

export class SnapshotSource {
  /** A big file's projection, started with the panel and used by the first snapshot. */
  private early: WorkerRun | undefined;
  /** A big file's first screen from its last bytes, read first by that worker (see tailSession.ts). */
  private tail: Promise<WorkerFirstScreen | undefined> | undefined;
  private readonly born = performance.now();
  /** Milestones of the first snapshot, in ms from the panel's creation. */
  private readonly marks: Partial<Record<Milestone, number>> = {};
  private readonly script: string;
  /**
   * When the panel may read the whole file. A big file's first screen is read from its end (by the
   * early run): the whole file is read, there and by the panel, once the webview has painted that
   * screen (release()), not while VS Code makes the webview and shows it on the same cores; but no
   * later than HOLD_MAX_MS if the webview is not ready by then (a new browser profile first installs VS
   * Code's service worker, for seconds: the file is read meanwhile). A small file at once.
   */
  readonly released: Promise<void>;
  private letGo: () => void = () => {};
  private holdTimer: NodeJS.Timeout | undefined;
  private isReleased = false;

  constructor(
    private readonly file: string,
    private readonly signal: AbortSignal,
  ) {
    this.script = join(__dirname, 'projector.js');
    try {
      if (statSync(file).size >= EARLY_MIN_BYTES) {
        this.early = new WorkerRun(this.script, { file, part: SNAPSHOT_PART, firstScreen: true, hold: true }, signal);
        this.tail = this.early.firstScreen;
      }
    } catch {
      // the open says what is wrong with the file
    }
    this.released = new Promise<void>((resolve) => (this.letGo = resolve));
    if (this.early) this.holdTimer = setTimeout(() => this.release(), HOLD_MAX_MS);
    else this.letGo();
  }

  /** The first screen read from the file's end, once (undefined for small files, or when there is none). */
  async earlyFirstScreen(): Promise<WorkerFirstScreen | undefined> {
    const tail = this.tail;
    this.tail = undefined;
    return tail;
  }

  /** Lets the whole file be read now (see `released`); later calls do nothing. */
  release(): void {
    if (this.isReleased) return;
    this.isReleased = true;
    clearTimeout(this.holdTimer);
    this.early?.go();
    this.letGo();
  }

  /** The first screen is posted: the whole file is read once the webview says it is painted (release()), or after SHOWN_MAX_MS. */
  releaseWhenShown(): void {
    if (this.isReleased) return;
    clearTimeout(this.holdTimer);
    this.holdTimer = setTimeout(() => this.release(), SHOWN_MAX_MS);
  }

  mark(m: Milestone): void {
    this.marks[m] ??= performance.now() - this.born;
  }

  /** The panel is hidden: the early run is dropped (the snapshot made when it shows reads again). */
  skip(): void {
    this.early?.stop();
    this.early = undefined;
  }

  /** Projects `s` as it is now and hands the parts to `send`; returns the projector that goes on with its deltas. */
  async project(
    s: Session,
    nextRev: () => number,
    send: PartSink,
    disposed: () => boolean,
    firstScreen?: FirstScreenSink,
  ): Promise<Projector | undefined> {
    const early = this.early;
    this.early = undefined;
    const t0 = performance.now();
    const count = s.index.size;
    const projector = new Projector(s.index);
    const sink = (rev: number) => (body: SnapshotNodes, n: number, from: number) => {
      if (from === 0) this.mark('firstPart');
      send(rev, body, n, from);
    };
    if (firstScreen && count >= WORKER_MIN) {
      const nodes = await firstScreenNodes(s).catch(
        (e: unknown) => (log().info(`${basename(this.file)}: no first screen (${String(e)})`), []),
      );
      if (disposed()) return undefined;
      if (nodes.length) {
        this.mark('firstScreen');
        firstScreen(nextRev(), nodes);
      }
    }
    if (s.path && !s.legacy && count >= WORKER_MIN) {
      const expect = { count, leafId: s.leafId, size: s.readSize };
      const fresh = () =>
        new WorkerRun(this.script, { file: s.path!, until: s.readSize, part: SNAPSHOT_PART }, this.signal);
      const post = (run: WorkerRun) => {
        const to = sink(nextRev());
        return useRun(run, expect, (p, from) => to({ packed: p.packed }, p.count, from));
      };
      try {
        // The early run read the file as it was when the panel opened: if it changed since, again.
        await post(early ?? fresh()).catch((e) => {
          if (early && e instanceof WorkerMismatch && !disposed()) return post(fresh());
          throw e;
        });
        projector.workerMade = true;
        log().info(
          `${basename(this.file)}: ${count} entries projected in a worker thread and sent in ${(performance.now() - t0).toFixed(0)} ms${this.shownAfter()}`,
        );
        return projector;
      } catch (e) {
        if (disposed()) return undefined;
        log().info(`${basename(this.file)}: projected on the extension host instead of a worker (${String(e)})`);
      }
    } else early?.stop();
    const to = sink(nextRev());
    await projectParts(s.index, s.index.live(), s, projector, SNAPSHOT_PART, (nodes, from) =>
      to({ nodes }, nodes.length, from),
    );
    log().debug(
      `sent ${count} entries of ${basename(this.file)} in ${(performance.now() - t0).toFixed(0)} ms${this.shownAfter()}`,
    );
    return projector;
  }

  /** The first snapshot's milestones, once: " (from the panel's creation: read+index 812 ms, …)". */
  private shownAfter(): string {
    if (this.marks.sent !== undefined) return '';
    this.mark('sent');
    const ms = (k: Milestone) => (this.marks[k] === undefined ? '?' : `${this.marks[k].toFixed(0)} ms`);
    return ` (from the panel's creation: read+index ${ms('open')}, webview ready ${ms('ready')}, first screen ${ms('firstScreen')}, first part ${ms('firstPart')}, all sent ${ms('sent')})`;
  }
}
