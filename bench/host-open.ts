// One run of "the extension host opens a session for the tree panel", in a process of its own (as a
// fresh extension host would), doing what the panel does to show it: read and index on this thread,
// project the snapshot in the worker thread started beside it (dist/projector.js, which packs each part as bytes that
// postMessage hands over without serializing); a 5 ms event-loop delay monitor records the longest block
// (wall clock, which a loaded machine inflates) and a setImmediate ticker the longest stretch of this
// thread's CPU time between two turns of the event loop (what the work holds the thread for).
// Usage: host-open.ts FILE [DUMP]: with DUMP, the messages are also written there, one a line, the
// packed bytes as base64 (bench/webviewTail.ts posts them to the webview as the host would).
// That worker first reads the file's end for the first screen (src/core/index/tailSession.ts), as the panel's
// does for a big file; with DUMP it goes to DUMP.firstScreen, posted first by webviewTail.ts.
// Prints {"maxBlockMs", "maxChunkCpuMs", "openMs", "readyMs", "firstScreenMs", "firstScreenNodes", "heapGrowthMb", "heapPeakGrowthMb", "nodes", "bytes"}:
// readyMs = until the last part is handed over; firstScreenMs = until the first screen's nodes are made; heap growth = this thread's heap and external memory
// (typed arrays) after / at their highest during the work, over before (run with --expose-gc so that "before" and "after" are live data).
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Session } from '../src/core/session/session.js';
import { cpuChunks } from './cpuChunks';
import { heapGrowth } from './heapGrowth';
import { useRun, WorkerRun } from '../src/host/projection/workerProjection.js';

/** The panel's session facts (as treeController sends them; the settings are the defaults). */
function meta(s: Session) {
  const file = s.path ?? '';
  return {
    fileName: file.slice(file.lastIndexOf('/') + 1),
    sessionId: s.header.id,
    cwd: String(s.header.cwd ?? ''),
    name: s.name,
    live: false,
    diagnostics: [],
    clickAction: 'select',
    summariesAvailable: true,
    restoreToken: 'bench',
  };
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

async function main(file: string, dump: string | undefined): Promise<void> {
  // Let start-up (module loading) settle before measuring.
  await new Promise((r) => setTimeout(r, 100));
  gc();
  // The index's columns are typed arrays (outside the JS heap): both count.
  const heap = heapGrowth(20);
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const chunks = cpuChunks();
  const t0 = performance.now();
  // As the panel does for a big file: the worker starts with it, reads the file's end for the first
  // screen, then the whole file; this thread reads and indexes it meanwhile.
  const script = join(__dirname, '..', 'dist', 'projector.js');
  const run = new WorkerRun(script, { file, part: 1000, firstScreen: true });
  const early = run.firstScreen.then((p) => p && { p, ms: performance.now() - t0 });
  const s = await Session.open(file);
  const openMs = performance.now() - t0;
  heap.sample();
  let nodes = 0;
  let bytes = 0;
  const fd = dump ? openSync(dump, 'w') : -1;
  const count = s.index.size;
  const first = await early;
  if (dump && first)
    writeFileSync(
      `${dump}.firstScreen`,
      `${JSON.stringify({ type: 'firstScreen', rev: 1, meta: meta(s), leafId: first.p.leafId, nodes: first.p.nodes })}\n`,
    );
  let rev = 2;
  await useRun(run, { count, leafId: s.leafId }, (part, from) => {
    nodes += part.count;
    bytes += part.packed.byteLength;
    if (fd < 0) return;
    const packed64 = Buffer.from(part.packed.buffer, part.packed.byteOffset, part.packed.byteLength).toString('base64');
    const msg =
      from === 0
        ? { type: 'snapshot', rev, meta: meta(s), leafId: s.leafId, packed64, total: count }
        : { type: 'snapshotPart', rev, packed64 };
    writeSync(fd, `${JSON.stringify(msg)}\n`);
  });
  rev++;
  const readyMs = performance.now() - t0;
  h.disable();
  const maxChunkCpuMs = chunks.stop();
  if (fd >= 0) closeSync(fd);
  const grown = heap.stop(gc);
  if (s.index.size !== nodes) throw new Error(`projected ${nodes} of ${s.index.size} entries`);
  process.stdout.write(
    `${JSON.stringify({ maxBlockMs: h.max / 1e6, maxChunkCpuMs, openMs, readyMs, heapGrowthMb: grown.afterMb, heapPeakGrowthMb: grown.peakMb, nodes, bytes, leafId: s.leafId, firstScreenMs: first?.ms, firstScreenNodes: first?.p.nodes.length })}\n`,
  );
}

void main(process.argv[2], process.argv[3]);
