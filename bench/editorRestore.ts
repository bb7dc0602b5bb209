// A restore from the editor against the CLI's, the same restore: a turn that changed 1,000 files of a
// 10,000-file project (900 edited, 50 made, 50 deleted; generated in the workspace, its checkpoints
// taken as the bridge takes them), back to the turn before, the code only. In the real VS Code
// (code-server, headless Chromium): from the click on the restore choice's "Restore" (its preview open,
// page clock right before the press) to the first frame with the "Restored 1000 files" notification,
// (i) with a real pi 1.6.0 running the session (the bridge writes the files, inside pi) and (ii)
// without; then the CLI's `pi-tree restore FILE ID`, a whole process. Each restore is undone before the
// next (the notification's Undo in the editor, `--undo` for the CLI), so every run writes the same files.
// BENCH_ONLY=editorrestore; BENCH_ER_RUNS (3 each), BENCH_ER_FILES (10,000), BENCH_ER_CHANGES (1,000),
// BENCH_ER_MODES (cli,none,pi).
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { SessionRepository } from '../src/core/session/repository.js';
import { VSCode } from '../test/e2e/harness.js';
import * as sel from '../test/e2e/selectors.js';
import { openTree, selectByFind } from '../test/e2e/uxHelpers.js';
import { waitForBridge } from '../test/piExtension/helpers.js';
import { completionSse, startLoopback, type Loopback } from '../test/support/loopbackOpenAI.js';
import { makePiEnv, PiRpc, type PiEnv } from '../test/support/piRpc.js';
import { generateProject, prng } from '../test/support/projectTree.js';
import { SimPi } from '../test/support/simPi.js';
import { CLI, fmt, log, measure, median, mmm, rows } from './report';

/** The editor's restore may take this many times the CLI's. */
const RATIO = 1.5;

interface Setup {
  workspace: string;
  agentDir: string;
  file: string;
  target: string;
}

/** The project, its session (a small turn, then the turn that changes `changes` files), checkpoints as the bridge takes them. */
async function makeSession(agentDir: string, workspace: string, files: number, changes: number): Promise<Setup> {
  const p = generateProject(workspace, { files, seed: files });
  const sessions = new SessionRepository({ agentDir }).dirFor(workspace);
  mkdirSync(sessions, { recursive: true });
  const sim = new SimPi(workspace, agentDir, { sessionDir: sessions, timeoutMs: 600_000 });
  const readme = readFileSync(join(workspace, 'README.md'), 'utf8');
  const t1 = await sim.turn('a small one', [{ name: 'write', args: { path: 'README.md', content: readme } }], () => {});
  const rand = prng(7);
  const pool = p.files.filter((f) => !p.binary.has(f) && f !== 'README.md');
  const picked = new Set<string>();
  while (picked.size < changes) picked.add(pool[Math.floor(rand() * pool.length)]);
  const list = [...picked];
  await sim.turn('regenerate everything', [{ name: 'bash', args: { command: 'npm run codegen' } }], () => {
    list.forEach((f, i) => {
      if (i < changes * 0.9) appendFileSync(join(workspace, f), `// regenerated\n`);
      else if (i < changes * 0.95) writeFileSync(join(workspace, `${f}.gen.ts`), `export const made = ${i};\n`);
      else rmSync(join(workspace, f));
    });
  });
  if (sim.capture?.off) throw new Error(sim.capture.off);
  await sim.capture?.close();
  return { workspace, agentDir, file: sim.file, target: t1.answer };
}

/** Move here → Code only → the preview and its choice → the click on Restore → the painted "Restored" notification, in ms (page clock). */
async function clickToRestored(vs: VSCode, s: Setup, changes: number): Promise<number> {
  const wv = await openTree(vs, 'a small one');
  await selectByFind(wv, 'done: a small one', s.target);
  await wv.locator('[role="tree"]').press('Enter');
  await vs.page.locator(sel.quickInput.row).filter({ hasText: 'Code only' }).click();
  await vs.page.locator(sel.multiDiff.root).waitFor({ timeout: 120_000 });
  const restore = vs.page
    .locator(sel.notifications.toast)
    .locator(sel.notifications.button)
    .filter({ hasText: /^Restore$/ });
  await restore.first().waitFor({ timeout: 120_000 });
  // The click's own time, taken by the page as the button gets it (a toast still sliding in moves
  // under a pointer placed by its earlier box, so Playwright's click waits for it to be still).
  await vs.page.evaluate(() => {
    const w = window as unknown as { piTreeClickAt?: number };
    delete w.piTreeClickAt;
    document.addEventListener('pointerdown', () => (w.piTreeClickAt = Date.now()), { capture: true, once: true });
  });
  await restore.first().click();
  const t0 = await vs.page.evaluate(() => (window as unknown as { piTreeClickAt?: number }).piTreeClickAt ?? 0);
  if (!t0) throw new Error('the click on Restore was not seen by the page');
  const painted = await vs.page.waitForFunction(
    (root) => {
      for (const t of document.querySelectorAll(root))
        if (/Restored \d+ files/.test(t.textContent ?? '')) return Date.now();
      return 0;
    },
    sel.notifications.toast,
    { polling: 'raf', timeout: 300_000 },
  );
  const ms = (await painted.jsonValue()) - t0;
  log(`  clicked at ${new Date(t0).toISOString()}, painted ${ms} ms later`);
  const toast = vs.page.locator(sel.notifications.toast).filter({ hasText: /Restored \d+ files/ });
  if (!(await toast.textContent())?.includes(`Restored ${changes} files`))
    throw new Error(`not every file was restored: ${await toast.textContent()}`);
  // Undone from the notification, so that the next run writes the same files.
  await toast.locator(sel.notifications.button).filter({ hasText: 'Undo' }).click();
  await vs.page
    .locator(sel.notifications.toast)
    .filter({ hasText: `Put back ${changes} files` })
    .waitFor({ timeout: 300_000 });
  await vs.runCommand('Notifications: Clear All Notifications');
  await vs.runCommand('View: Close All Editors');
  return ms;
}

/** `runs` restores from the editor in one window, with a running pi or without. */
async function editorRuns(
  mode: 'pi' | 'none',
  runs: number,
  files: number,
  changes: number,
  lb: Loopback,
): Promise<{ ms: number[]; host: string[] }> {
  let s: Setup | undefined;
  let pi: PiRpc | undefined;
  let pe: PiEnv | undefined;
  const ms: number[] = [];
  const host: string[] = [];
  const vs = await VSCode.launch(`editor-restore-bench-${mode}`, {
    sessions: async ({ agentDir, workspace }) => {
      pe = makePiEnv(
        lb,
        { retry: { enabled: false }, compaction: { enabled: false } },
        { agentDir, workDir: workspace },
      );
      s = await makeSession(agentDir, workspace, files, changes);
      if (mode === 'pi') {
        pi = PiRpc.start(s.file, pe);
        await waitForBridge(s.file, pe.env, pi);
      }
    },
    timeout: 900_000,
  });
  try {
    for (let i = 0; i < runs; i++) {
      ms.push(await clickToRestored(vs, s!, changes));
      log(`editor restore (${mode === 'pi' ? 'through pi' : 'no pi'}) run ${i + 1}: ${fmt(ms.at(-1)!)} ms`);
    }
    for (const l of vs.outputChannel().split('\n')) if (/restore/i.test(l)) host.push(l);
    await vs.close();
  } catch (e) {
    await vs.close(e);
    throw e;
  } finally {
    await pi?.stop();
  }
  return { ms, host };
}

/** `runs` restores by the CLI (whole processes, no pi running), each undone after. */
async function cliRuns(runs: number, files: number, changes: number, lb: Loopback): Promise<number[]> {
  const root = join(process.env.TMPDIR ?? '/tmp', `pi-tree-editor-restore-cli-${process.pid}`);
  rmSync(root, { recursive: true, force: true });
  const agentDir = join(root, 'agent');
  const workspace = join(root, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const pe = makePiEnv(lb, {}, { agentDir, workDir: workspace });
  const s = await makeSession(agentDir, workspace, files, changes);
  const env = { ...process.env, ...pe.env, PI_CODING_AGENT_DIR: agentDir };
  const ms: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const r = await measure([CLI, 'restore', s.file, s.target], env);
      ms.push(r.ms);
      log(`cli restore run ${i + 1}: ${fmt(r.ms)} ms (cpu ${fmt(r.cpuMs)} ms)`);
      await measure([CLI, 'restore', s.file, '--undo'], env);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return ms;
}

export async function editorRestoreBench(): Promise<void> {
  const runs = Number(process.env.BENCH_ER_RUNS ?? 3);
  const files = Number(process.env.BENCH_ER_FILES ?? 10_000);
  const changes = Number(process.env.BENCH_ER_CHANGES ?? 1000);
  const load0 = loadavg()[0];
  const lb = await startLoopback(() => completionSse('ok'));
  try {
    // BENCH_ER_MODES picks phases for a look at one of them (the row is written only with all three).
    const modes = (process.env.BENCH_ER_MODES ?? 'cli,none,pi').split(',');
    const skip = { ms: [] as number[], host: [] as string[] };
    const cli = modes.includes('cli') ? await cliRuns(runs, files, changes, lb) : [];
    const none = modes.includes('none') ? await editorRuns('none', runs, files, changes, lb) : skip;
    const viaPi = modes.includes('pi') ? await editorRuns('pi', runs, files, changes, lb) : skip;
    for (const l of [...none.host, ...viaPi.host]) log(`  host: ${l}`);
    if (!cli.length || !none.ms.length || !viaPi.ms.length) return;
    const base = median(cli);
    const ratio = (xs: number[]) => median(xs) / base;
    const pass = ratio(none.ms) <= RATIO && ratio(viaPi.ms) <= RATIO;
    rows.push({
      what: `checkpoints: a restore of ${fmt(changes)} files from the editor against the CLI's, ${fmt(files / 1000)}k files, real VS Code`,
      how: `back to the turn before one that edited ${fmt(changes * 0.9)} files, made ${fmt(changes / 20)} and deleted ${fmt(changes / 20)}, the code only: Move here → Code only → the preview → the click on Restore → the first frame with the "Restored" notification (page clock), ${runs} runs in one window each, undone between; the CLI's \`pi-tree restore FILE ID\` as a whole process, no pi running`,
      target: `≤ ${RATIO}× the CLI`,
      result: `through pi ${mmm(viaPi.ms)} (${fmt(ratio(viaPi.ms), 2)}×); without pi ${mmm(none.ms)} (${fmt(ratio(none.ms), 2)}×); CLI ${mmm(cli)}; load ${fmt(load0, 1)}–${fmt(loadavg()[0], 1)}`,
      pass,
    });
  } finally {
    await lb.close();
  }
}
