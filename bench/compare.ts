// Compare benchmark (prints JSON): two 50k-entry branches of a 100k-entry session, as the compare view
// shows them. In a fresh process, with the session open (as it is behind the tree the user compares
// from): the host's first screen (both paths split at their common ancestor, turns aligned, the first
// rows read and the message serialized), then each side's totals (every assistant line summed as pi
// sums usage), with a 5 ms event-loop delay monitor over all of it; then the first screen drawn by the
// compare view in headless Chromium (message → painted frame). Medians of several runs.
// Run: node_modules/.bin/node --import tsx bench/compare.ts FILE ID_A ID_B   (needs `npm run build`)
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { pathOf, prepareCompare, splitPaths, summarizeSide, turnViews } from '../src/core/changes/compare.js';
import { entryText } from '../src/core/context/entryText.js';
import { Session } from '../src/core/session/session.js';
import type { CompareHostMessage } from '../src/compareProtocol.js';
import { CHROMIUM, CHROMIUM_ARGS, serve } from '../test/webview/helpers/browser';
import { cpuChunks } from './cpuChunks';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const FIRST_ROWS = 30;
const median = (a: number[]) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** What ComparePanel.sendFirstScreen does, timed; returns the message it would post. */
async function firstScreen(
  s: Session,
  a: string,
  b: string,
): Promise<{ ms: number; json: string; sides: [number, number] }> {
  const t0 = performance.now();
  const p = await prepareCompare(s, a, s, b);
  const split = p.split;
  const ta = p.turnsA;
  const tb = p.turnsB;
  const rows = p.rows.slice(0, FIRST_ROWS);
  const pick = (side: 'a' | 'b') => rows.map((r) => r[side]).filter((t) => !!t);
  const va = await turnViews(s, split.a, ta, ta.indexOf(pick('a')[0]!), ta.indexOf(pick('a')[0]!) + pick('a').length);
  const vb = await turnViews(s, split.b, tb, tb.indexOf(pick('b')[0]!), tb.indexOf(pick('b')[0]!) + pick('b').length);
  const anc = split.ancestorId ? s.index.get(split.ancestorId)! : undefined;
  const [ae] = anc ? await s.load([anc]) : [undefined];
  const side = (id: string, n: number) => ({
    title: 'bench',
    fileName: 'bench.jsonl',
    nodeId: id,
    nodeText: '',
    entries: n,
  });
  const msg: CompareHostMessage = {
    type: 'compareView',
    view: {
      ancestor: { id: split.ancestorId, text: ae ? entryText(ae) : '', time: anc?.time ?? 0, common: split.common },
      a: side(a, split.a.length),
      b: side(b, split.b.length),
      rows: p.rows.length,
    },
    rows: rows.map((r, k) => ({
      index: k,
      ...(r.a ? { a: va[pick('a').indexOf(r.a)] } : {}),
      ...(r.b ? { b: vb[pick('b').indexOf(r.b)] } : {}),
    })),
  };
  const json = JSON.stringify(msg); // VS Code serializes what postMessage sends on this thread
  return { ms: performance.now() - t0, json, sides: [split.a.length, split.b.length] };
}

async function main(file: string, a: string, b: string): Promise<void> {
  const hostMs: number[] = [];
  const totalsMs: number[] = [];
  const blocks: number[] = [];
  const chunks: number[] = [];
  let json = '';
  let sides: [number, number] = [0, 0];
  for (let i = 0; i < RUNS; i++) {
    // A fresh session per run (nothing cached from the run before); the tree has it open already.
    const s = await Session.open(file);
    await new Promise((r) => setTimeout(r, 50));
    const h = monitorEventLoopDelay({ resolution: 5 });
    h.enable();
    const cpu = cpuChunks();
    const fs = await firstScreen(s, a, b);
    hostMs.push(fs.ms);
    json = fs.json;
    sides = fs.sides;
    const t1 = performance.now();
    const split = splitPaths(s, pathOf(s, a), s, pathOf(s, b));
    const since = split.ancestorId ? s.index.get(split.ancestorId)?.time : undefined;
    await summarizeSide(s, split.a, since);
    await summarizeSide(s, split.b, since);
    totalsMs.push(performance.now() - t1);
    h.disable();
    blocks.push(h.max / 1e6);
    chunks.push(cpu.stop());
  }
  // The compare view draws that first screen.
  const srv = await serve({ view: 'compare' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const paints: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.addInitScript(`window.__name = (f) => f; window.acquireVsCodeApi = () => ({ postMessage() {} });`);
      await page.goto(srv.url);
      await page.waitForFunction(() => !!(window as unknown as { __piTree?: unknown }).__piTree);
      await page.evaluate((j) => ((window as unknown as { __msg: unknown }).__msg = JSON.parse(j)), json);
      paints.push(
        await page.evaluate(
          () =>
            new Promise<number>((resolve) => {
              const t0 = performance.now();
              // The app marks the frame it built the rows in; then that frame's paint is committed.
              const obs = new PerformanceObserver((list) => {
                if (!list.getEntries().some((e) => e.name === 'pi-tree:compare-rendered' && e.startTime >= t0)) return;
                obs.disconnect();
                requestAnimationFrame(() => {
                  const ch = new MessageChannel();
                  ch.port1.onmessage = () => resolve(performance.now() - t0);
                  ch.port2.postMessage(0);
                });
              });
              obs.observe({ entryTypes: ['mark'] });
              window.postMessage((window as unknown as { __msg: unknown }).__msg, '*');
            }),
        ),
      );
      const rows = await page.locator('.cmp-row').count();
      if (rows !== FIRST_ROWS) throw new Error(`the compare view drew ${rows} rows`);
      await page.close();
    }
  } finally {
    await browser.close();
    await srv.close();
  }
  process.stdout.write(
    `${JSON.stringify({ sides, hostFirstScreenMs: median(hostMs), paintMs: median(paints), firstScreenMs: median(hostMs) + median(paints), totalsMs: median(totalsMs), maxBlockMs: median(blocks), worstBlockMs: Math.max(...blocks), maxChunkCpuMs: median(chunks), worstChunkCpuMs: Math.max(...chunks), messageBytes: json.length })}\n`,
  );
}

void main(process.argv[2], process.argv[3], process.argv[4]).catch((e) => {
  console.error(e);
  process.exit(1);
});
