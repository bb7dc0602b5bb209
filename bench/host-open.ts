// One run of "the extension host opens a 100k-entry session", in a process of its own (as a fresh
// extension host would), doing what the tree panel does to show it: read and index on this thread,
// project the snapshot in the worker thread (dist/projector.js, which packs each part as bytes); a
// 5 ms event-loop delay monitor records the longest block.
// Prints {"maxBlockMs": …}.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Session } from '../src/core/session.js';
import { join } from 'node:path';
import { projectInWorker } from '../src/host/projection/workerProjection.js';

async function main(file: string): Promise<void> {
  // Let start-up (module loading) settle before measuring.
  await new Promise((r) => setTimeout(r, 100));
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const s = await Session.open(file);
  let nodes = 0;
  let bytes = 0;
  const live = s.index.live();
  const script = join(__dirname, '..', 'dist', 'projector.js');
  await projectInWorker(script, { file, until: s.readSize, part: 1000 }, { count: live.length, leafId: s.leafId }, (part) => {
    nodes += part.count;
    bytes += part.packed.byteLength;
  });
  h.disable();
  process.stdout.write(`${JSON.stringify({ maxBlockMs: h.max / 1e6, nodes, bytes })}\n`);
}

void main(process.argv[2]);
