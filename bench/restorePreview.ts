// The restore preview in the real VS Code (the target: "the preview's first diff shown < 500 ms after the
// click"): from the click on "Conversation and code" in Move here's choice to the frame in which VS
// Code's multi-file diff editor has the first diff's lines, for a turn that changed 1,000 files of a
// 10,000-file project (generated in the workspace, its checkpoints taken as the bridge takes them).
// The click time is Date.now() in the workbench page right before the press; the end is the first
// animation frame (polled each frame) with a diff line in the editor. A fresh VS Code per run (the
// first preview in a window), then a second preview in that window; each kind of run twice: clicked as
// soon as the choice shows, and clicked after reading it for a second (pi-tree readies the preview
// while the choice is read, as a user reads it).
// BENCH_ONLY=restorepreview; BENCH_RP_RUNS (3), BENCH_RP_FILES (10,000), BENCH_RP_CHANGES (1,000).
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { SessionRepository } from '../src/core/session/repository.js';
import { VSCode } from '../test/e2e/harness.js';
import * as sel from '../test/e2e/selectors.js';
import { openTree, selectByFind } from '../test/e2e/uxHelpers.js';
import { generateProject, prng } from '../test/support/projectTree.js';
import { SimPi } from '../test/support/simPi.js';
import { fmt, log, mmm, rows } from './report';

const TARGET_MS = 500;
/** How long the second kind of run reads Move here's choice before clicking (a user reads three rows). */
const READ_MS = 1000;
/** Why the target is missed (written into the row when it is). */
const WHY =
  ". Not met: pi-tree's part is ~30 ms (the click to VS Code's command, page and host clocks); the rest is VS Code's multi-file diff editor. Once its documents are loaded it draws the diff editors in view (5 at 1400×900) in one go, ~0.45 s on this machine, the floor in a warm window. A new window first activates the files' languages (8 here) and loads their grammars and starts the diff worker: pi-tree opens the first 20 files and starts the worker while the choice is read, which takes ~1 s off a click made after reading (the preview opens with those 20 files, the rest on demand)";

/** The click on the choice → the first diff line in the multi-file diff editor, in ms. */
async function clickToFirstDiff(
  vs: VSCode,
  wv: ReturnType<VSCode['webview']>,
  target: string,
  readMs: number,
): Promise<number> {
  await selectByFind(wv, 'done: a small one', target);
  await wv.locator('[role="tree"]').press('Enter');
  const row = vs.page.locator(sel.quickInput.row).filter({ hasText: 'Conversation and code' });
  await row.waitFor({ timeout: 60_000 });
  // The user reading the choice: the one fixed wait here is the thing measured, not a stand-in for a condition.
  if (readMs) await vs.page.waitForTimeout(readMs);
  const box = (await row.boundingBox())!;
  await vs.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const t0 = await vs.page.evaluate(() => Date.now());
  await vs.page.mouse.down();
  await vs.page.mouse.up();
  const painted = await vs.page.waitForFunction(
    (root) => {
      const line = document.querySelector(`${root} .monaco-diff-editor .view-line`);
      return line && line.textContent?.trim() ? Date.now() : 0;
    },
    sel.multiDiff.root,
    { polling: 'raf', timeout: 120_000 },
  );
  return (await painted.jsonValue()) - t0;
}

export async function restorePreviewBench(): Promise<void> {
  const runs = Number(process.env.BENCH_RP_RUNS ?? 3);
  const files = Number(process.env.BENCH_RP_FILES ?? 10_000);
  const changes = Number(process.env.BENCH_RP_CHANGES ?? 1000);
  const first: Record<number, number[]> = { 0: [], [READ_MS]: [] };
  const again: Record<number, number[]> = { 0: [], [READ_MS]: [] };
  const load0 = loadavg()[0];
  for (let i = 0; i < runs * 2; i++) {
    const run = i >> 1;
    const readMs = i % 2 ? READ_MS : 0;
    let target = '';
    const vs = await VSCode.launch(`restore-preview-bench-${i}`, {
      sessions: async ({ agentDir, workspace }) => {
        const p = generateProject(workspace, { files, seed: files });
        const sessions = new SessionRepository({ agentDir }).dirFor(workspace);
        mkdirSync(sessions, { recursive: true });
        const sim = new SimPi(workspace, agentDir, { sessionDir: sessions, timeoutMs: 600_000 });
        const readme = readFileSync(join(workspace, 'README.md'), 'utf8');
        const t1 = await sim.turn(
          'a small one',
          [{ name: 'write', args: { path: 'README.md', content: readme } }],
          () => {},
        );
        target = t1.answer;
        const rand = prng(run + 1);
        const edited = new Set<string>();
        const pool = p.files.filter((f) => !p.binary.has(f) && f !== 'README.md');
        while (edited.size < changes) edited.add(pool[Math.floor(rand() * pool.length)]);
        await sim.turn('regenerate everything', [{ name: 'bash', args: { command: 'npm run codegen' } }], () => {
          for (const f of edited) appendFileSync(join(workspace, f), `// regenerated ${run}\n`);
        });
        if (sim.capture?.off) throw new Error(sim.capture.off);
        writeFileSync(join(workspace, '.bench-note'), 'restore preview bench\n');
      },
      timeout: 600_000,
    });
    try {
      const wv = await openTree(vs, 'a small one');
      first[readMs].push(await clickToFirstDiff(vs, wv, target, readMs));
      // Cancel the restore (the choice beside the preview), close the preview, ask again.
      await vs.page.mouse.move(0, 0); // the row's hover would cover the next one
      await vs.page.locator(sel.quickInput.row).filter({ hasText: 'write nothing' }).click();
      await vs.page.locator(sel.quickInput.widget).waitFor({ state: 'hidden' });
      await vs.runCommand('View: Close All Editors');
      const wv2 = await openTree(vs, 'a small one');
      again[readMs].push(await clickToFirstDiff(vs, wv2, target, readMs));
      log(
        `restore preview run ${run + 1}, clicked after ${readMs} ms: first ${fmt(first[readMs].at(-1)!)} ms, again ${fmt(again[readMs].at(-1)!)} ms`,
      );
      for (const l of vs.outputChannel().split('\n')) if (l.includes('restore preview:')) log(`  host: ${l}`);
      await vs.close();
    } catch (e) {
      await vs.close(e);
      throw e;
    }
  }
  const worst = Math.max(...Object.values(first).flat(), ...Object.values(again).flat());
  rows.push({
    what: `checkpoints: the restore preview's first diff after the click, ${fmt(changes)} of ${fmt(files / 1000)}k files, real VS Code`,
    how: `click on "Conversation and code" → the first frame with a diff line in the multi-file diff editor (page clocks); ${runs} fresh windows clicked as soon as the choice shows, ${runs} after reading it for ${fmt(READ_MS / 1000)} s`,
    target: `< ${TARGET_MS} ms`,
    result: `clicked at once: first in a window ${mmm(first[0])}, again ${mmm(again[0])}; after reading: first ${mmm(first[READ_MS])}, again ${mmm(again[READ_MS])}; load ${fmt(load0, 1)}–${fmt(loadavg()[0], 1)}${worst < TARGET_MS ? '' : WHY}`,
    pass: worst < TARGET_MS,
  });
}
