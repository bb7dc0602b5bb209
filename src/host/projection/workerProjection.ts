// Projecting a big session in a worker thread (see projectWorker.ts), from the extension host's side.
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { NodeView } from '../../protocol.js';

export interface WorkerTask {
  file: string;
  /** Bytes of the file to read (what the host's session has read); by default, its size when the worker starts. */
  until?: number;
  part: number;
  /** First read the file's end and post its first screen (see tailSession.ts and firstScreen.ts). */
  firstScreen?: boolean;
  /**
   * Read the whole file only once told to (WorkerRun.go): while VS Code makes the webview, the
   * machine's cores are left to it (the first screen, if asked for, is read before).
   */
  hold?: boolean;
}

/** A big session's first screen, read from the file's end by the worker before the whole file. */
export interface WorkerFirstScreen {
  sessionId: string;
  cwd: string;
  /** The name the file's end sets, if it does. */
  name?: string;
  leafId: string | null;
  nodes: NodeView[];
}

/** A part of the projection: `count` nodes packed as columns (packedNodes.ts), made in the worker. */
export interface PackedPart {
  packed: Uint8Array;
  count: number;
}

/** What the worker read: checked against the host's own index before any part is used. */
export interface WorkerHead {
  count: number;
  leafId: string | null;
  /** Bytes read. */
  size: number;
}

export type WorkerReply =
  | { kind: 'firstScreen'; screen: WorkerFirstScreen | undefined }
  | ({ kind: 'count' } & WorkerHead)
  | ({ kind: 'part'; from: number } & PackedPart)
  | { kind: 'done' }
  | { kind: 'error'; message: string };

export class WorkerMismatch extends Error {
  override name = 'WorkerMismatch';
}

/**
 * One projection of `file` in a worker, started at once. Its parts are kept (as bytes, outside the
 * JavaScript heap) until someone drains them: so it can start when a panel opens, beside the host's
 * own read of the file and the webview's loading, and be used (or dropped) once both are ready.
 */
export class WorkerRun {
  /** What the worker read; rejects if it fails first. */
  readonly head: Promise<WorkerHead>;
  /** The first screen from the file's end, when the task asked for it (undefined: none, or the worker failed). */
  readonly firstScreen: Promise<WorkerFirstScreen | undefined>;
  private readonly worker: Worker | undefined;
  private readonly parts: [PackedPart, number][] = [];
  private sink: ((part: PackedPart, from: number) => void) | undefined;
  private finished = false;
  private went = false;
  private failure: Error | undefined;
  private settle: (() => void) | undefined;
  private fail: ((e: Error) => void) | undefined;
  private firstScreenDone: (p: WorkerFirstScreen | undefined) => void = () => {};
  private headFail: (e: Error) => void = () => {};

  constructor(script: string, task: WorkerTask, signal?: AbortSignal) {
    let headOk: (h: WorkerHead) => void = () => {};
    this.head = new Promise<WorkerHead>((res, rej) => ((headOk = res), (this.headFail = rej)));
    this.head.catch(() => {}); // also reported by drain()
    this.firstScreen = new Promise((res) => (this.firstScreenDone = res));
    const end = (err?: Error) => {
      this.firstScreenDone(undefined);
      if (this.finished) return;
      this.finished = true;
      this.failure = err;
      signal?.removeEventListener('abort', abort);
      void this.worker?.terminate();
      if (err) {
        this.headFail(err);
        this.fail?.(err);
      } else this.settle?.();
    };
    const abort = () => end(new Error('cancelled'));
    if (!existsSync(script)) {
      this.worker = undefined;
      end(new Error(`worker script missing: ${script}`));
      return;
    }
    if (signal?.aborted) {
      this.worker = undefined;
      end(new Error('cancelled'));
      return;
    }
    signal?.addEventListener('abort', abort);
    const w = (this.worker = new Worker(script, { workerData: task }));
    w.on('message', (m: WorkerReply) => {
      if (this.finished) return;
      switch (m.kind) {
        case 'firstScreen':
          return this.firstScreenDone(m.screen);
        case 'count':
          this.firstScreenDone(undefined);
          return headOk({ count: m.count, leafId: m.leafId, size: m.size });
        case 'part':
          if (!this.sink) return void this.parts.push([{ packed: m.packed, count: m.count }, m.from]);
          try {
            this.sink({ packed: m.packed, count: m.count }, m.from);
          } catch (e) {
            end(e instanceof Error ? e : new Error(String(e)));
          }
          return;
        case 'done':
          return end();
        case 'error':
          return end(new Error(m.message));
      }
    });
    w.on('error', (e) => end(e));
    w.on('exit', (code) => end(new Error(`projection worker ended early (exit code ${code})`)));
  }

  /**
   * Hands over the parts kept so far (yielding to the event loop now and then: the host is shared),
   * then the rest as they come, in order; resolves when all are handed over.
   */
  async drain(onPart: (part: PackedPart, from: number) => void): Promise<void> {
    try {
      for (let k = 1; this.parts.length; k++) {
        const [p, from] = this.parts.shift()!;
        onPart(p, from);
        if (k % 8 === 0) await new Promise<void>((r) => setImmediate(r));
      }
    } catch (e) {
      this.stop();
      throw e instanceof Error ? e : new Error(String(e));
    }
    return new Promise<void>((resolve, reject) => {
      if (this.finished) return this.failure ? reject(this.failure) : resolve();
      this.sink = onPart;
      this.settle = resolve;
      this.fail = reject;
    });
  }

  /** Lets a run started with `hold` read the whole file (once; later calls do nothing). */
  go(): void {
    if (this.finished || this.went) return;
    this.went = true;
    this.worker?.postMessage('go');
  }

  /** Stops the worker and drops what it kept. */
  stop(): void {
    this.parts.length = 0;
    this.firstScreenDone(undefined);
    if (this.finished) return;
    this.finished = true;
    this.failure = new Error('stopped');
    void this.worker?.terminate();
    this.headFail(this.failure); // (nothing, when the head came before)
    this.fail?.(this.failure);
  }
}

/** Drains `run` into `onPart` if what it read is what the host read (count, leaf, and size when given); stops it otherwise. */
export async function useRun(
  run: WorkerRun,
  expect: { count: number; leafId: string | null; size?: number },
  onPart: (part: PackedPart, from: number) => void,
): Promise<void> {
  const head = await run.head;
  if (
    head.count !== expect.count ||
    head.leafId !== expect.leafId ||
    (expect.size !== undefined && head.size !== expect.size)
  ) {
    run.stop();
    throw new WorkerMismatch(
      `worker read ${head.count} entries (leaf ${head.leafId}, ${head.size} bytes), the host ${expect.count} (leaf ${expect.leafId}, ${expect.size ?? '?'} bytes)`,
    );
  }
  return run.drain(onPart);
}
