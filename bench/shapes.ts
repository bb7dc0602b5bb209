// The session shapes the benchmark measures, generated once into .bench/ (deterministic, seeded) and
// streamed to the file entry by entry, so a million-entry session is never held in memory.
import { closeSync, existsSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { emitSession, type GenerateOptions } from '../test/support/generate.js';

export interface Shape {
  key: string;
  /** What it stands for, in BENCHMARKS.md. */
  title: string;
  opts: GenerateOptions;
}

const base = { labels: 40, systemMessage: true } satisfies Partial<GenerateOptions>;

/** The 100k-entry shapes of #16, plus the mixed session the first benchmarks used. */
export const SHAPES_100K: Shape[] = [
  {
    key: 'small',
    title: 'many small messages',
    opts: {
      ...base,
      seed: 101,
      entries: 100_000,
      branchRate: 0.03,
      compactions: 10,
      largeOutputRate: 0,
      outputWords: 30,
    },
  },
  {
    key: 'tools',
    title: 'big tool outputs',
    opts: { ...base, seed: 102, entries: 100_000, branchRate: 0.03, compactions: 4, largeOutputRate: 0.06 },
  },
  {
    key: 'compactions',
    title: 'deep compaction history (1000 compactions)',
    opts: { ...base, seed: 103, entries: 100_000, branchRate: 0.03, compactions: 1000, largeOutputRate: 0.005 },
  },
  {
    key: 'branchy',
    title: 'very branchy (a jump back every other turn)',
    opts: { ...base, seed: 104, entries: 100_000, branchRate: 0.5, compactions: 4, largeOutputRate: 0.005 },
  },
  {
    key: 'mixed',
    title: 'mixed (the first benchmark session)',
    opts: {
      seed: 100,
      entries: 100_000,
      branchRate: 0.03,
      compactions: 4,
      labels: 40,
      largeOutputRate: 0.02,
      systemMessage: true,
    },
  },
];

/** A million entries of small messages (~500 MB), mostly one line of work with a jump back every few hundred turns: pi's /tree text indents at every branch point, so the deeply branched shapes are measured at 100k. */
export const SHAPE_1M: Shape = {
  key: 'small-1m',
  title: '1M entries, many small messages',
  opts: {
    ...base,
    seed: 111,
    entries: 1_000_000,
    branchRate: 0.002,
    compactions: 100,
    largeOutputRate: 0,
    outputWords: 16,
  },
};

/** The file of `shape` under `dir`, written first if it is missing. */
export function shapeFile(dir: string, shape: Shape, log: (s: string) => void = () => {}): string {
  const file = join(dir, `shape-${shape.key}.jsonl`);
  if (existsSync(file)) return file;
  log(`generating ${shape.key} (${shape.opts.entries.toLocaleString('en-US')} entries)…`);
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  let buf: string[] = [];
  let bytes = 0;
  const flush = () => {
    writeSync(fd, buf.join(''));
    buf = [];
    bytes = 0;
  };
  try {
    emitSession(shape.opts, (e) => {
      const line = `${JSON.stringify(e)}\n`;
      buf.push(line);
      bytes += line.length;
      if (bytes > 4 << 20) flush();
    });
    flush();
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  log(`  ${(statSync(file).size / 1e6).toFixed(0)} MB`);
  return file;
}
