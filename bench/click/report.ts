// The click benchmark's figures as the "From the click, in real VS Code" section of BENCHMARKS.md:
// min / median / max against the targets, and where the time of a 100k open goes (medians of the
// milestones on one timeline, from the click).
import type { ClickSample, MoveSample, StepSample } from './measure';
import { END, START } from './section';

export interface ClickResults {
  open: Record<number, { bytes: number; samples: (ClickSample & { load: number })[] }>;
  steps: (StepSample & { entries: number })[];
  moves: (MoveSample & { entries: number })[];
}

const TARGETS: Record<number, number> = { 20000: 600, 100000: 1500 };
const STEP_TARGET = 50;
const MOVE_TARGET = 100;

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const spread = (xs: number[]) => `${fmt(Math.min(...xs))} / **${fmt(median(xs))}** / ${fmt(Math.max(...xs))} ms`;
const mark = (xs: number[], target: number | undefined) => (target === undefined ? '' : median(xs) < target ? '✅' : '❌');

export function report(r: ClickResults, about: { date: string; machine: string; runs: number }): string {
  const rows: string[] = [];
  for (const [n, o] of Object.entries(r.open)) {
    const xs = o.samples.map((s) => s.ms);
    const t = TARGETS[Number(n)];
    rows.push(
      `| click on the sidebar row → first graph node painted, ${fmt(Number(n))} entries (${fmt(o.bytes / 1e6)} MB) | ${t ? `< ${fmt(t)} ms` : ''} | ${spread(xs)} | ${xs.length} | ${mark(xs, t)} |`,
    );
  }
  const byEntries = <T extends { entries: number }>(xs: T[]): [number, T[]][] => [...new Set(xs.map((x) => x.entries))].map((n) => [n, xs.filter((x) => x.entries === n)]);
  for (const [n, xs] of byEntries(r.steps))
    rows.push(
      `| ↑ in the tree → new selection painted, ${fmt(Number(n))} entries | < ${STEP_TARGET} ms | ${spread(xs.map((x) => x.ms))} | ${xs.length} | ${mark(
        xs.map((x) => x.ms),
        STEP_TARGET,
      )} |`,
    );
  for (const [n, xs] of byEntries(r.moves))
    rows.push(
      `| "Move here" clicked → leaf mark painted on the target, ${fmt(Number(n))} entries | < ${MOVE_TARGET} ms | ${spread(xs.map((x) => x.ms))} | ${xs.length} | ${mark(
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
      'code-server 4.139.1 (VS Code 1.139.1) with the built extension, headless Chromium (software raster), 1400×900; a fresh VS Code per open, so each is the first in its window. ' +
      'From `Date.now()` in the workbench page right before Playwright dispatches the click or key, to `Date.now()` in the webview after the frame that shows the result (a requestAnimationFrame, then a task). min / **median** / max.',
    '',
    '| what | target | min / median / max | samples | |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ];
  for (const [n, o] of Object.entries(r.open)) {
    const s = o.samples;
    const host = s.map((x) => x.host).filter((h): h is Record<string, number> => !!h);
    const created = host.length === s.length ? median(s.map((x, i) => host[i].created - x.t0)) : undefined;
    const m = (f: (x: ClickSample) => number) => fmt(median(s.map(f)));
    const h = (k: string) => (host.length ? fmt(median(host.map((x) => x[k]))) : '?');
    lines.push(
      '',
      `Where the time goes, ${fmt(Number(n))} entries (medians, ms from the click): ` +
        `input reaches the page ${m((x) => x.dispatchMs)}; ` +
        (created !== undefined ? `panel created on the host ≈${fmt(created)}; ` : '') +
        `host: session read + indexed ${h('open')} after the panel's creation, webview ready ${h('ready')}, first part posted ${h('firstPart')}, all ${fmt(s[0].parts)} parts posted ${h('sent')}; ` +
        `webview: first part arrives ${m((x) => x.at.firstMessage)}, last part ${m((x) => x.at.lastPart)}, handled (model, derive, layout) ${m((x) => x.at.lastPartHandled)}, first render ${m((x) => x.at.firstRender)}, painted ${m((x) => x.at.painted)}.`,
    );
  }
  lines.push(END);
  return lines.join('\n');
}
