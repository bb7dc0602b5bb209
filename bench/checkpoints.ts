// Checkpoints, side by side with the plain git commands that do the same job in an ordinary
// repository of the same tree (a git dir of its own, the project as its work tree, git's defaults).
// On generated projects of 10,000 and 100,000 files (test/support/projectTree.ts; kept in .bench/):
// the first snapshot (baseline), the 'before' + 'after' snapshots of turns that change 5 files as pi
// runs them through Capture, the store's growth over 100 such turns, and a restore of 1,000 files.
// BENCH_CP_SIZES=10000,100000 picks the sizes (the restore runs on the first); BENCH_CP_TURNS the timed
// turns (default 100 at 10k, where the growth is measured, 20 at 100k); BENCH_CP_PARTS=snapshots,restore;
// BENCH_CP_RESTORE the files the restored turn changes (1,000).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { devNull, loadavg } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { Capture } from '../src/core/checkpoints/capture/capture.js';
import { FolderWatch } from '../src/core/checkpoints/capture/folderWatch.js';
import { planCode, sessionCode, writeCode } from '../src/core/checkpoints/index.js';
import { CheckpointStore } from '../src/core/checkpoints/store/store.js';
import { DEFAULT_SETTINGS } from '../src/core/checkpoints/store/storePaths.js';
import { Session } from '../src/core/session/session.js';
import { generateProject, prng, type GeneratedProject } from '../test/support/projectTree.js';
import { SimPi } from '../test/support/simPi.js';
import { fmt, log, median, mmm, rows, RUNS, WORK } from './report';

const DIR = join(WORK, 'checkpoints');
const PROJECT_VERSION = 1;
/** Why a turn's snapshots miss the target (written into the row when they do). */
const TURN_WHY =
  "Not met: with the watcher's list git no longer walks the folder, but each snapshot still runs git four times, and three of them read the whole index (diff-files and ls-files -o with the paths, update-index, write-tree: ~30 ms each at 100k files, a 7.8 MB index) and update-index and write-tree write it again";
/** Why a restore misses the target (written into the row when it does). */
const RESTORE_WHY =
  "Not met: every file is written to a temp file, fsynced and renamed (a kill or a power cut leaves whole files), 1,000 fsyncs run 4 at a time (libuv's threads), ~6 ms each on this disk and more under load; the journal (both sides of every file) is one file and one fsync; then the 'restore' snapshot (the 1,000 files hashed again). git (next column) syncs nothing";
/** Capture's limit per snapshot (20 s in pi), raised so that a loaded machine's baseline is measured, not given up. */
const TIMEOUT_MS = 600_000;

/** The generated project of `files` files (made once, kept in .bench/checkpoints/). */
export function project(files: number): GeneratedProject {
  const dir = join(DIR, `project-${files}`);
  const stamp = join(DIR, `project-${files}.json`);
  if (existsSync(stamp)) {
    const s = JSON.parse(readFileSync(stamp, 'utf8')) as {
      v: number;
      p: Omit<GeneratedProject, 'binary'> & { binary: string[] };
    };
    if (s.v === PROJECT_VERSION) {
      // A run stopped half-way may have left files deleted: they come back (with other bytes).
      const missing = s.p.files.filter((f) => !existsSync(join(dir, f)));
      for (const f of missing) {
        mkdirSync(join(dir, f, '..'), { recursive: true });
        writeFileSync(join(dir, f), `// ${f}, made again\n`);
      }
      if (missing.length) log(`  ${missing.length} files of the ${fmt(files)}-file project made again`);
      return { ...s.p, binary: new Set(s.p.binary) };
    }
  }
  rmSync(dir, { recursive: true, force: true });
  log(`generating a ${fmt(files)}-file project…`);
  const t0 = performance.now();
  const p = generateProject(dir, { files, seed: files });
  log(`  ${fmt((performance.now() - t0) / 1000, 1)} s, ${fmt(p.bytes / 1e6)} MB`);
  writeFileSync(stamp, JSON.stringify({ v: PROJECT_VERSION, p: { ...p, binary: [...p.binary] } }));
  return p;
}

/** This process's CPU time plus that of its finished children (git), in ms. */
export function cpuMs(): number {
  const own = process.cpuUsage();
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields 16 and 17 (cutime, cstime) are the 14th and 15th after the state field; clock ticks of 10 ms
  const children = (Number(f[13]) + Number(f[14])) * 10;
  return (own.user + own.system) / 1000 + children;
}

const loadNow = () => loadavg()[0];
const loadText = (a: number, b: number) => `load ${fmt(Math.min(a, b), 1)}–${fmt(Math.max(a, b), 1)}`;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];
const kb = (bytes: number) => `${fmt(bytes / 1024)} KB`;
const mb = (bytes: number) => `${fmt(bytes / 1e6, 1)} MB`;

/** `du -sk` of a folder, in bytes. */
function du(path: string): number {
  const r = spawnSync('du', ['-sk', path], { encoding: 'utf8' });
  return Number(r.stdout.split('\t')[0]) * 1024;
}

/** An ordinary repository of the project: its own git dir, git's defaults (but no auto gc), no user or system config. */
class PlainRepo {
  constructor(
    readonly gitDir: string,
    readonly workTree: string,
  ) {}
  private env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
    return {
      ...env,
      GIT_DIR: this.gitDir,
      GIT_WORK_TREE: this.workTree,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: devNull,
      GIT_AUTHOR_NAME: 'b',
      GIT_AUTHOR_EMAIL: 'b@b',
      GIT_COMMITTER_NAME: 'b',
      GIT_COMMITTER_EMAIL: 'b@b',
    };
  }
  /** Runs git; its stdout and wall time. */
  run(...args: string[]): { out: string; ms: number } {
    const t0 = performance.now();
    const r = spawnSync('git', args, { cwd: this.workTree, env: this.env(), encoding: 'utf8', maxBuffer: 1 << 28 });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
    return { out: r.stdout.trim(), ms };
  }
  static fresh(gitDir: string, workTree: string): PlainRepo {
    rmSync(gitDir, { recursive: true, force: true });
    const g = new PlainRepo(gitDir, workTree);
    g.run('init', '-q');
    g.run('config', 'gc.auto', '0'); // as in the store: no gc in the background of the measurements
    return g;
  }
}

/** An edit as an agent makes it: a line changed in the middle and a few appended (a binary file: bytes changed). */
function editFile(abs: string, binary: boolean, rand: () => number, tag: string): Buffer {
  const old = readFileSync(abs);
  let next: Buffer;
  if (binary) {
    next = Buffer.from(old);
    for (let i = 0; i < 16; i++) next[Math.floor(rand() * next.length)] = Math.floor(rand() * 256);
  } else {
    const lines = old.toString('utf8').split('\n');
    lines[Math.floor(rand() * lines.length)] =
      `  const ${tag.replace(/\W/g, '_')} = compute(${Math.floor(rand() * 1e6)});`;
    next = Buffer.from(
      `${lines.join('\n')}export function ${tag.replace(/\W/g, '_')}Step(x: number): number {\n  return x * ${Math.floor(rand() * 100)};\n}\n`,
    );
  }
  writeFileSync(abs, next);
  return next;
}

interface TurnTimes {
  /** beforeTool of the turn's first call: what pi's tool call waits for. */
  before: number;
  /** The 5 edits made, then turnEnd + flush: the 'after' snapshot. */
  after: number;
  /** Their CPU time (ours + git's). */
  beforeCpu: number;
  afterCpu: number;
  plainAdd: number;
  plainAddCpu: number;
  plainStash: number;
}

/** One turn through Capture as pi runs it, then the same change committed to the plain repo. */
async function turn(
  capture: Capture,
  p: GeneratedProject,
  plain: PlainRepo,
  rand: () => number,
  k: number,
  changed?: Buffer[],
): Promise<TurnTimes> {
  const picks = new Set<string>();
  while (picks.size < 5) picks.add(p.files[3 + Math.floor(rand() * (p.files.length - 3))]);
  const paths = [...picks];
  const assistant = { id: `a${k}`, parentId: `u${k}` };
  let c0 = cpuMs();
  const t0 = performance.now();
  for (const path of paths) await capture.beforeTool('edit', { path }, assistant);
  const before = performance.now() - t0;
  const beforeCpu = cpuMs() - c0;
  for (const path of paths) {
    const bytes = editFile(join(p.dir, path), p.binary.has(path), rand, `t${k}`);
    changed?.push(bytes);
  }
  c0 = cpuMs();
  const t1 = performance.now();
  await capture.turnEnd(
    assistant.id,
    paths.map((_, i) => `r${k}_${i}`),
  );
  await capture.flush();
  const after = performance.now() - t1;
  const afterCpu = cpuMs() - c0;
  if (capture.off) throw new Error(capture.off);
  c0 = cpuMs();
  const plainAdd = plain.run('add', '-A').ms + plain.run('write-tree').ms;
  const plainAddCpu = cpuMs() - c0;
  const plainStash = plain.run('stash', 'create').ms;
  return { before, after, beforeCpu, afterCpu, plainAdd, plainAddCpu, plainStash };
}

/** The object files of a git dir (loose objects and packs): name → bytes (the compressed bytes, not the blocks). */
function objectFiles(gitDir: string): Map<string, number> {
  const out = new Map<string, number>();
  const objects = join(gitDir, 'objects');
  for (const d of readdirSync(objects)) {
    if (d.length !== 2 && d !== 'pack') continue;
    for (const f of readdirSync(join(objects, d)))
      if (d !== 'pack' || f.endsWith('.pack')) out.set(`${d}/${f}`, statSync(join(objects, d, f)).size);
  }
  return out;
}

/** What `after` has that `before` had not: loose objects and packs, and their bytes. */
function newObjectFiles(
  before: Map<string, number>,
  after: Map<string, number>,
): { loose: number; packs: number; bytes: number } {
  let loose = 0;
  let packs = 0;
  let bytes = 0;
  for (const [k, n] of after) {
    if (before.has(k)) continue;
    if (k.startsWith('pack/')) packs++;
    else loose++;
    bytes += n;
  }
  return { loose, packs, bytes };
}

/** Baseline, turns and (at 10k) growth on a project of `files` files. */
async function snapshots(files: number, turns: number, growth: boolean): Promise<void> {
  const p = project(files);
  const agentDir = join(DIR, `agent-${files}`);
  rmSync(agentDir, { recursive: true, force: true });
  const plainDir = join(DIR, `plain-${files}.git`);
  const size = `${fmt(files / 1000)}k files`;
  const projectBytes = du(p.dir) - du(join(p.dir, 'node_modules'));

  // The first snapshot: the store made, every file hashed and written (in pi: in the background at session start).
  let l0 = loadNow();
  const capture = new Capture({
    agentDir,
    cwd: p.dir,
    sessionId: `bench-${files}`,
    settings: DEFAULT_SETTINGS,
    notify: log,
    timeoutMs: TIMEOUT_MS,
  });
  const c0 = cpuMs();
  const t0 = performance.now();
  capture.start(null);
  await capture.flush();
  const baselineMs = performance.now() - t0;
  const baselineCpu = cpuMs() - c0;
  if (capture.off) throw new Error(capture.off);
  const store = CheckpointStore.existing(agentDir, p.dir, DEFAULT_SETTINGS)!;
  const baselineStore = await store.sizeBytes();
  const duBaseline = du(store.where.root);
  const lines = store.manifest(`bench-${files}`);
  const baseline = lines[0];
  if (baseline?.kind !== 'baseline') throw new Error('no baseline line');
  const tracked = (await store.listTree(baseline.tree)).size;
  const plain = PlainRepo.fresh(plainDir, p.dir);
  const plainBase = plain.run('add', '-A').ms + plain.run('write-tree').ms;
  plain.run('commit', '-q', '-m', 'base');
  const plainBaseBytes = du(join(plainDir, 'objects'));
  rows.push({
    what: `checkpoints: the first snapshot (baseline), ${size}`,
    how: `Capture.start → flush: the store made, the project listed through pi-tree's index (.gitignore and node_modules left out: ${fmt(tracked)} files of ${mb(p.bytes)}), every file hashed and written, the commit, its ref and manifest line; paid once per project, in the background at session start; one run, the page cache warm`,
    target: '',
    result: `**${fmt(baselineMs)} ms** (CPU ${fmt(baselineCpu)} ms); store ${mb(baselineStore)} on disk; ${loadText(l0, loadNow())}`,
    floor: `plain git: \`git add -A && git write-tree\` into a new repository ${fmt(plainBase)} ms (${mb(plainBaseBytes)} of objects)`,
    pass: undefined,
  });
  log(`baseline ${size}: ${rows[rows.length - 1].result} | ${rows[rows.length - 1].floor}`);

  // The folder watcher, armed in the background after the baseline: the turns below take its lists.
  const watching = await capture.watchArmed();
  const arm = capture.watchArm;
  const rand = prng(files + 7);
  for (let k = 0; k < 3; k++) await turn(capture, p, plain, rand, -1 - k); // warm up: the indexes' stat caches, the page cache
  const timedFrom = capture.timings.length;
  const plainBefore = du(join(plainDir, 'objects'));
  const plainFilesBefore = objectFiles(plainDir);
  l0 = loadNow();
  const changed: Buffer[] = [];
  const times: TurnTimes[] = [];
  for (let k = 0; k < turns; k++) times.push(await turn(capture, p, plain, rand, k, growth ? changed : undefined));
  const l1 = loadNow();
  const timed = capture.timings.slice(timedFrom);
  const listed = timed.filter((t) => t.listed).length;
  const after = times.map((t) => t.after);
  const before = times.map((t) => t.before);
  const both = times.map((t) => t.before + t.after);
  const target = files >= 100_000 ? 300 : 50;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const met = median(before) < target && median(after) < target;
  rows.push({
    what: `checkpoints: a turn changing 5 files, ${size}`,
    how: `${turns} turns (after 3 to warm up) through Capture as pi runs them, with the folder watcher (${watching && arm ? `${fmt(arm.dirs)} folders watched, armed in the background after the baseline` : 'not available here'}): beforeTool awaited (the 'before' snapshot: what pi's tool call waits for), 5 files edited, turnEnd + flush (the 'after' snapshot); each: the watcher's list (a barrier event first), git on those paths, hash, write-tree, commit, ref, manifest line (every 50th turn's 'after' also packs the loose objects: the max); ${listed} of ${timed.length} snapshots took the watcher's list; min / median / max, p95; CPU = ours + git's, mean`,
    target: `'before' and 'after' each < ${target} ms (median)`,
    result: `'after' ${mmm(after)} (p95 ${fmt(p95(after))}; CPU ${fmt(mean(times.map((t) => t.afterCpu)))} ms); the tool call waits ('before') ${mmm(before)} (p95 ${fmt(p95(before))}; CPU ${fmt(mean(times.map((t) => t.beforeCpu)))} ms); both ${mmm(both)} (p95 ${fmt(p95(both))}); ${loadText(l0, l1)}${met ? '' : `. ${TURN_WHY}`}`,
    floor: `plain git after the same change: \`git add -A && git write-tree\` ${mmm(times.map((t) => t.plainAdd))} (p95 ${fmt(p95(times.map((t) => t.plainAdd)))}; CPU ${fmt(mean(times.map((t) => t.plainAddCpu)))} ms), then \`git stash create\` ${mmm(times.map((t) => t.plainStash))}`,
    pass: met,
  });
  log(`turns ${size}: ${rows[rows.length - 1].result} | ${rows[rows.length - 1].floor}`);
  if (growth)
    await growthRow({
      store,
      files,
      turns,
      size,
      projectBytes,
      duBaseline,
      baselineStore,
      plainDir,
      plainBefore,
      plainFilesBefore,
      changed,
      l0,
      l1,
    });
  await capture.close();
  await walkTurns(p, agentDir, files, Math.min(turns, 20), size, plain, rand);
  if (watching) await listedGitTurns(p, agentDir, files, Math.min(turns, 20), size, plain, rand, median(after));
  if (watching) await watchMemory(p, agentDir, size);
}

/** The same turns with the watcher off: git walks the whole folder for each snapshot (what the watcher saves). */
async function walkTurns(
  p: GeneratedProject,
  agentDir: string,
  files: number,
  turns: number,
  size: string,
  plain: PlainRepo,
  rand: () => number,
): Promise<void> {
  const capture = new Capture({
    agentDir,
    cwd: p.dir,
    sessionId: `bench-${files}-walk`,
    settings: DEFAULT_SETTINGS,
    notify: log,
    timeoutMs: TIMEOUT_MS,
    watch: false,
  });
  capture.start(null);
  await capture.flush();
  for (let k = 0; k < 3; k++) await turn(capture, p, plain, rand, -100 - k);
  const l0 = loadNow();
  const times: TurnTimes[] = [];
  for (let k = 0; k < turns; k++) times.push(await turn(capture, p, plain, rand, 1000 + k));
  rows.push({
    what: `checkpoints: a turn changing 5 files, the watcher off, ${size}`,
    how: `as the row before, ${turns} turns, with piTree.checkpoints.watchFolder off (and where there is no watcher: macOS, Windows): every snapshot walks the whole folder (diff-files and ls-files -o over all of it)`,
    target: '',
    result: `'after' ${mmm(times.map((t) => t.after))}; the tool call waits ('before') ${mmm(times.map((t) => t.before))}; ${loadText(l0, loadNow())}`,
    floor: `plain git after the same change: \`git add -A && git write-tree\` ${mmm(times.map((t) => t.plainAdd))}`,
    pass: undefined,
  });
  log(`walk turns ${size}: ${rows[rows.length - 1].result}`);
  await capture.close();
}

/**
 * The same turns with the watcher's list given to git instead of the in-process writer: whether that
 * writer (a second way to write the store, git/looseObjects.ts) earns its place.
 */
async function listedGitTurns(
  p: GeneratedProject,
  agentDir: string,
  files: number,
  turns: number,
  size: string,
  plain: PlainRepo,
  rand: () => number,
  inProcessAfter: number,
): Promise<void> {
  const capture = new Capture({
    agentDir,
    cwd: p.dir,
    sessionId: `bench-${files}-listed-git`,
    settings: DEFAULT_SETTINGS,
    notify: log,
    timeoutMs: TIMEOUT_MS,
    inProcess: false,
  });
  capture.start(null);
  await capture.flush();
  if (!(await capture.watchArmed())) return;
  for (let k = 0; k < 3; k++) await turn(capture, p, plain, rand, -200 - k);
  const timedFrom = capture.timings.length;
  const l0 = loadNow();
  const times: TurnTimes[] = [];
  for (let k = 0; k < turns; k++) times.push(await turn(capture, p, plain, rand, 2000 + k));
  const listed = capture.timings.slice(timedFrom).filter((t) => t.listed && !t.inProcess).length;
  const after = times.map((t) => t.after);
  const target = files >= 100_000 ? 300 : 50;
  rows.push({
    what: `checkpoints: a turn changing 5 files, the watcher's list through git, ${size}`,
    how: `as the watcher row, ${turns} turns, the watcher's list handed to git (diff-files and ls-files -o on the listed paths, update-index, write-tree: each reads the whole index, update-index and write-tree write it again) instead of the in-process writer (the changed files hashed and the folders above them written as objects, git/looseObjects.ts); ${listed} of ${times.length * 2} snapshots went through git on the list. The in-process writer stays while this row's 'after' is several times the in-process one at 100k files`,
    target: `'after' < ${target} ms (median), as the watcher row`,
    result: `'after' ${mmm(after)} (the in-process writer: ${fmt(inProcessAfter)} ms median); the tool call waits ('before') ${mmm(times.map((t) => t.before))}; ${loadText(l0, loadNow())}`,
    floor: `plain git after the same change: \`git add -A && git write-tree\` ${mmm(times.map((t) => t.plainAdd))}`,
    pass: median(after) < target,
  });
  log(`listed-git turns ${size}: ${rows[rows.length - 1].result}`);
  await capture.close();
}

const signedMb = (n: number) => `${n < 0 ? '−' : '+'}${mb(Math.abs(n))}`;

/** What the watcher holds in pi's process: the heap and resident size it adds, armed on the project alone. */
async function watchMemory(p: GeneratedProject, agentDir: string, size: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const m0 = process.memoryUsage();
  const w = new FolderWatch({ cwd: p.dir, barrierDir: join(agentDir, 'bench-barrier') });
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await w.arm((rel) => rel === 'node_modules');
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  gc?.();
  const m1 = process.memoryUsage();
  rows.push({
    what: `checkpoints: the folder watcher's cost, ${size}`,
    how: "a FolderWatch armed on the project (node_modules left out, as its .gitignore says): the walk that sets one inotify watch per folder, and the heap and resident memory it adds to pi's process (after a gc)",
    target: '',
    result: `${fmt(w.watchedDirs)} folders watched: **${fmt((cpu.user + cpu.system) / 1000)} ms** of pi's CPU (${fmt(ms)} ms of wall time, yielding to the event loop every 8 ms); heap ${signedMb(m1.heapUsed - m0.heapUsed)}, resident ${signedMb(m1.rss - m0.rss)}`,
    floor: '',
    pass: undefined,
  });
  log(`watch cost ${size}: ${rows[rows.length - 1].result}`);
  w.close();
}

interface GrowthInput {
  store: CheckpointStore;
  files: number;
  turns: number;
  size: string;
  projectBytes: number;
  duBaseline: number;
  baselineStore: number;
  plainDir: string;
  plainBefore: number;
  plainFilesBefore: Map<string, number>;
  changed: Buffer[];
  l0: number;
  l1: number;
}

/** The store's growth over the timed turns, against what plain git wrote for them. */
async function growthRow(g: GrowthInput): Promise<void> {
  const {
    store,
    files,
    turns,
    size,
    projectBytes,
    duBaseline,
    baselineStore,
    plainDir,
    plainBefore,
    plainFilesBefore,
    changed,
    l0,
    l1,
  } = g;
  {
    const duAfter = du(store.where.root);
    const sizeAfter = await store.sizeBytes();
    const plainGrown = du(join(plainDir, 'objects')) - plainBefore;
    const plainObjs = newObjectFiles(plainFilesBefore, objectFiles(plainDir));
    const mine = store.manifest(`bench-${files}`).slice(-2 * turns);
    const raw = changed.reduce((a, b) => a + b.length, 0);
    const zipped = changed.reduce((a, b) => a + deflateSync(b).length, 0);
    const recorded = mine.reduce((a, l) => a + (l.kind === 'off' ? 0 : (l.bytes ?? 0)), 0);
    rows.push({
      what: `checkpoints: store growth, ${turns} turns × 5 files, ${size}`,
      how: `the objects the turns added (each snapshot line's own count: the files, the folders above them, the commit, compressed as written), against the bytes the turns wrote (${fmt(changed.length)} file versions); the store on disk (\`du\` of all of it: objects, refs, the session's index, manifest; \`sizeBytes\`: git's count of its objects) after the baseline and after the turns (its loose objects are packed every 50 turns), against the project (${mb(projectBytes)} on disk without node_modules)`,
      target: 'the changed bytes (compressed), not copies of the project',
      result: `the turns added **${kb(recorded)}** of objects (${kb(recorded / turns)} a turn); they wrote ${kb(raw)}, ${kb(zipped)} deflated; the store on disk ${mb(duBaseline)} after the baseline → ${mb(duAfter)} after the turns (\`sizeBytes\` ${mb(baselineStore)} → ${mb(sizeAfter)}); the project ${mb(projectBytes)}; ${loadText(l0, l1)}`,
      floor: `plain git, same turns (\`add -A\`, \`write-tree\`, \`stash create\`): ${fmt(plainObjs.loose)} new loose objects of ${kb(plainObjs.bytes)} compressed, ${kb(plainGrown)} on disk`,
      // as much as git itself writes for the same changes, and a small part of the project
      pass: recorded <= 1.25 * plainObjs.bytes && duAfter - duBaseline < projectBytes / 20,
    });
    log(`growth ${size}: ${rows[rows.length - 1].result} | ${rows[rows.length - 1].floor}`);
  }
}

const sha = (b: Buffer) => createHash('sha1').update(b).digest('hex');

/** The state of `paths` on disk (content hash, or null when absent). */
function stateOf(dir: string, paths: readonly string[]): Map<string, string | null> {
  const m = new Map<string, string | null>();
  for (const p of paths) {
    try {
      m.set(p, sha(readFileSync(join(dir, p))));
    } catch {
      m.set(p, null);
    }
  }
  return m;
}

function sameState(a: Map<string, string | null>, b: Map<string, string | null>): boolean {
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** A turn that changes 1,000 files (900 edited, 50 made, 50 deleted) restored to the turn before, `runs` times. */
async function restoreBench(files: number, changes: number, runs: number): Promise<void> {
  const p = project(files);
  const rand = prng(4242);
  const l0 = loadNow();
  const plan: number[] = [];
  const write: number[] = [];
  const total: number[] = [];
  const cpu: number[] = [];
  const plainCheckout: number[] = [];
  const plainReadTree: number[] = [];
  let planned = 0;
  for (let run = 0; run < runs; run++) {
    const root = join(DIR, 'restore');
    rmSync(root, { recursive: true, force: true });
    const agentDir = join(root, 'agent');
    const sessionDir = join(root, 'sessions');
    mkdirSync(sessionDir, { recursive: true });
    const edited = new Set<string>();
    while (edited.size < changes - changes / 10) edited.add(p.files[3 + Math.floor(rand() * (p.files.length - 3))]);
    const deleted = new Set<string>();
    while (deleted.size < changes / 20) {
      const f = p.files[3 + Math.floor(rand() * (p.files.length - 3))];
      if (!edited.has(f)) deleted.add(f);
    }
    const made = Array.from({ length: changes / 20 }, (_, i) => `src/generated/run${run}/gen${i}.ts`);
    const all = [...edited, ...deleted, ...made];
    const s0 = stateOf(p.dir, all);
    const saved = new Map(all.map((f) => [f, existsSync(join(p.dir, f)) ? readFileSync(join(p.dir, f)) : null]));
    try {
      const plain = PlainRepo.fresh(join(root, 'plain.git'), p.dir);
      plain.run('add', '-A');
      plain.run('commit', '-q', '-m', 'A');
      const A = plain.run('rev-parse', 'HEAD').out;

      const sim = new SimPi(p.dir, agentDir, { sessionDir, timeoutMs: TIMEOUT_MS });
      const t1 = await sim.turn(
        'a small one',
        [{ name: 'write', args: { path: 'README.md', content: readFileSync(join(p.dir, 'README.md'), 'utf8') } }],
        () => {},
      );
      const effects = () => {
        for (const f of edited) editFile(join(p.dir, f), p.binary.has(f), prng(run * 1_000_003 + f.length), `r${run}`);
        for (const f of deleted) unlinkSync(join(p.dir, f));
        mkdirSync(join(p.dir, 'src', 'generated', `run${run}`), { recursive: true });
        for (const f of made) writeFileSync(join(p.dir, f), `export const made = '${f}';\n`);
      };
      await sim.turn('regenerate everything', [{ name: 'bash', args: { command: 'npm run codegen' } }], effects);
      if (sim.capture?.off) throw new Error(sim.capture.off);
      const s1 = stateOf(p.dir, all);
      plain.run('add', '-A');
      plain.run('commit', '-q', '-m', 'B');

      // pi-tree: the plan back to the turn before, then the restore written (journal, files, the 'restore' snapshot)
      const session = await Session.open(sim.file);
      const c0 = cpuMs();
      const ta = performance.now();
      const sc = sessionCode(session, { agentDir });
      const pl = await planCode(sc, t1.answer);
      const tb = performance.now();
      await writeCode(sc, pl, {});
      const tc = performance.now();
      cpu.push(cpuMs() - c0);
      planned = pl.items.length;
      if (pl.items.some((i) => i.action === 'conflict' || i.action === 'unrestorable'))
        throw new Error('the restore plan has conflicts');
      if (!sameState(s0, stateOf(p.dir, all))) throw new Error('pi-tree did not restore the files');
      plan.push(tb - ta);
      write.push(tc - tb);
      total.push(tc - ta);

      // plain git: the same files back from the commit before (the same change written again first)
      effects();
      if (!sameState(s1, stateOf(p.dir, all))) throw new Error('the change is not the same the second time');
      plainCheckout.push(plain.run('checkout', '--no-overlay', A, '--', '.').ms);
      if (!sameState(s0, stateOf(p.dir, all))) throw new Error('git checkout did not restore the files');
      plain.run('reset', '-q', '--hard', 'HEAD'); // back at B (S1)…
      if (!sameState(s1, stateOf(p.dir, all))) throw new Error('not at B');
      plainReadTree.push(plain.run('read-tree', '-u', '-m', 'HEAD', A).ms); // …and B → A as a two-tree switch
      if (!sameState(s0, stateOf(p.dir, all))) throw new Error('git read-tree -u did not restore the files');
    } finally {
      // the project as it was, whatever happened
      for (const [f, bytes] of saved) {
        if (bytes) {
          if (!existsSync(join(p.dir, f)) || !readFileSync(join(p.dir, f)).equals(bytes))
            writeFileSync(join(p.dir, f), bytes);
        } else rmSync(join(p.dir, f), { force: true });
      }
      rmSync(join(p.dir, 'src', 'generated'), { recursive: true, force: true });
    }
    log(
      `restore run ${run + 1}: plan ${fmt(plan.at(-1)!)} ms, write ${fmt(write.at(-1)!)} ms; git checkout ${fmt(plainCheckout.at(-1)!)} ms, read-tree -u ${fmt(plainReadTree.at(-1)!)} ms`,
    );
  }
  rows.push({
    what: `checkpoints: restore of ${fmt(changes)} changed files, ${fmt(files / 1000)}k files`,
    how: `a session whose last turn (a bash call) edited ${fmt(changes * 0.9)} files, made ${fmt(changes / 20)} and deleted ${fmt(changes / 20)}; back to the turn before: \`sessionCode\` + \`planCode\` (${fmt(planned)} items, each file read and hashed) + \`writeCode\` (the journal with both sides of each file, fsynced; each file temp + fsync + rename; the 'restore' snapshot), ${runs} runs, a fresh store each; CPU = ours + git's`,
    target: '< 2 s',
    result: `${mmm(total)} (plan ${mmm(plan)}, write ${mmm(write)}; CPU ${mmm(cpu)}); ${loadText(l0, loadNow())}${median(total) < 2000 ? '' : `. ${RESTORE_WHY}`}`,
    floor: `plain git from the commit before: \`git checkout --no-overlay <commit> -- .\` ${mmm(plainCheckout)}, \`git read-tree -u -m HEAD <commit>\` ${mmm(plainReadTree)}; neither fsyncs`,
    pass: median(total) < 2000,
  });
  log(`restore: ${rows[rows.length - 1].result} | ${rows[rows.length - 1].floor}`);
}

export async function checkpointsBench(): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  const sizes = (process.env.BENCH_CP_SIZES ?? '10000,100000').split(',').map(Number);
  const parts = (process.env.BENCH_CP_PARTS ?? 'snapshots,restore').split(',');
  if (parts.includes('snapshots'))
    for (const n of sizes)
      await snapshots(n, Number(process.env.BENCH_CP_TURNS ?? (n >= 100_000 ? 20 : 100)), n < 100_000);
  if (parts.includes('restore'))
    await restoreBench(sizes[0], Number(process.env.BENCH_CP_RESTORE ?? 1000), Math.min(RUNS, 5));
}
