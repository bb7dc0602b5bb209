// One build of the fork pick's labels (piTree.forkFromMessage), in a process of its own: the session is
// opened first (not measured), then the labels are built the way `mode` names: `old`, every live user
// message loaded whole (the command before src/core/listing/messageLabels.ts), or `new`, userMessageLabels.
// Usage: fork-labels.ts FILE old|new (run with --expose-gc)
// Prints {"mode", "labels", "ms", "cpuMs", "maxChunkCpuMs", "maxBlockMs", "heapPeakGrowthMb", "heapGrowthMb"}: ms until
// the labels are there; this thread's CPU time in that while; the longest stretch of this thread's CPU time between two event-loop turns; the
// longest event-loop delay (wall clock, which a loaded machine inflates); this thread's heap and external
// memory at its highest during the build and after it (the labels still held), over before.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { userMessageLabels, type MessageLabel } from '../src/core/listing/messageLabels.js';
import { fullText } from '../src/core/context/entryText.js';
import { Session } from '../src/core/session/session.js';
import { oneLine } from '../src/core/listing/sessionTitle.js';
import { messageOf } from '../src/core/format/types.js';
import { cpuChunks } from './cpuChunks';
import { heapGrowth } from './heapGrowth';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

async function oldLabels(s: Session): Promise<MessageLabel[]> {
  const users = s.index.live().filter((r) => r.type === 'message' && r.role === 'user');
  const entries = await s.load(users);
  return users
    .map((r, i) => ({ r, e: entries[i] }))
    .filter((x) => x.e)
    .map(({ r, e }) => ({
      label: oneLine(fullText(messageOf(e!)?.content), 100),
      description: new Date(r.time).toLocaleString(),
      id: r.id,
    }))
    .filter((x) => x.label.trim())
    .reverse();
}

async function main(file: string, mode: string): Promise<void> {
  const s = await Session.open(file);
  await new Promise((r) => setTimeout(r, 100));
  gc();
  const heap = heapGrowth(10);
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const chunks = cpuChunks();
  const cpu0 = process.threadCpuUsage();
  const t0 = performance.now();
  const labels = mode === 'old' ? await oldLabels(s) : await userMessageLabels(s);
  const ms = performance.now() - t0;
  const cpu = process.threadCpuUsage(cpu0);
  h.disable();
  const maxChunkCpuMs = chunks.stop();
  const grown = heap.stop(gc);
  process.stdout.write(
    `${JSON.stringify({ mode, labels: labels.length, ms, cpuMs: (cpu.user + cpu.system) / 1000, maxChunkCpuMs, maxBlockMs: h.max / 1e6, heapPeakGrowthMb: grown.peakMb, heapGrowthMb: grown.afterMb, first: labels[0]?.label.slice(0, 40) })}\n`,
  );
}

void main(process.argv[2], process.argv[3]);
