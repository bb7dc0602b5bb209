// Click benchmark in the real VS Code (code-server + headless Chromium, as the e2e tests run it): what
// the user waits for, from the input to the painted frame in the webview.
//  (a) a click on a session's sidebar row → the first graph node painted, for generated 20k- and
//      100k-entry sessions in pi's layout (a fresh VS Code per sample: the first open in a window;
//      then again in that window, after its tab was closed);
//  (b) ↑ in the tree → the new selection painted (in the 100k session);
//  (c) "Move here" clicked → the leaf mark painted on the target (100k).
// Times are Date.now() in the workbench page right before Playwright dispatches the input, and
// Date.now() in the webview after the frame that shows the result (bench/click/probe.ts). Prints JSON
// and writes the "From the click" section of BENCHMARKS.md.
// Run: BENCH_ONLY=click npm run bench, or node_modules/.bin/node --import tsx bench/click.ts (after
// `npm run build`; needs code-server: node scripts/ensure-tools.mjs, or PI_TREE_CODE_SERVER_DIR).
// BENCH_CLICK_RUNS (default 3), BENCH_CLICK_SIZES (default 20000,100000), BENCH_CLICK_STEPS (10),
// BENCH_CLICK_MOVES (5); BENCH_CLICK_EXTENSION=<folder> runs another build (package.json + dist + media)
// instead of the checkout; BENCH_CLICK_TRACE=1 also records a Chrome trace of each kind of open (.bench/click/
// trace-<entries>-<run>[-again|-window].json; with BENCH_CLICK_PROFILE=1 a JS CPU profile of the page instead).
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { VSCode } from '../test/e2e/harness';
import { clickToFirstNode, closeTree, keyboardSteps, moves, type MoveSample, type StepSample } from './click/measure';
import { PROBE } from './click/probe';
import { clickSection, withClickSection } from './click/section';
import { benchSession, placeSession } from './click/sessions';
import { hostTimings } from './click/hostLog';
import { report, type ClickResults } from './click/report';

const ROOT = join(__dirname, '..');
const RUNS = Number(process.env.BENCH_CLICK_RUNS ?? 3);
const SIZES = (process.env.BENCH_CLICK_SIZES ?? '20000,100000').split(',').map(Number);
const STEPS = Number(process.env.BENCH_CLICK_STEPS ?? 10);
const MOVES = Number(process.env.BENCH_CLICK_MOVES ?? 5);
const log = (s: string) => process.stderr.write(`${s}\n`);

async function sample(entries: number, run: number, results: ClickResults): Promise<void> {
  const s = benchSession(join(ROOT, '.bench', 'click'), entries);
  const load = loadavg()[0];
  const ext = process.env.BENCH_CLICK_EXTENSION; // another built copy of the extension (A/B runs)
  const vs = await VSCode.launch(`click-bench-${entries}-${run}`, {
    sessions: ({ agentDir, workspace }) => void placeSession(s, agentDir, workspace),
    ...(ext ? { extension: 'none' as const, extraExtensions: [ext] } : {}),
  });
  let failure: unknown;
  try {
    await vs.context.addInitScript(PROBE);
    const trace = process.env.BENCH_CLICK_TRACE
      ? join(ROOT, '.bench', 'click', `trace-${entries}-${run}.json`)
      : undefined;
    const { sample, frame } = await clickToFirstNode(vs, s.name, trace);
    sample.host = hostTimings(vs.outputChannel());
    (results.open[entries] ??= { bytes: s.bytes, samples: [] }).samples.push({ ...sample, load });
    log(
      `${entries}: click → first node painted ${sample.ms} ms (load ${load.toFixed(1)}) ${JSON.stringify(sample.at)} start ${JSON.stringify(sample.start)} host ${JSON.stringify(sample.host)} cpu ${JSON.stringify(sample.cpu)} cpuWhole ${JSON.stringify(sample.cpuWhole)}`,
    );
    if (entries === Math.max(...SIZES)) {
      const steps: StepSample[] = await keyboardSteps(vs, frame, STEPS);
      results.steps.push(...steps.map((x) => ({ ...x, entries })));
      log(
        `${entries}: ↑ → selection painted ${steps.map((x) => `${x.ms} (key in ${x.inputMs}, DOM ${x.domMs})`).join(', ')} ms`,
      );
      const failed: string[] = [];
      const mv: MoveSample[] = await moves(vs, frame, MOVES, failed);
      results.moveFailures.push(...failed);
      if (failed.length) log(`${entries}: ${failed.length} move(s) could not be run: ${failed.join(' | ')}`);
      results.moves.push(...mv.map((x) => ({ ...x, entries })));
      log(
        `${entries}: move → leaf painted ${mv.map((x) => `${x.ms} (click in ${x.inputMs}, leafMoved ${x.leafMovedMs}, handled ${x.handledMs}, DOM ${x.domMs})`).join(', ')} ms`,
      );
    }
    // Again in the same window: the webview's service worker, the JIT and the page cache are warm.
    await closeTree(vs);
    const again = (await clickToFirstNode(vs, s.name, trace?.replace(/\.json$/, '-again.json'))).sample;
    again.host = hostTimings(vs.outputChannel(), 1);
    (results.again[entries] ??= []).push(again);
    log(
      `${entries}: again → first node painted ${again.ms} ms ${JSON.stringify(again.at)} start ${JSON.stringify(again.start)} host ${JSON.stringify(again.host)} cpu ${JSON.stringify(again.cpu)} cpuWhole ${JSON.stringify(again.cpuWhole)}`,
    );
    // A new window of the same browser: VS Code's webview service worker is installed (the first
    // window did it), as in any browser or VS Code profile that has shown a webview before.
    await closeTree(vs);
    const win = await vs.newWindow();
    const other = (await clickToFirstNode(win, s.name, trace?.replace(/\.json$/, '-window.json'))).sample;
    other.host = hostTimings(win.outputChannel(), -1);
    (results.newWindow[entries] ??= []).push(other);
    log(
      `${entries}: new window → first node painted ${other.ms} ms ${JSON.stringify(other.at)} start ${JSON.stringify(other.start)} host ${JSON.stringify(other.host)} cpu ${JSON.stringify(other.cpu)} cpuWhole ${JSON.stringify(other.cpuWhole)}`,
    );
    await win.screenshot('new-window');
    await vs.screenshot('end');
    vs.assertNoExtensionErrors();
  } catch (e) {
    failure = e;
    throw e;
  } finally {
    await vs.close(failure);
  }
}

async function main(): Promise<void> {
  const results: ClickResults = { open: {}, again: {}, newWindow: {}, steps: [], moves: [], moveFailures: [] };
  for (let run = 0; run < RUNS; run++) for (const n of SIZES) await sample(n, run, results);
  const cpu = cpus();
  const section = report(results, {
    date: new Date().toISOString().slice(0, 10),
    machine: `${cpu.length} × ${cpu[0]?.model ?? 'cpu'}`,
    runs: RUNS,
  });
  const file = join(ROOT, 'BENCHMARKS.md');
  if (!process.env.BENCH_CLICK_EXTENSION) {
    writeFileSync(file, withClickSection(readFileSync(file, 'utf8'), section));
    if (!clickSection(readFileSync(file, 'utf8'))) throw new Error('BENCHMARKS.md: the click section was not written');
  }
  // Kept, so that the section can be written again from them (bench/click/section.ts's format changes).
  writeFileSync(join(ROOT, '.bench', 'click', 'results.json'), JSON.stringify(results));
  process.stdout.write(`${JSON.stringify(results)}\n`);
  process.stderr.write(`${section}\n`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
