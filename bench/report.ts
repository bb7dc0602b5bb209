// The benchmark's shared parts: where it works, how a whole process is measured, the rows of the table
// (every figure min / median / max over runs), and how far a time is from the physical floor.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..');
export const WORK = join(ROOT, '.bench');
export const RUNS = Number(process.env.BENCH_RUNS ?? 5);
export const NODE = process.execPath;
export const CLI = join(ROOT, 'dist', 'cli.js');

export interface Row {
  what: string;
  how: string;
  target: string;
  result: string;
  pass: boolean | undefined;
  /** How far from the physical floor (read the bytes, find the newlines), when that applies. */
  floor?: string;
}
export const rows: Row[] = [];

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
/** "min / **median** / max unit" of a series. */
export const mmm = (xs: number[], d = 0, unit = 'ms') =>
  `${fmt(Math.min(...xs), d)} / **${fmt(median(xs), d)}** / ${fmt(Math.max(...xs), d)} ${unit}`;
export const log = (s: string) => process.stderr.write(`${s}\n`);

export interface Run {
  /** Wall time from spawn to exit. */
  ms: number;
  /** CPU time of the process (all its threads). */
  cpuMs: number;
  rssKb: number;
}

/** Runs a whole process with the rss preload (stdout discarded); its wall time, CPU time and peak RSS. */
export function measure(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn(NODE, ['-r', join(ROOT, 'bench', 'rss.cjs'), ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      cwd: ROOT,
      env,
    });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('exit', (code) => {
      const ms = performance.now() - t0;
      const m = /@@bench (.*)/.exec(err);
      if (code !== 0 || !m) return reject(new Error(`${args.join(' ')} failed (${code}): ${err.slice(-500)}`));
      const r = JSON.parse(m[1]) as { cpuMs: number; maxRssKb: number };
      resolve({ ms, cpuMs: r.cpuMs, rssKb: r.maxRssKb });
    });
  });
}

/** "N× the floor (M ms)" for wall times `ms`. */
export const vsFloor = (ms: number[], floor: Run[]) => {
  const f = median(floor.map((r) => r.ms));
  return `${fmt(median(ms) / f, 1)}× the floor (${fmt(f)} ms)`;
};
