// Worker thread entry (dist/projector.js): reads a session file up to a byte size and projects it for
// the webview, posting the nodes in parts. The parsing and projecting of a big session (and the garbage
// collections they cause) then happen off the extension host's thread, which VS Code shares with every
// extension. Asked to, it first reads the file's end for the first screen. No vscode import: this runs
// in a plain worker.
import { parentPort, workerData } from 'node:worker_threads';
import { packNodes } from '../../packedNodes.js';
import { FileSource, type ByteSource } from '../../core/index/byteSource.js';
import { visitLines } from '../../core/index/lineReads.js';
import { readSession } from '../../core/index/reader.js';
import { openTail } from '../../core/index/tailSession.js';
import { firstScreenNodes } from './firstScreen.js';
import { Projector, projectParts } from './projection.js';
import type { WorkerFirstScreen, WorkerReply, WorkerTask } from './workerProjection.js';

/** The first screen from the file's end (a few MB), before the whole file: the panel shows it at once. */
async function firstScreen(file: string): Promise<WorkerFirstScreen | undefined> {
  const s = await openTail(file);
  if (!s) return undefined;
  const nodes = await firstScreenNodes(s);
  return nodes.length
    ? { sessionId: s.header.id, cwd: String(s.header.cwd ?? ''), name: s.name, leafId: s.leafId, nodes }
    : undefined;
}

/** The file as it was when the extension host read it: later appends come to the webview as deltas. */
function upTo(src: ByteSource, until: number): ByteSource {
  return {
    size: async () => Math.min(await src.size(), until),
    read: (b, o, l, p) => src.read(b, o, l, p),
    close: () => src.close(),
  };
}

async function run(task: WorkerTask): Promise<void> {
  const post = (m: WorkerReply, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(m, transfer);
  // Listening from the start: the host's go may come before the first screen is read.
  const go = task.hold ? new Promise<void>((resolve) => parentPort!.once('message', () => resolve())) : undefined;
  if (task.firstScreen) post({ kind: 'firstScreen', screen: await firstScreen(task.file).catch(() => undefined) });
  await go;
  const file = await FileSource.open(task.file);
  // The size now, unless told (the host compares it with its own read of the file).
  const until = task.until ?? (await file.size());
  const src = upTo(file, until);
  try {
    const loaded = await readSession(src, { sliceMs: 50 });
    const index = loaded.index;
    const live = index.live();
    post({ kind: 'count', count: live.length, leafId: index.leafId, size: loaded.state.size });
    const source = {
      visitLines: (records: Parameters<typeof visitLines>[1], visit: Parameters<typeof visitLines>[2]) =>
        visitLines(src, records, visit, { sliceMs: 50 }),
    };
    // Packed here, off the host's thread; the bytes are moved to it, not copied.
    await projectParts(index, live, source, new Projector(index), task.part, (nodes, from) => {
      const packed = packNodes(nodes);
      post({ kind: 'part', packed, count: nodes.length, from }, [packed.buffer as ArrayBuffer]);
    });
    post({ kind: 'done' });
  } finally {
    await src.close();
  }
}

const task = workerData as WorkerTask;
run(task).catch((e: unknown) =>
  parentPort!.postMessage({ kind: 'error', message: e instanceof Error ? e.message : String(e) } satisfies WorkerReply),
);
