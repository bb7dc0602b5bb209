// Variants: a variant's folder ready, on the generated projects of 10,000 and 100,000 files the
// checkpoint bench uses (kept in .bench/checkpoints/; a node_modules of a fifth as many files beside
// them). "Folder ready" runs from makeVariant's start to the last file written: the code at the node
// (git's checkout of its snapshot through a private index into a fresh folder, the links checked, the
// folder's store made ready for its session) and, apart, the dependency folders copied (the default:
// cloned where the file system can, else copied). Each run makes a variant and discards it; the floors
// are plain git's checkout of the same tree (`git read-tree` + `git checkout-index -a` from an ordinary
// repository, no links checked, no store) and `cp -r` of the node_modules.
// BENCH_VARIANT_SIZES=10000,100000 picks the sizes; BENCH_RUNS the runs (at most 5).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { devNull, loadavg } from 'node:os';
import { join } from 'node:path';
import { Session } from '../src/core/session/session.js';
import {
  DEFAULT_VARIANT_SETTINGS,
  discardVariant,
  makeVariant,
  type VariantRecord,
} from '../src/core/variants/index.js';
import { SimPi } from '../test/support/simPi.js';
import { cpuMs, project } from './checkpoints';
import { fmt, log, median, mmm, rows, RUNS, WORK } from './report';

const DIR = join(WORK, 'variants');
const loadText = (a: number, b: number) => `load ${fmt(Math.min(a, b), 1)}–${fmt(Math.max(a, b), 1)}`;

/** Runs a program; its wall time in ms. */
function timed(cmd: string, args: string[], env?: NodeJS.ProcessEnv, cwd?: string): number {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { env, cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return performance.now() - t0;
}

/** Plain git's checkout of the project's tree into a fresh folder (its own repository, git's defaults). */
function plainCheckout(gitDir: string, tree: string, out: string): number {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  Object.assign(env, {
    GIT_DIR: gitDir,
    GIT_WORK_TREE: out,
    GIT_INDEX_FILE: `${out}.index`,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: devNull,
  });
  mkdirSync(out, { recursive: true });
  return timed('git', ['read-tree', tree], env) + timed('git', ['checkout-index', '-a'], env, out);
}

async function folderReady(files: number, runs: number, plainTree: string): Promise<void> {
  const p = project(files);
  const size = `${fmt(files / 1000)}k files`;
  const root = join(DIR, `run-${files}`);
  rmSync(root, { recursive: true, force: true });
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  mkdirSync(sessions, { recursive: true });
  log(`variants ${size}: the baseline snapshot…`);
  const sim = new SimPi(p.dir, agentDir, { sessionDir: sessions, timeoutMs: 1_800_000, watch: false });
  const node = await sim.turn(
    'a node',
    [{ name: 'write', args: { path: 'README.md', content: readFileSync(join(p.dir, 'README.md'), 'utf8') } }],
    () => {},
  );
  if (sim.capture?.off) throw new Error(sim.capture.off);
  const nodeModules = readdirSync(join(p.dir, 'node_modules'), { recursive: true }).length;
  const l0 = loadavg()[0];
  const code: number[] = [];
  const deps: number[] = [];
  const ready: number[] = [];
  const total: number[] = [];
  const cpu: number[] = [];
  const plainGit: number[] = [];
  const plainCp: number[] = [];
  let written = 0;
  const made: VariantRecord[] = [];
  let depsHow = '';
  for (let run = 0; run < runs; run++) {
    const session = await Session.open(sim.file);
    const c0 = cpuMs();
    const t0 = performance.now();
    const rec = await makeVariant({
      agentDir,
      source: session,
      entryId: node.answer,
      settings: DEFAULT_VARIANT_SETTINGS,
    });
    total.push(performance.now() - t0);
    cpu.push(cpuMs() - c0);
    code.push(rec.code!.ms);
    deps.push(rec.deps!.ms);
    ready.push(rec.readyMs!);
    written = rec.code!.files;
    depsHow = `${rec.deps!.how}: ${rec.deps!.folders.map((f) => `${f.path} ${fmt(f.files)} files, ${fmt(f.bytes / 1e6, 1)} MB`).join('; ')}`;
    if (readFileSync(join(rec.folder, 'README.md'), 'utf8') !== readFileSync(join(p.dir, 'README.md'), 'utf8'))
      throw new Error('the variant does not hold the code');
    log(
      `variant run ${run + 1}: code ${fmt(rec.code!.ms)} ms, dependency folders ${fmt(rec.deps!.ms)} ms, ready ${fmt(rec.readyMs!)} ms, made ${fmt(total.at(-1)!)} ms`,
    );
    made.push(rec);
  }
  // The floors, in fresh folders too. Nothing is removed until every run is done: ext4 makes a file
  // slowly for a few seconds after many were deleted nearby (it passes over the inodes freed last),
  // which made a run after a discard 3–6 times slower, plain git's as much as ours.
  const outs: string[] = [];
  for (let run = 0; run < runs; run++) {
    const out = join(root, `plain-${run}`);
    outs.push(out);
    plainGit.push(plainCheckout(join(DIR, `plain-${files}.git`), plainTree, out));
    plainCp.push(timed('cp', ['-r', join(p.dir, 'node_modules'), join(out, 'node_modules')]));
  }
  for (const rec of made) {
    await discardVariant(agentDir, rec);
    rmSync(rec.sessionFile!, { force: true });
  }
  for (const out of outs) {
    rmSync(out, { recursive: true, force: true });
    rmSync(`${out}.index`, { force: true });
  }
  const target = files >= 100_000 ? 5000 : 1000;
  rows.push({
    what: `variants: a variant's folder ready, ${size}`,
    how: `makeVariant on a node of a session with the project's baseline snapshot (${fmt(written)} files of code, ${fmt(p.bytes / 1e6)} MB; the node_modules beside it ${fmt(nodeModules)} entries), ${runs} runs, each into a fresh folder (all discarded at the end: a run right after a discard is slower on ext4, see the notes); code: the snapshot checked out (read-tree + checkout-index through a private index), links checked, the folder's store and its session's index and manifest line made; dependency folders (the default, copy): ${depsHow}; ready = from the start to the last file written; made = with the record and the session file; CPU = ours + git's`,
    target: `code < ${fmt(target)} ms (not counting dependency folders)`,
    result: `code ${mmm(code)}; dependency folders ${mmm(deps)}; ready ${mmm(ready)}; made ${mmm(total)} (CPU ${mmm(cpu)}); ${loadText(l0, loadavg()[0])}`,
    floor: `plain git's \`read-tree\` + \`checkout-index -a\` of the same tree into a fresh folder ${mmm(plainGit)}; \`cp -r node_modules\` ${mmm(plainCp)}`,
    pass: median(code) < target,
  });
  log(`${rows.at(-1)!.what}: ${rows.at(-1)!.result} | ${rows.at(-1)!.floor}`);
  await sim.capture?.close();
}

export async function variantsBench(): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  const sizes = (process.env.BENCH_VARIANT_SIZES ?? '10000,100000').split(',').map(Number);
  for (const n of sizes) {
    // an ordinary repository of the project, for the floor
    const gitDir = join(DIR, `plain-${n}.git`);
    const p = project(n);
    rmSync(gitDir, { recursive: true, force: true });
    const env = {
      ...process.env,
      GIT_DIR: gitDir,
      GIT_WORK_TREE: p.dir,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: devNull,
    };
    timed('git', ['init', '-q'], env);
    timed('git', ['add', '-A'], env);
    const tree = spawnSync('git', ['write-tree'], { env, encoding: 'utf8' }).stdout.trim();
    await folderReady(n, Math.min(RUNS, 5), tree);
  }
}
