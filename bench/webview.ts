// Webview benchmark in headless Chromium (prints JSON): first paint of 10k- and 100k-entry sessions
// (targets < 300 ms and < 1.5 s) and frame time while panning with ~1k nodes in view (target ≤ 16 ms),
// plus the cost of applying a leaf move to a 100k session. Medians of several runs; sessions are
// generated deterministically (seeded) with deep chains, branch points, tool calls, compactions, labels.
// Run: node_modules/.bin/node --import tsx bench/webview.ts   (needs `npm run build` first)
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, serve } from '../test/webview/helpers/browser';
import { genSession } from '../test/webview/helpers/gen';
import type { HostMessage } from '../src/protocol';

const RUNS_10K = Number(process.env.BENCH_RUNS_10K ?? 5);
const RUNS_100K = Number(process.env.BENCH_RUNS_100K ?? 3);

// tsx (esbuild keepNames) wraps named inner functions in __name(); page.evaluate code needs it too.
const INIT = `window.__name = (f) => f; window.acquireVsCodeApi = () => ({ postMessage() {}, getState() { return undefined; }, setState() {} });`;

function median(a: number[]): number {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
function pct(a: number[], p: number): number {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}
const r1 = (x: number) => Math.round(x * 10) / 10;

async function freshPage(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.addInitScript(INIT);
  await page.goto(url);
  await page.waitForFunction(() => !!(window as unknown as { __piTree?: unknown }).__piTree);
  return page;
}

/** Posts the snapshot inside the page (structured clone, as VS Code delivers it) and times first paint. */
async function firstPaint(page: Page, snapshotJson: string): Promise<{ ms: number; items: number }> {
  await page.evaluate((json) => {
    (window as unknown as { __snap: unknown }).__snap = JSON.parse(json);
  }, snapshotJson);
  return page.evaluate(
    () =>
      new Promise<{ ms: number; items: number }>((resolve) => {
        const t0 = performance.now();
        const done = () => {
          // The frame after the first render has been produced: wait for its paint to be committed.
          requestAnimationFrame(() => {
            const ch = new MessageChannel();
            ch.port1.onmessage = () => {
              const w = window as unknown as { __piTree: { stats(): { items: number } } };
              resolve({ ms: performance.now() - t0, items: w.__piTree.stats().items });
            };
            ch.port2.postMessage(0);
          });
        };
        const obs = new PerformanceObserver((list) => {
          if (list.getEntries().some((e) => e.name === 'pi-tree:rendered' && e.startTime >= t0)) {
            obs.disconnect();
            done();
          }
        });
        obs.observe({ entryTypes: ['mark'] });
        window.postMessage((window as unknown as { __snap: unknown }).__snap, '*');
      }),
  );
}

function snapshot(n: number, branchRate: number, seed: number): { json: string; leafId: string } {
  const s = genSession({ n, branchRate, seed });
  const msg: HostMessage = {
    type: 'snapshot',
    rev: 1,
    meta: { fileName: `bench-${n}.jsonl`, sessionId: `bench-${n}-${seed}`, cwd: '/bench', live: false, diagnostics: [], clickAction: 'select', summariesAvailable: true },
    leafId: s.leafId,
    nodes: s.nodes,
  };
  return { json: JSON.stringify(msg), leafId: s.leafId };
}

/** Zooms until about `target` items intersect the viewport, then pans for `frames` frames. */
async function panFrames(page: Page, target: number, frames: number): Promise<Record<string, number>> {
  return page.evaluate(
    async ({ target, frames }) => {
      type G = { view: { x: number; y: number; k: number }; centerOn(x: number, y: number, k: number, a: boolean): void; panBy(dx: number, dy: number): void; maybeRender(): void; renderedCount: number };
      const w = window as unknown as { __piTree: { graph: G; inView(): number; layoutBounds(): { minX: number; maxX: number; maxY: number } } };
      const g = w.__piTree.graph;
      const b = w.__piTree.layoutBounds();
      // Find the densest spot on a coarse grid at a zoom that shows ~target items.
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      let best = { x: 0, y: 0, k: 1, n: 0 };
      for (const k of [0.5, 0.35, 0.25, 0.18, 0.13, 0.1, 0.07]) {
        for (let gx = 0; gx <= 6; gx++)
          for (let gy = 0; gy <= 6; gy++) {
            const x = b.minX + ((b.maxX - b.minX) * gx) / 6;
            const y = (b.maxY * gy) / 6;
            g.centerOn(x, y, k, false);
            const n = w.__piTree.inView();
            if (Math.abs(n - target) < Math.abs(best.n - target)) best = { x, y, k, n };
          }
      }
      g.centerOn(best.x, best.y, best.k, false);
      g.maybeRender();
      await frame();
      await frame();
      const work: number[] = [];
      const interval: number[] = [];
      let last = performance.now();
      let inView = 0;
      for (let f = 0; f < frames; f++) {
        await new Promise<void>((resolve) => {
          requestAnimationFrame((ts) => {
            interval.push(ts - last);
            last = ts;
            const t0 = performance.now();
            // A steady diagonal drag, back and forth so the view stays over the dense region.
            const dir = Math.floor(f / 60) % 2 ? -1 : 1;
            g.panBy(-7 * dir, -4 * dir);
            g.maybeRender();
            const ch = new MessageChannel();
            ch.port1.onmessage = () => {
              work.push(performance.now() - t0);
              resolve();
            };
            ch.port2.postMessage(0);
          });
        });
        inView += w.__piTree.inView();
      }
      interval.shift();
      const sort = (a: number[]) => [...a].sort((x, y) => x - y);
      const med = (a: number[]) => sort(a)[Math.floor(a.length / 2)];
      const p95 = (a: number[]) => sort(a)[Math.floor(a.length * 0.95)];
      return { zoom: best.k, nodesInView: Math.round(inView / frames), nodesInDom: g.renderedCount, workMedianMs: med(work), workP95Ms: p95(work), workMaxMs: Math.max(...work), frameIntervalMedianMs: med(interval), frameIntervalP95Ms: p95(interval) };
    },
    { target, frames },
  );
}

async function leafMove(page: Page, leafId: string): Promise<number> {
  return page.evaluate(
    (leafId) =>
      new Promise<number>((resolve) => {
        const w = window as unknown as { __piTree: { app: { model: { nodes: { id: string }[] } } } };
        const nodes = w.__piTree.app.model.nodes;
        const target = nodes[Math.floor(nodes.length / 3)].id;
        const t0 = performance.now();
        const obs = new PerformanceObserver((list) => {
          if (list.getEntries().some((e) => e.name === 'pi-tree:rendered' && e.startTime >= t0)) {
            obs.disconnect();
            requestAnimationFrame(() => resolve(performance.now() - t0));
          }
        });
        obs.observe({ entryTypes: ['mark'] });
        window.postMessage({ type: 'leafMoved', rev: 2, leafId: target === leafId ? nodes[0].id : target }, '*');
      }),
    leafId,
  );
}

async function main(): Promise<void> {
  if (!existsSync('dist/webview.js')) throw new Error('dist/webview.js is missing: run `npm run build` first');
  const srv = await serve();
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const out: Record<string, unknown> = { chromium: browser.version(), viewport: '1280x800', flags: '--disable-gpu (software raster)' };
  try {
    const s10 = snapshot(10_000, 0.02, 1);
    const s100 = snapshot(100_000, 0.02, 2);
    const runs10: number[] = [];
    let items10 = 0;
    for (let i = 0; i < RUNS_10K; i++) {
      const page = await freshPage(browser, srv.url);
      const r = await firstPaint(page, s10.json);
      runs10.push(r.ms);
      items10 = r.items;
      await page.close();
    }
    out.firstPaint10k = { medianMs: r1(median(runs10)), runsMs: runs10.map(r1), drawnNodes: items10, targetMs: 300, snapshotBytes: s10.json.length };
    const runs100: number[] = [];
    const moves: number[] = [];
    let items100 = 0;
    for (let i = 0; i < RUNS_100K; i++) {
      const page = await freshPage(browser, srv.url);
      const r = await firstPaint(page, s100.json);
      runs100.push(r.ms);
      items100 = r.items;
      await new Promise((res) => setTimeout(res, 300));
      moves.push(await leafMove(page, s100.leafId));
      await page.close();
    }
    out.firstPaint100k = { medianMs: r1(median(runs100)), runsMs: runs100.map(r1), drawnNodes: items100, targetMs: 1500, snapshotBytes: s100.json.length };
    out.leafMove100k = { medianMs: r1(median(moves)), runsMs: moves.map(r1), targetMs: 100 };
    // Panning: a bushy 100k session (5 % branch points) so that ~1k nodes fit in the viewport.
    const bushy = snapshot(100_000, 0.05, 3);
    const pans: Record<string, number>[] = [];
    for (let i = 0; i < 3; i++) {
      const page = await freshPage(browser, srv.url);
      await firstPaint(page, bushy.json);
      pans.push(await panFrames(page, 1000, 240));
      await page.close();
    }
    const m = (k: string) => r1(median(pans.map((p) => p[k])));
    out.pan = {
      nodesInView: m('nodesInView'),
      nodesInDom: m('nodesInDom'),
      zoom: pans[0].zoom,
      workPerFrameMedianMs: m('workMedianMs'),
      workPerFrameP95Ms: m('workP95Ms'),
      workPerFrameMaxMs: m('workMaxMs'),
      frameIntervalMedianMs: m('frameIntervalMedianMs'),
      frameIntervalP95Ms: m('frameIntervalP95Ms'),
      targetMs: 16,
      runs: pans.length,
      frames: 240,
    };
    out.p95 = { firstPaint10kMs: r1(pct(runs10, 95)), firstPaint100kMs: r1(pct(runs100, 95)) };
  } finally {
    await browser.close();
    await srv.close();
  }
  console.log(JSON.stringify(out, null, 2));
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
