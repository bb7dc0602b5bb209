// #32 in a real VS Code: Move here with code. A session whose turns wrote, edited and created files
// (its checkpoints taken as the bridge takes them); Move here on the first answer asks what to move,
// shows every file that will change in the multi-file diff editor, writes them once confirmed (the
// files on disk are the node's), and Undo puts back exactly what was there.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { SessionRepository } from '../../src/core/session/repository.js';
import { SimPi } from '../support/simPi.js';
import { scenario } from './harness.js';
import * as sel from './selectors.js';
import { openTree, selectByFind, until } from './uxHelpers.js';
import type { Locator } from 'playwright-core';

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** A box that stayed where it was across two animation frames (undefined while it moves). */
async function settled(l: Locator): Promise<Box | undefined> {
  const a = await l.boundingBox();
  await l.page().evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const b = await l.boundingBox();
  return a && b && a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height ? b : undefined;
}

describe('checkpoints: the code follows the tree', () => {
  const ids: Record<string, string> = {};
  let workspace = '';
  const read = (p: string) => readFileSync(join(workspace, p), 'utf8');
  scenario(
    'Move here with code: choose, preview, restore, undo',
    async (vs) => {
      const wv = await openTree(vs, 'write the reader');
      // the write's entry carries a checkpoint mark
      await selectByFind(wv, 'tool:write', ids.result1);
      await wv.locator(`[role="treeitem"][data-entry-id="${ids.result1}"].checkpoint`).waitFor({ timeout: 60_000 });
      await selectByFind(wv, 'done: write the reader', ids.a1);
      await wv
        .locator('.details .code-state')
        .filter({ hasText: /3 files differ from now/ })
        .waitFor({ timeout: 60_000 });
      await vs.screenshot('code-state');
      await wv.locator('[role="tree"]').press('Enter');
      // what should move?
      const both = vs.page.locator(sel.quickInput.row).filter({ hasText: 'Conversation and code' });
      await both.waitFor({ timeout: 30_000 });
      // the preview is readied while the choice is read: its files' documents (now, at the node) open before the click
      await vs.waitForOutput('restore preview: 6 documents ready');
      assert.equal(read('src/reader.ts'), 'export const read = () => 2;\n', 'readying writes nothing');
      await both.click();
      // the preview: every file now -> the node
      await vs.page.locator(sel.multiDiff.root).waitFor({ timeout: 60_000 });
      await until(
        async () => ((await vs.page.locator(sel.multiDiff.entry).count()) === 3 ? true : undefined),
        30_000,
        'three files in the preview',
      );
      await vs.page.locator(sel.editor.activeTab).filter({ hasText: 'Restore the code at' }).waitFor();
      await vs.screenshot('restore-preview');
      assert.equal(read('src/reader.ts'), 'export const read = () => 2;\n', 'nothing written before the confirmation');
      // the choice is beside the preview, never over it: a notification, and the same in the status bar
      const choice = vs.page
        .locator(sel.notifications.toast)
        .filter({ hasText: '3 files: 1 changed, 2 deleted; the conversation moves there' });
      await choice.waitFor({ timeout: 30_000 });
      await vs.page.locator(sel.workbench.statusBarItem).filter({ hasText: 'Restore' }).first().waitFor();
      for (const [width, height] of [
        [1600, 1000],
        [1280, 800],
      ]) {
        await vs.page.setViewportSize({ width, height });
        // (the layout settles: the first file's box and the toast's are measured once they stop moving)
        const first = await until(
          async () => settled(vs.page.locator(sel.multiDiff.entry).first()),
          30_000,
          'the first diff laid out',
        );
        const toast = await until(async () => settled(choice), 30_000, 'the choice laid out');
        await vs.screenshot(`restore-choice-${width}x${height}`);
        const leftSide = { x: first.x, y: first.y, width: first.width / 2, height: Math.min(first.height, 300) };
        assert.ok(
          !overlaps(toast, leftSide),
          `${width}×${height}: the choice ${JSON.stringify(toast)} does not cover the first diff's left side ${JSON.stringify(leftSide)}`,
        );
      }
      await vs.page.setViewportSize({ width: 1400, height: 900 });
      // the choice stays while the user reads the preview (a click into it moves the focus there)
      const preview = (await vs.page.locator(sel.multiDiff.root).boundingBox())!;
      await vs.page.mouse.click(preview.x + preview.width / 3, preview.y + preview.height / 2);
      await vs.page.mouse.wheel(0, 200);
      // (the paged scenario below chooses in the status bar)
      await choice.locator(sel.notifications.button).filter({ hasText: 'Restore' }).click();
      // done when it says so (a restore writes file by file)
      const toast = vs.page.locator(sel.notifications.toast).filter({ hasText: 'Restored 3 files' });
      await toast.waitFor({ timeout: 30_000 });
      assert.equal(read('src/reader.ts'), 'export const read = () => 1;\n', 'the restored reader');
      assert.ok(!existsSync(join(workspace, 'a.txt')) && !existsSync(join(workspace, 'b.txt')));
      assert.equal(read('notes.txt'), 'mine\n', 'the user file untouched');
      // the conversation moved too
      await wv.locator(`[role="treeitem"][data-entry-id="${ids.a1}"].leaf`).waitFor({ timeout: 30_000 });
      await vs.screenshot('restored');
      // Undo from the notification
      await toast.locator(sel.notifications.button).filter({ hasText: 'Undo' }).click();
      await vs.page
        .locator(sel.notifications.toast)
        .filter({ hasText: 'Put back 3 files' })
        .waitFor({ timeout: 30_000 });
      assert.equal(read('src/reader.ts'), 'export const read = () => 2;\n', 'the reader put back');
      assert.equal(read('a.txt'), 'a\n');
      assert.equal(read('b.txt'), 'b\n');
    },
    {
      sessions: async ({ agentDir, workspace: ws }) => {
        workspace = ws;
        const sessions = new SessionRepository({ agentDir }).dirFor(ws);
        mkdirSync(sessions, { recursive: true });
        writeFileSync(join(ws, 'notes.txt'), 'mine\n');
        const sim = new SimPi(ws, agentDir, { sessionDir: sessions });
        const t1 = await sim.turn(
          'write the reader',
          [{ name: 'write', args: { path: 'src/reader.ts', content: 'export const read = () => 1;\n' } }],
          () => {
            mkdirSync(join(ws, 'src'), { recursive: true });
            writeFileSync(join(ws, 'src/reader.ts'), 'export const read = () => 1;\n');
          },
        );
        ids.a1 = t1.answer;
        ids.result1 = t1.results[0];
        await sim.turn(
          'make it two',
          [{ name: 'edit', args: { path: 'src/reader.ts', edits: [{ oldText: '1', newText: '2' }] } }],
          () => writeFileSync(join(ws, 'src/reader.ts'), 'export const read = () => 2;\n'),
        );
        await sim.turn('add files', [{ name: 'bash', args: { command: 'echo a > a.txt && echo b > b.txt' } }], () => {
          writeFileSync(join(ws, 'a.txt'), 'a\n');
          writeFileSync(join(ws, 'b.txt'), 'b\n');
        });
      },
    },
  );

  const paged: Record<string, string> = {};
  scenario(
    'a restore of many files: the first ones previewed at once, all on demand, a conflict decided',
    async (vs) => {
      const wv = await openTree(vs, 'write the app');
      await selectByFind(wv, 'done: write the app', paged.a1);
      await wv.locator('[role="tree"]').press('Enter');
      await vs.page.locator(sel.quickInput.row).filter({ hasText: 'Conversation and code' }).click();
      // 26 files: the preview opens with the first 20, the conflict first
      await vs.waitForOutput('restore preview: 20 of 26 files');
      await vs.page.locator(sel.editor.activeTab).filter({ hasText: '(20 files)' }).waitFor({ timeout: 30_000 });
      await vs.page.locator(sel.multiDiff.entry).first().filter({ hasText: '03.txt' }).waitFor({ timeout: 30_000 });
      await vs.page.locator(sel.workbench.statusBarItem).filter({ hasText: 'Preview All 26 Files' }).click();
      await vs.waitForOutput('restore preview: 26 of 26 files');
      await vs.page
        .locator(sel.editor.activeTab)
        .filter({ hasText: /Restore the code at .*1 you changed since \(26 files\)/ })
        .waitFor({ timeout: 30_000 });
      assert.equal(read('src/app.ts'), 'v2\n', 'nothing written before the decision');
      await vs.page
        .locator(sel.notifications.toast)
        .filter({ hasText: 'You changed gen/03.txt since' })
        .waitFor({ timeout: 30_000 });
      await vs.page.locator(sel.workbench.statusBarItem).filter({ hasText: 'Keep Mine' }).click();
      await vs.page
        .locator(sel.notifications.toast)
        .filter({ hasText: /Restored \d+ files/ })
        .waitFor({ timeout: 30_000 });
      assert.equal(read('src/app.ts'), 'v1\n', 'the app as it was');
      assert.ok(
        !existsSync(join(workspace, 'gen/00.txt')) && !existsSync(join(workspace, 'gen/24.txt')),
        'the generated files deleted',
      );
      assert.equal(read('gen/03.txt'), 'mine\n', 'the file the user changed since is kept');
      // forward again, conversation only: the leaf moves, the files stay, no preview opens
      await selectByFind(wv, 'done: generate', paged.a2);
      await wv.locator('[role="tree"]').press('Enter');
      await vs.page.locator(sel.quickInput.row).filter({ hasText: 'Conversation only' }).click();
      await wv.locator(`[role="treeitem"][data-entry-id="${paged.a2}"].leaf`).waitFor({ timeout: 30_000 });
      assert.equal(read('src/app.ts'), 'v1\n', 'the files stay');
      assert.equal(await vs.page.locator(sel.multiDiff.root).count(), 0, 'no preview');
    },
    {
      sessions: async ({ agentDir, workspace: ws }) => {
        workspace = ws;
        const sessions = new SessionRepository({ agentDir }).dirFor(ws);
        mkdirSync(sessions, { recursive: true });
        const sim = new SimPi(ws, agentDir, { sessionDir: sessions });
        const t1 = await sim.turn(
          'write the app',
          [{ name: 'write', args: { path: 'src/app.ts', content: 'v1\n' } }],
          () => {
            mkdirSync(join(ws, 'src'), { recursive: true });
            writeFileSync(join(ws, 'src/app.ts'), 'v1\n');
          },
        );
        paged.a1 = t1.answer;
        const t2 = await sim.turn('generate', [{ name: 'bash', args: { command: 'npm run generate' } }], () => {
          writeFileSync(join(ws, 'src/app.ts'), 'v2\n');
          mkdirSync(join(ws, 'gen'), { recursive: true });
          for (let i = 0; i < 25; i++)
            writeFileSync(join(ws, `gen/${String(i).padStart(2, '0')}.txt`), `generated ${i}\n`);
        });
        paged.a2 = t2.answer;
        writeFileSync(join(ws, 'gen/03.txt'), 'mine\n'); // the user's edit after the turn
      },
    },
  );
});
