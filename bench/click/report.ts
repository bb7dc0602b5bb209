// The click benchmark's figures as the "From the click, in real VS Code" section of BENCHMARKS.md:
// min / median / max against the targets, where the time of an open goes (medians of the milestones
// on one timeline, from the click, and CPU time by process), the same for a step and a move, then the
// hand-kept analysis (bench/click/notes.md).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClickSample, MoveSample, StepSample } from './measure';
import { END, START } from './section';

export interface ClickResults {
  open: Record<number, { bytes: number; samples: (ClickSample & { load: number })[] }>;
  /** The same session opened again in the same window, after its tab was closed. */
  again: Record<number, ClickSample[]>;
  /** The first open in a second window of the same browser (VS Code's webview service worker installed). */
  newWindow: Record<number, ClickSample[]>;
  steps: (StepSample & { entries: number })[];
  moves: (MoveSample & { entries: number })[];
  /** Moves the bench could not set up or see (each the first line of its error). */
  moveFailures: string[];
}

const TARGETS: Record<number, number> = { 20000: 600, 100000: 1500 };
const STEP_TARGET = 50;
const MOVE_TARGET = 100;

export const median = (xs: number[]): number => {
  const s = [...xs].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '?');
const spread = (xs: number[]) => `${fmt(Math.min(...xs))} / **${fmt(median(xs))}** / ${fmt(Math.max(...xs))} ms`;
const mark = (xs: number[], target: number) => (median(xs) < target ? '✅' : '❌');
const byEntries = <T extends { entries: number }>(xs: T[]): [number, T[]][] =>
  [...new Set(xs.map((x) => x.entries))].map((n) => [n, xs.filter((x) => x.entries === n)]);

const WHICH = {
  first: (n: string) => `the first open (a ${n}-entry session) in a new browser profile`,
  window: (n: string) => `the first open (a ${n}-entry session) in a new window of a browser that has shown a webview`,
  again: (n: string) => `a second open of a ${n}-entry session in a window`,
};

function openBreakdown(n: number, s: ClickSample[], which: keyof typeof WHICH): string[] {
  const m = (f: (x: ClickSample) => number) => fmt(median(s.map(f)));
  const host = s.every((x) => x.host) ? s.map((x) => x.host!) : undefined;
  // Host milestones are from the panel's creation: placed on the click's timeline by the log line's time.
  const h = (k: string) => (host ? fmt(median(host.map((x, i) => x.created - s[i].t0 + x[k]))) : '?');
  const roles = [...new Set(s.flatMap((x) => Object.keys(x.cpu)))].sort(
    (a, b) => median(s.map((x) => x.cpu[b] ?? 0)) - median(s.map((x) => x.cpu[a] ?? 0)),
  );
  return [
    '',
    `Where the time of ${WHICH[which](fmt(n))} goes (medians of ${s.length}, ms from the click):`,
    '',
    '| | ms |',
    '| --- | --- |',
    `| the click reaches the workbench page | ${m((x) => x.dispatchMs)} |`,
    `| host: panel made (projection worker started) | ${host ? fmt(median(host.map((x, i) => x.created - s[i].t0))) : '?'} |`,
    `| host: session read and indexed on its thread | ${h('open')} |`,
    `| webview: VS Code's host frame made | ${m((x) => x.start.hostFrame)} |`,
    `| webview: content frame made (VS Code's service worker up) | ${m((x) => x.start.contentFrame)} |`,
    `| webview: pi-tree's HTML written | ${m((x) => x.start.apiScript)} |`,
    // Fetched only when the bundle is linked rather than put into the HTML (an older build, A/B runs).
    ...(s.some((x) => Number.isFinite(x.start.jsTo))
      ? [
          `| webview: webview.css fetched (request → response end) | ${m((x) => x.start.cssFrom)} → ${m((x) => x.start.cssTo)} |`,
          `| webview: webview.js fetched (request → response end) | ${m((x) => x.start.jsFrom)} → ${m((x) => x.start.jsTo)} |`,
        ]
      : []),
    `| webview: the bundle's modules evaluated | ${m((x) => x.start.acquired)} |`,
    `| webview: the app built, \`ready\` posted | ${m((x) => x.start.ready)} |`,
    `| host: the webview said it is ready | ${h('ready')} |`,
    `| host: first screen posted (the leaf, its path, the branches leaving it) | ${h('preview')} |`,
    `| webview: first screen arrived | ${m((x) => x.at.preview)} |`,
    `| host: first part posted | ${h('firstPart')} |`,
    `| host: last of ${fmt(s[0].parts)} parts posted | ${h('sent')} |`,
    `| webview: last part arrived | ${m((x) => x.at.lastPart)} |`,
    `| webview: first graph node painted | ${m((x) => x.at.painted)} |`,
    `| webview: whole tree applied (model, derive, layout, render) | ${m((x) => x.at.lastPartHandled)} |`,
    `| webview: whole tree painted | ${m((x) => x.at.wholePainted)} |`,
    '',
    `CPU time from the click to the paint, by process (medians): ${roles.map((r) => `${r} ${fmt(median(s.map((x) => x.cpu[r] ?? 0)))} ms`).join(', ')}.`,
    ...(s.every((x) => x.cpuWhole)
      ? [
          '',
          `To the whole tree painted: ${roles.map((r) => `${r} ${fmt(median(s.map((x) => x.cpuWhole[r] ?? 0)))} ms`).join(', ')}.`,
        ]
      : []),
  ];
}

export function report(r: ClickResults, about: { date: string; machine: string; runs: number }): string {
  const rows: string[] = [];
  for (const [n, o] of Object.entries(r.open)) {
    const xs = o.samples.map((s) => s.ms);
    const t = TARGETS[Number(n)];
    rows.push(
      `| click on the sidebar row → first graph node painted, ${fmt(Number(n))} entries (${fmt(o.bytes / 1e6)} MB): the first webview of a new browser profile, clicked in the browser's first seconds (VS Code then waits 2–4 s on its webview service worker; its own Markdown preview takes as long: bench/click/firstWebview.ts) | ${t ? `< ${fmt(t)} ms` : ''} | ${spread(xs)} | ${xs.length} | ${t ? mark(xs, t) : ''} |`,
    );
    const other = r.newWindow[Number(n)]?.map((s) => s.ms);
    if (other?.length)
      rows.push(
        `| the same, the first open in a new window of that browser (the service worker is there) | ${t ? `< ${fmt(t)} ms` : ''} | ${spread(other)} | ${other.length} | ${t ? mark(other, t) : ''} |`,
      );
    const again = r.again[Number(n)]?.map((s) => s.ms);
    if (again?.length)
      rows.push(
        `| the same, opened again in a window (tab closed first) | ${t ? `< ${fmt(t)} ms` : ''} | ${spread(again)} | ${again.length} | ${t ? mark(again, t) : ''} |`,
      );
    const whole = [...o.samples, ...(r.newWindow[Number(n)] ?? []), ...(r.again[Number(n)] ?? [])].map(
      (s) => s.at.wholePainted,
    );
    rows.push(
      `| click → the whole tree painted (all ${fmt(Number(n))} entries in), every kind of open above | | ${spread(whole)} | ${whole.length} | |`,
    );
  }
  for (const [n, xs] of byEntries(r.steps))
    rows.push(
      `| ↑ in the tree → new selection painted, ${fmt(n)} entries | < ${STEP_TARGET} ms | ${spread(xs.map((x) => x.ms))} | ${xs.length} | ${mark(
        xs.map((x) => x.ms),
        STEP_TARGET,
      )} |`,
    );
  for (const [n, xs] of byEntries(r.moves))
    rows.push(
      `| "Move here" clicked → leaf mark painted on the target, ${fmt(n)} entries | < ${MOVE_TARGET} ms | ${spread(xs.map((x) => x.ms))} | ${xs.length} | ${mark(
        xs.map((x) => x.ms),
        MOVE_TARGET,
      )} |`,
    );

  const loads = Object.values(r.open).flatMap((o) => o.samples.map((s) => s.load));
  const lines = [
    START,
    '## From the click, in real VS Code',
    '',
    `Written by \`BENCH_ONLY=click npm run bench\` (bench/click.ts) on ${about.date} (${about.machine}; load average ${loads.map((l) => l.toFixed(1)).join(', ')} at the clicks). ` +
      "code-server 4.139.1 (VS Code 1.139.1) with the built extension, headless Chromium (software raster), 1400×900; per sample a fresh VS Code and browser profile (its first open is the first webview that profile shows), then the same session again in that window after its tab was closed, then the first open in a second window of that browser; sessions generated in pi 1.6.0's shape and layout (the 100k one is the table's above). " +
      'From `Date.now()` in the workbench page right before Playwright dispatches the click or key, to `Date.now()` in the webview after the frame that shows the result (a requestAnimationFrame, then a task). min / **median** / max.',
    '',
    '| what | target | min / median / max | samples | |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ];
  for (const [n, o] of Object.entries(r.open)) lines.push(...openBreakdown(Number(n), o.samples, 'first'));
  for (const [n, s] of Object.entries(r.newWindow)) if (s.length) lines.push(...openBreakdown(Number(n), s, 'window'));
  for (const [n, s] of Object.entries(r.again)) if (s.length) lines.push(...openBreakdown(Number(n), s, 'again'));
  for (const [n, xs] of byEntries(r.steps))
    lines.push(
      '',
      `A step at ${fmt(n)} (medians of ${xs.length}, ms from the key press): the key reaches the webview ${fmt(median(xs.map((x) => x.inputMs)))}, selection in the DOM ${fmt(median(xs.map((x) => x.domMs)))}, painted ${fmt(median(xs.map((x) => x.ms)))}.`,
    );
  if (r.moveFailures.length)
    lines.push(
      '',
      `${r.moveFailures.length} move(s) could not be run by the bench: ${[...new Set(r.moveFailures)].join('; ')}.`,
    );
  for (const [n, xs] of byEntries(r.moves))
    lines.push(
      '',
      `A move at ${fmt(n)} (medians of ${xs.length}, ms from the click): the click reaches the webview ${fmt(median(xs.map((x) => x.inputMs)))}, the host's leafMoved arrives ${fmt(median(xs.map((x) => x.leafMovedMs)))} and is handled ${fmt(median(xs.map((x) => x.handledMs)))}, leaf mark in the DOM ${fmt(median(xs.map((x) => x.domMs)))}, painted ${fmt(median(xs.map((x) => x.ms)))}.`,
    );
  const notes = join(__dirname, 'notes.md');
  if (existsSync(notes)) lines.push('', readFileSync(notes, 'utf8').trim());
  lines.push(END);
  return lines.join('\n');
}
