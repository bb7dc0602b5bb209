// One run of "the extension host opens a 100k-entry session", in a process of its own (as a fresh
// extension host would): read and index, project the snapshot in parts and serialize each part as
// VS Code's postMessage does (nothing kept, as the tree panel does), build the context, while a 5 ms
// event-loop delay monitor records the longest block. Prints {"maxBlockMs": …}.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Session } from '../src/core/session.js';
import { Projector, projectParts } from '../src/host/projection.js';

async function main(file: string): Promise<void> {
  // Let start-up (module loading) settle before measuring.
  await new Promise((r) => setTimeout(r, 100));
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const s = await Session.open(file);
  let nodes = 0;
  let bytes = 0;
  await projectParts(s.index, s.index.live(), s, new Projector(s.index), 5000, (part) => {
    nodes += part.length;
    bytes += JSON.stringify({ type: 'snapshotPart', rev: 1, nodes: part }).length;
  });
  await s.buildContext();
  h.disable();
  process.stdout.write(`${JSON.stringify({ maxBlockMs: h.max / 1e6, nodes, bytes })}\n`);
}

void main(process.argv[2]);
