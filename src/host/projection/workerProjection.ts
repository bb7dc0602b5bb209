// Projecting a big session in a worker thread (see projectWorker.ts), from the extension host's side.
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { NodeView } from '../../protocol.js';

export interface WorkerTask {
  file: string;
  /** Bytes of the file the host's session has read: the worker reads no further. */
  until: number;
  part: number;
}

export type WorkerReply = { kind: 'count'; count: number; leafId: string | null } | { kind: 'part'; nodes: NodeView[]; from: number } | { kind: 'done' } | { kind: 'error'; message: string };

export class WorkerMismatch extends Error {
  override name = 'WorkerMismatch';
}

/**
 * Projects `file` (its first `until` bytes) in a worker, handing the parts to `onPart` in order.
 * `expect` is what the host's own index says (entry count and leaf): on any difference (the file was
 * rewritten in between) the worker is stopped before a single part is handed over, and this rejects
 * with WorkerMismatch, so that the caller can project on its own thread instead.
 */
export function projectInWorker(
  script: string,
  task: WorkerTask,
  expect: { count: number; leafId: string | null },
  onPart: (nodes: NodeView[], from: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  if (!existsSync(script)) return Promise.reject(new Error(`worker script missing: ${script}`));
  return new Promise((resolve, reject) => {
    const w = new Worker(script, { workerData: task });
    let settled = false;
    const end = (err?: Error) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', abort);
      void w.terminate();
      if (err) reject(err);
      else resolve();
    };
    const abort = () => end(new Error('cancelled'));
    signal?.addEventListener('abort', abort);
    w.on('message', (m: WorkerReply) => {
      if (settled) return;
      switch (m.kind) {
        case 'count':
          if (m.count !== expect.count || m.leafId !== expect.leafId) end(new WorkerMismatch(`worker read ${m.count} entries (leaf ${m.leafId}), the host ${expect.count} (leaf ${expect.leafId})`));
          return;
        case 'part':
          try {
            onPart(m.nodes, m.from);
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
  });
}
