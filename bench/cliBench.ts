// Whole-process figures of the CLI: open + context against pi 1.6.0 (same Node, alternated), and at a
// million entries tree / stats / context, clone and fork.
import { closeSync, copyFileSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, fmt, log, measure, median, mmm, ROOT, rows, RUNS, vsFloor, WORK, type Run } from './report';

const size = (file: string) => `${fmt(statSync(file).size / 1e6)} MB`;

/** pi-tree `context --json` vs pi's open + buildSessionContext, whole processes, RUNS alternated pairs. */
export async function openContext(
  label: string,
  file: string,
  fresh: boolean,
  target: { speed: number; rss: number },
): Promise<void> {
  const ours: Run[] = [];
  const pis: Run[] = [];
  const copy = (tag: string) => {
    if (!fresh) return file;
    // pi rewrites old-format files when it opens them: every run gets its own copy
    const c = join(WORK, `copy-${tag}.jsonl`);
    copyFileSync(file, c);
    return c;
  };
  await measure([CLI, 'context', copy('warm'), '--json']); // warm the page cache
  // The floor is measured in the same rounds (a busy moment hits all three).
  const floor: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    pis.push(await measure([join(ROOT, 'bench', 'pi-open-context.mjs'), copy(`pi${i}`)]));
    ours.push(await measure([CLI, 'context', copy(`ours${i}`), '--json']));
    floor.push(await measure([FLOOR, file]));
  }
  // Ratios per alternated pair (pi, then ours right after), so that a busy moment hits both.
  const speeds = pis.map((p, i) => p.ms / ours[i].ms);
  const cpus = pis.map((p, i) => p.cpuMs / ours[i].cpuMs);
  const rsses = pis.map((p, i) => ours[i].rssKb / p.rssKb);
  const speed = median(speeds);
  const rss = median(rsses);
  rows.push({
    what: `${label} (${size(file)})`,
    how: `whole process, pi-tree \`context --json\` vs pi 1.6.0 open + buildSessionContext, alternated, ${RUNS} pairs`,
    target: `≥ ${target.speed}x faster, ≤ ${fmt(target.rss, 2)} of pi's peak RSS`,
    result: `**${fmt(speed, 1)}x** faster (${fmt(Math.min(...speeds), 1)} / ${fmt(Math.max(...speeds), 1)}; CPU time ${fmt(median(cpus), 1)}x): ours ${mmm(ours.map((x) => x.ms))}, pi ${mmm(pis.map((x) => x.ms))}; peak RSS **${fmt(rss, 2)}** of pi's (${fmt(median(ours.map((x) => x.rssKb)) / 1024)} vs ${fmt(median(pis.map((x) => x.rssKb)) / 1024)} MB)`,
    pass: speed >= target.speed && rss <= target.rss,
    floor: `ours ${vsFloor(
      ours.map((x) => x.ms),
      floor,
    )}, pi ${fmt(median(pis.map((x) => x.ms)) / median(floor.map((x) => x.ms)), 1)}×; the floor's peak RSS ${fmt(median(floor.map((x) => x.rssKb)) / 1024)} MB`,
  });
  log(`${label}: ${rows[rows.length - 1].result}`);
}

const FLOOR = join(ROOT, 'bench', 'floor.cjs');
const COMMANDS = [
  ['context', ['--json']],
  ['stats', ['--json']],
  ['tree', []],
] as const;

/** A million entries: the floor, then `context`, `stats` and `tree` as whole processes. */
export async function cliMillion(file: string, runs: number): Promise<void> {
  const floor: Run[] = [];
  const byCmd = new Map<string, Run[]>();
  // Rounds of every command and the floor, so that a busy moment hits them all.
  for (let i = 0; i < runs; i++) {
    floor.push(await measure([FLOOR, file]));
    for (const [cmd, args] of COMMANDS) {
      const list = byCmd.get(cmd) ?? [];
      list.push(await measure([CLI, cmd, file, ...args]));
      byCmd.set(cmd, list);
    }
  }
  rows.push({
    what: `the floor, 1M entries (${size(file)})`,
    how: `a process that reads the file (1 MiB reads) and counts its newlines, ${floor.length} runs`,
    target: '',
    result: `${mmm(floor.map((r) => r.ms))}, peak RSS ${fmt(median(floor.map((r) => r.rssKb)) / 1024)} MB`,
    pass: undefined,
  });
  for (const [cmd] of COMMANDS) {
    const rs = byCmd.get(cmd)!;
    const ms = rs.map((r) => r.ms);
    const rss = rs.map((r) => r.rssKb / 1024);
    rows.push({
      what: `\`pi-tree ${cmd}\`, 1M entries (${size(file)})`,
      how: `whole process, output discarded, ${rs.length} runs${cmd === 'tree' ? ' (the output is pi /tree text: about 1 GB here, every line indented by the branch points above it)' : ''}`,
      target: '< 2 s, < 400 MB RSS',
      result: `${mmm(ms)} (CPU ${mmm(rs.map((r) => r.cpuMs))}); peak RSS ${mmm(rss, 0, 'MB')}`,
      pass: median(ms) < 2000 && median(rss) < 400,
      // (and, a figure a slow hour changes less, its time against context's in the same rounds)
      floor: `${vsFloor(ms, floor)}${cmd === 'context' ? '' : `; ${fmt(median(ms) / median(byCmd.get('context')!.map((r) => r.ms)), 1)}× \`context\`'s time`}`,
    });
    log(`${cmd} 1M: ${rows[rows.length - 1].result}`);
  }
}

/** The id of the last user message in the file (read from its end). */
function lastUserId(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const len = Math.min(statSync(file).size, 4 << 20);
    const b = Buffer.alloc(len);
    readSync(fd, b, 0, len, statSync(file).size - len);
    const lines = b.toString('utf8').split('\n').reverse();
    for (const l of lines) if (l.includes('"role":"user"')) return (JSON.parse(l) as { id: string }).id;
  } finally {
    closeSync(fd);
  }
  throw new Error(`no user message near the end of ${file}`);
}

/** clone and fork stream the path into the new file: their peak RSS next to an open that writes nothing. */
export async function cloneFork(small: string, big: string, runs: number): Promise<void> {
  const parts: string[] = [];
  let pass = true;
  for (const [label, src] of [
    ['100k', small],
    ['1M', big],
  ] as const) {
    // A copy of its own (the new session lands beside its source); each new file is removed after its run.
    const dir = join(WORK, `clone-${label}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    copyFileSync(src, join(dir, 'src.jsonl'));
    const one = async (args: string[]) => {
      const r = await measure([CLI, args[0], join(dir, 'src.jsonl'), ...args.slice(1), '--file-only']);
      let written = 0;
      for (const f of readdirSync(dir).filter((x) => x !== 'src.jsonl')) {
        written += statSync(join(dir, f)).size;
        rmSync(join(dir, f));
      }
      return { r, written };
    };
    const clones: Run[] = [];
    const forks: Run[] = [];
    let written = 0;
    const user = lastUserId(src);
    for (let i = 0; i < runs; i++) {
      const c = await one(['clone']);
      clones.push(c.r);
      written = c.written;
      forks.push((await one(['fork', user])).r);
    }
    rmSync(dir, { recursive: true, force: true });
    const opens: Run[] = [];
    for (let i = 0; i < runs; i++) opens.push(await measure([CLI, 'stats', src, '--json']));
    const rss = (rs: Run[]) => median(rs.map((r) => r.rssKb / 1024));
    parts.push(
      `${label}: clone ${mmm(clones.map((r) => r.ms))}, peak RSS ${fmt(rss(clones))} MB (${fmt(written / 1e6)} MB written); fork ${fmt(median(forks.map((r) => r.ms)))} ms, ${fmt(rss(forks))} MB; \`stats\` (opens, writes nothing) ${fmt(rss(opens))} MB`,
    );
    // Streaming: writing the copy adds no memory that grows with it beyond the open session's index.
    if (Math.max(rss(clones), rss(forks)) > rss(opens) + 64) pass = false;
  }
  rows.push({
    what: '`pi-tree clone` / `fork` stream',
    how: `the path read by record number and written a batch at a time into the temp file (then fsync + link); peak RSS against \`stats\` on the same file, ${runs} runs each`,
    target: 'memory independent of file size (no more than an open + 64 MB)',
    result: parts.join('; '),
    pass,
  });
  log(`clone/fork: ${parts.join(' | ')}`);
}
