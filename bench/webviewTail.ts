// A big session in the webview (headless Chromium), from the snapshot parts the host really sends
// (bench/host-open.ts DUMP): first paint from the first part's arrival, then entries appended under the
// leaf as pi appends them (a tool call, its result, an answer, a user message), each posted as the host
// posts it (`appended` with the leaf it moved to) and timed to the painted frame; the webview's own work for
// the pass is read from its timings. Prints JSON; heapMb: the JS heap in use at the end, liveMb: after a
// full collection.
// Usage: node --import tsx bench/webviewTail.ts DUMP [APPENDS]   (needs `npm run build` first)
import { existsSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, serve } from '../test/webview/helpers/browser';
import { freshPage, median, r1 } from './webviewPage';

const KINDS = [
  { type: 'message', role: 'assistant', kind: 'assistant', text: '', noText: true, tools: ['read'] },
  { type: 'message', role: 'toolResult', kind: 'toolResult', text: '[read: src/core/reader.ts]', tools: ['read'] },
  { type: 'message', role: 'assistant', kind: 'assistant', text: 'assistant: the reader reads it in slices' },
  { type: 'message', role: 'user', kind: 'user', text: 'user: and now the tests' },
];

/**
 * `window.__painted(t0, task)`, put into the page: resolves with performance.now() once the app has
 * rendered (its `pi-tree:rendered` mark) after `t0` and that frame has run (a requestAnimationFrame,
 * then, with `task`, a task after it: the frame is painted). Armed before the message is posted. A
 * string: it runs in the page, not through tsx's transforms.
 */
const PAINTED = `window.__painted = (t0, task) => new Promise((resolve) => {
  const obs = new PerformanceObserver((list) => {
    if (!list.getEntries().some((e) => e.name === 'pi-tree:rendered' && e.startTime >= t0)) return;
    obs.disconnect();
    requestAnimationFrame(() => {
      if (!task) return resolve(performance.now());
      const ch = new MessageChannel();
      ch.port1.onmessage = () => resolve(performance.now());
      ch.port2.postMessage(0);
    });
  });
  obs.observe({ entryTypes: ['mark'] });
});`;
type Painted = { __painted(t0: number, task: boolean): Promise<number> };

async function main(dump: string, appends: number): Promise<void> {
  const lines = readFileSync(dump, 'utf8').split('\n').filter(Boolean);
  const first = JSON.parse(lines[0]) as { leafId: string; total?: number; nodes?: unknown[] };
  const srv = await serve();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, '--js-flags=--max-old-space-size=8192'],
  });
  try {
    const page = await freshPage(browser, srv.url);
    await page.evaluate(PAINTED);
    // The first screen read from the file's end (DUMP.firstScreen), as the panel posts it when the webview is ready.
    const firstScreenFile = `${dump}.firstScreen`;
    const firstScreen = existsSync(firstScreenFile)
      ? await page.evaluate((line) => {
          const w = window as unknown as Painted & { __piTree: { stats(): { items: number } } };
          const m = JSON.parse(line) as { nodes: unknown[] };
          const t0 = performance.now();
          const painted = w.__painted(t0, true);
          window.postMessage(m, '*');
          return painted.then((now) => ({ ms: now - t0, items: w.__piTree.stats().items, nodes: m.nodes.length }));
        }, readFileSync(firstScreenFile, 'utf8').trim())
      : undefined;
    await page.evaluate(() => ((window as unknown as { __parts: string[] }).__parts = []));
    for (let i = 0; i < lines.length; i += 20)
      await page.evaluate(
        (ls) => (window as unknown as { __parts: string[] }).__parts.push(...ls),
        lines.slice(i, i + 20),
      );
    const paint = await page.evaluate(() => {
      const w = window as unknown as Painted & {
        __parts: string[];
        __piTree: { stats(): { items: number }; lastMessageAt(): number; timings(): Record<string, number> };
      };
      // The packed parts as VS Code hands them over (bytes, no JSON on the way), made before the clock starts.
      const msgs = w.__parts.map((p) => {
        const m = JSON.parse(p) as { packed64?: string; packed?: Uint8Array };
        if (m.packed64 !== undefined) {
          const bin = atob(m.packed64);
          const u = new Uint8Array(bin.length);
          for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
          m.packed = u;
          delete m.packed64;
        }
        return m;
      });
      w.__parts = [];
      const t0 = performance.now();
      const painted = w.__painted(t0, true);
      // Each part posted (structured clone) as its own message.
      for (const m of msgs) window.postMessage(m, '*');
      return painted.then((now) => ({
        ms: now - t0,
        fromLastPart: now - w.__piTree.lastMessageAt(),
        items: w.__piTree.stats().items,
        timings: w.__piTree.timings(),
      }));
    });
    let leafId = first.leafId;
    let time = Date.UTC(2030, 0, 1);
    const work: number[] = [];
    const passMs: number[] = [];
    const renderMs: number[] = [];
    const painted: number[] = [];
    const passes: Record<string, number> = {};
    for (let k = 0; k < appends; k++) {
      const node = {
        ...KINDS[k % KINDS.length],
        id: `f${k.toString(16).padStart(7, '0')}`,
        parentId: leafId,
        time: (time += 1000),
      };
      const r = await page.evaluate(
        ({ node, rev }) => {
          const w = window as unknown as Painted & { __piTree: { timings(): Record<string, number> } };
          const t0 = performance.now();
          // the graph draws in the frame after the pass: its time is read once that frame has run
          const painted = w.__painted(t0, false);
          window.postMessage({ type: 'appended', rev, nodes: [node], leafId: node.id }, '*');
          return painted.then((now) => ({ ms: now - t0, timings: w.__piTree.timings() }));
        },
        { node, rev: 2 + 2 * k },
      );
      leafId = node.id;
      const kind = r.timings.tail !== undefined ? 'incremental' : 'full';
      passes[kind] = (passes[kind] ?? 0) + 1;
      // The pass (and what the app does after it) plus the graph's draw.
      work.push(r.timings.total + r.timings.render);
      passMs.push(r.timings.total);
      renderMs.push(r.timings.render);
      painted.push(r.ms);
    }
    const usedHeap = () =>
      page.evaluate(
        () => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0,
      );
    const heap = await usedHeap();
    // What the page holds: the heap after a full collection (heapMb also counts garbage not collected
    // yet, much of it the benchmark's own copies of the parts, so it varies from run to run).
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    const live = await usedHeap();
    const mmm = (a: number[]) => ({ min: r1(Math.min(...a)), median: r1(median(a)), max: r1(Math.max(...a)) });
    // The first appends warm the code up; the rest are what a running session sees.
    const steady = Math.min(4, Math.floor(appends / 2));
    process.stdout.write(
      `${JSON.stringify({
        nodes: first.total ?? first.nodes?.length ?? 0,
        firstScreen: firstScreen && { ms: r1(firstScreen.ms), items: firstScreen.items, nodes: firstScreen.nodes },
        parts: lines.length,
        firstPaint: {
          fromFirstPartMs: r1(paint.ms),
          fromLastPartMs: r1(paint.fromLastPart),
          items: paint.items,
          derive: r1(paint.timings.derive),
          layout: r1(paint.timings.layout),
          pass: r1(paint.timings.total),
        },
        appended: {
          runs: appends - steady,
          workMs: mmm(work.slice(steady)),
          passMs: mmm(passMs.slice(steady)),
          drawMs: mmm(renderMs.slice(steady)),
          paintedMs: mmm(painted.slice(steady)),
          passes,
        },
        heapMb: Math.round(heap / 1e6),
        liveMb: Math.round(live / 1e6),
      })}\n`,
    );
  } finally {
    await browser.close();
    await srv.close();
  }
}

void main(process.argv[2], Number(process.argv[3] ?? 24)).catch((e) => {
  console.error(e);
  process.exit(1);
});
