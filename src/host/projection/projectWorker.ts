// Worker thread entry (dist/projector.js): reads a session file up to a byte size and projects it for
// the webview, posting the nodes in parts. The parsing and projecting of a big session (and the garbage
// collections they cause) then happen off the extension host's thread, which VS Code shares with every
// extension. No vscode import: this runs in a plain worker.
import { parentPort, workerData } from 'node:worker_threads';
import { FileSource, type ByteSource } from '../../core/byteSource.js';
import { visitLines } from '../../core/lineReads.js';
import { readSession } from '../../core/reader.js';
import { Projector, projectParts } from './projection.js';
import type { WorkerReply, WorkerTask } from './workerProjection.js';

/** The file as it was when the extension host read it: later appends come to the webview as deltas. */
function upTo(src: ByteSource, until: number): ByteSource {
  return { size: async () => Math.min(await src.size(), until), read: (b, o, l, p) => src.read(b, o, l, p), close: () => src.close() };
}

async function run(task: WorkerTask): Promise<void> {
  const post = (m: WorkerReply) => parentPort!.postMessage(m);
  const src = upTo(await FileSource.open(task.file), task.until);
  try {
    const loaded = await readSession(src, { sliceMs: 50 });
    const index = loaded.index;
    const live = index.live();
    post({ kind: 'count', count: live.length, leafId: index.leafId });
    const source = { visitLines: (records: Parameters<typeof visitLines>[1], visit: Parameters<typeof visitLines>[2]) => visitLines(src, records, visit, { sliceMs: 50 }) };
    await projectParts(index, live, source, new Projector(index), task.part, (nodes, from) => post({ kind: 'part', nodes, from }));
    post({ kind: 'done' });
  } finally {
    await src.close();
  }
}

const task = workerData as WorkerTask;
run(task).catch((e: unknown) => parentPort!.postMessage({ kind: 'error', message: e instanceof Error ? e.message : String(e) } satisfies WorkerReply));
