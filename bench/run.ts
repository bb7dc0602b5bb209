// `npm run bench`: every figure is a same-run comparison or a ratio (these machines are noisy), with
// min / median / max of several runs. Prints one table and writes it to BENCHMARKS.md. Every session
// it measures is generated here (bench/shapes.ts; .bench/ keeps them between runs).
// BENCH_ONLY=open,fixtures,host,append,roundtrip,sidebar,bridge,webview,tail,compare,checkpoints,variants,variantsrun,streamsteps,restorepreview,editorrestore,1m,panel1m
// (the tree panel part of 1m),click picks parts (then
// BENCHMARKS.md is left alone unless BENCH_WRITE=1); BENCH_RUNS sets the runs (default 5; 3 at 1M).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { cliMillion, cloneFork, openContext } from './cliBench';
import { bridgeBench } from './bridgeBench';
import { appendReflected, hostOpen, roundTrip, sidebar } from './hostBench';
import { fmt, log, median, ROOT, rows, RUNS, WORK } from './report';
import { SHAPE_1M, SHAPES_100K, shapeFile } from './shapes';
import { compareBench, webview, webviewTail } from './webviewBench';
import { clickSection, runClickBench, withClickSection } from './click/index';
import { checkpointsBench } from './checkpoints';
import { variantsBench } from './variants';
import { variantsRunBench } from './variantsRun';
import { restorePreviewBench } from './restorePreview';
import { editorRestoreBench } from './editorRestore';
import { variantsStreamingBench } from './variantsStreaming';

const ONLY = process.env.BENCH_ONLY?.split(',');
const want = (name: string) => !ONLY || ONLY.includes(name);
const RUNS_1M = Number(process.env.BENCH_RUNS_1M ?? Math.min(RUNS, 3));

async function main() {
  mkdirSync(WORK, { recursive: true });
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) spawnSync('npm', ['run', 'build'], { stdio: 'inherit', cwd: ROOT });
  const load0 = loadavg()[0];
  const started = performance.now();
  const shape = (key: string) =>
    shapeFile(
      WORK,
      SHAPES_100K.find((x) => x.key === key)!,
      log,
    );
  const big = shape('mixed');
  if (want('open'))
    for (const s of SHAPES_100K)
      await openContext(`open + context, 100k entries, ${s.title}`, shapeFile(WORK, s, log), false, {
        speed: 4,
        rss: 1 / 3,
      });
  const fixtures = join(ROOT, 'test', 'fixtures', 'real');
  if (want('fixtures'))
    for (const f of readdirSync(fixtures).filter((x) => x.endsWith('.jsonl')))
      await openContext(`open + context, real fixture ${f}`, join(fixtures, f), true, { speed: 4, rss: 1 / 3 });
  if (want('host')) hostOpen('100k entries (mixed)', big, RUNS, {});
  if (want('append')) await appendReflected(big);
  if (want('roundtrip')) await roundTrip(big);
  if (want('sidebar')) await sidebar();
  if (want('bridge')) await bridgeBench(); // a real pi 1.6.0 with the bridge
  if (want('webview')) webview();
  if (want('tail')) {
    const dump = join(WORK, 'snapshot-100k.jsonl');
    const host = hostOpen('100k entries (small messages)', shape('small'), 1, {}, dump);
    webviewTail('100k', dump, host[0].readyMs, 24, undefined, host[0].firstScreenMs);
  }
  if (want('compare')) compareBench();
  if (want('checkpoints')) await checkpointsBench();
  if (want('variants')) await variantsBench();
  if (want('variantsrun')) await variantsRunBench(); // a real pi 1.6.0 with the bridge
  if (want('streamsteps')) await variantsStreamingBench(); // real VS Code, four real pi 1.6.0 streaming
  if (want('restorepreview')) await restorePreviewBench(); // real VS Code
  if (want('editorrestore')) await editorRestoreBench(); // real VS Code, with a real pi 1.6.0 and without
  if (want('click')) runClickBench(ROOT, log); // its own section of BENCHMARKS.md (real VS Code)
  if (want('1m')) {
    const file = shapeFile(WORK, SHAPE_1M, log);
    await cliMillion(file, RUNS_1M);
    await cloneFork(shape('small'), file, Math.min(RUNS_1M, 2));
  }
  if (want('1m') || want('panel1m')) {
    const file = shapeFile(WORK, SHAPE_1M, log);
    const dump = join(WORK, 'snapshot-1m.jsonl');
    // The first paint (< 3 s) is the first screen's (its row, from webviewTail); the whole tree follows.
    const host = hostOpen('1M entries', file, RUNS_1M, { heapMb: 300 }, dump);
    const firstScreens = host.map((h) => h.firstScreenMs).filter((x): x is number => x !== undefined);
    webviewTail(
      '1M',
      dump,
      median(host.map((h) => h.readyMs)),
      24,
      3000,
      firstScreens.length ? median(firstScreens) : undefined,
    );
  }
  const minutes = (performance.now() - started) / 60000;
  const load = `load average ${fmt(load0, 1)} at the start, ${fmt(loadavg()[0], 1)} at the end`;
  log(`bench took ${fmt(minutes, 1)} min (${load})`);
  if (ONLY) {
    // A partial run (while profiling) leaves BENCHMARKS.md alone; with BENCH_WRITE=1 it replaces its own
    // rows there, each marked with the day and load of this run.
    for (const r of rows)
      process.stdout.write(
        `${r.what}: ${r.result} ${r.floor ?? ''} ${r.pass === undefined ? '' : r.pass ? 'met' : 'NOT MET'}\n`,
      );
    if (process.env.BENCH_WRITE === '1') {
      const when = `${new Date().toISOString().slice(0, 10)}, ${load}`;
      writeFileSync(
        join(ROOT, 'BENCHMARKS.md'),
        withRows(
          readFileSync(join(ROOT, 'BENCHMARKS.md'), 'utf8'),
          rows.map((r) => ({ ...r, result: `${r.result} (measured alone on ${when})` })),
        ),
      );
    }
    return;
  }
  const table = [
    '| what | how | target | result: min / **median** / max | vs the floor | |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map(rowLine),
  ].join('\n');
  const cpu = cpus();
  const base = `# Benchmarks\n\nWritten by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} (${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, Node ${process.version}; ${load}; ${fmt(minutes, 1)} minutes). Ratios are same-run comparisons; wall times, unless CPU time is named. The floor is a process that reads the file and counts its newlines.\n\nOn a shared machine the wall times grow with the load (the floor's own time shows by how much); the ratios against pi (pairs run back to back) and the CPU times are the figures that hold from run to run. A ❌ is a goal not met in this run.\n\n${table}\n`;
  const old = readFileSync(join(ROOT, 'BENCHMARKS.md'), 'utf8');
  const md = withClickSection(base + notesOf(old), clickSection(old));
  writeFileSync(join(ROOT, 'BENCHMARKS.md'), md);
  process.stdout.write(`${table}\n`);
  if (readFileSync(join(ROOT, 'BENCHMARKS.md'), 'utf8') !== md) throw new Error('BENCHMARKS.md not written');
}

/** The notes written by hand between their markers in `md` (kept when the table is rewritten), or ''. */
function notesOf(md: string): string {
  const START = '<!-- notes:start -->';
  const END = '<!-- notes:end -->';
  const a = md.indexOf(START);
  const b = md.indexOf(END);
  return a >= 0 && b > a ? `\n${md.slice(a, b + END.length)}\n` : '';
}

function rowLine(r: (typeof rows)[number]): string {
  return `| ${r.what} | ${r.how} | ${r.target} | ${r.result} | ${r.floor ?? ''} | ${r.pass === undefined ? '' : r.pass ? '✅' : '❌'} |`;
}

/** `md` with the table rows of the same "what" replaced by `fresh` (new ones at the end of the first table). */
function withRows(md: string, fresh: typeof rows): string {
  const lines = md.split('\n');
  const cell = (l: string) => l.split(' | ')[0].slice(2);
  for (const r of fresh) {
    const at = lines.findIndex((l) => l.startsWith('| ') && cell(l) === r.what);
    if (at >= 0) lines[at] = rowLine(r);
    else {
      let end = lines.findIndex((l) => l.startsWith('| '));
      while (lines[end]?.startsWith('| ')) end++;
      lines.splice(end, 0, rowLine(r)); // after the first table's last row
    }
  }
  return lines.join('\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
