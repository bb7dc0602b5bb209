// Try variants from here in a real VS Code with the real pi 1.6.0 and a loopback model: Shift+V on a
// node whose code is a checkpoint (pi wrote src/app.ts with the bridge), the prompt, "3 variants" and a
// check command in VS Code's own inputs; the variants view shows the three side by side, each with the
// file it wrote and its check's exit code; one is adopted (previewed, chosen, its file appears in the
// user's folder) and undone (the folder as it was). The node's context menu and the palette ("pi Tree:
// Try Variants from Here…") reach the same first question.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { sessionDirFor, sessionFileName } from '../../scripts/lib/demoSessions.js';
import { lastUserText, stepsDone } from '../support/askPi.js';
import { completionSse, startLoopback, toolCallsSse, type Loopback } from '../support/loopbackOpenAI.js';
import { makePiEnv, PiRpc, piShim } from '../support/piRpc.js';
import { scenario } from './harness.js';
import * as sel from './selectors.js';
import { contextMenuItem, openTree, selectByFind, until } from './uxHelpers.js';

const PROMPT = 'write the answer';

describe('Try variants from here', () => {
  let lb: Loopback | undefined;
  let workspace = '';
  let nodeId = '';
  let bin = '';
  before(async () => {
    lb = await startLoopback((req) => {
      const user = lastUserText(req);
      const done = stepsDone(req);
      if (user === 'write the app')
        return done === 0
          ? toolCallsSse([{ name: 'write', arguments: { path: 'src/app.ts', content: 'export const app = 1;\n' } }])
          : completionSse('app written');
      if (user === PROMPT)
        return done === 0
          ? toolCallsSse([{ name: 'write', arguments: { path: 'answer.txt', content: 'ok\nfine\n' } }])
          : completionSse('I wrote answer.txt.');
      return completionSse(`answer: ${user}`);
    });
  });
  after(async () => lb?.close());

  scenario(
    'three variants with a check, side by side; one adopted into the folder and undone',
    async (vs) => {
      const wv = await openTree(vs, 'write the app');
      await selectByFind(wv, 'app written', nodeId);
      const input = vs.page.locator(sel.quickInput.input);
      const firstQuestion = vs.page
        .locator(sel.quickInput.widget)
        .filter({ hasText: 'Try variants from the answer “app written” (1/3)' });
      const leaveQuestion = async () => {
        await input.press('Escape');
        await firstQuestion.first().waitFor({ state: 'hidden' });
      };
      // The node's context menu and the palette reach the first question (left with Escape: nothing runs).
      const row = wv.locator(`[role="treeitem"][data-entry-id="${nodeId}"]`);
      const item = await contextMenuItem(vs, row, /^Try Variants from Here…$/, 'the node menu with Try Variants…');
      await vs.screenshot('variants-menu');
      await item.click();
      await firstQuestion.first().waitFor({ timeout: 60_000 });
      await vs.screenshot('variants-from-menu');
      await leaveQuestion();
      await vs.runCommand('pi Tree: Try Variants from Here…', { thenInput: true });
      await firstQuestion.first().waitFor({ timeout: 60_000 });
      await vs.screenshot('variants-from-palette');
      await leaveQuestion();
      await wv.locator('[role="tree"]').press('Shift+V');
      // VS Code's inputs: the prompt, how many, the check.
      await input.waitFor({ state: 'visible' });
      await input.fill(PROMPT);
      await input.press('Enter');
      await vs.page.locator(sel.quickInput.row).filter({ hasText: '3 variants' }).first().click();
      await until(
        async () => ((await input.inputValue()) === '' && (await input.isVisible()) ? true : undefined),
        30_000,
        'the check question',
      );
      await input.fill('grep -q ok answer.txt');
      await input.press('Enter');
      // The variants view: three columns, each done with its file and its check passed.
      const view = vs.webview();
      const cols = view.locator('.var-col');
      await cols.nth(2).waitFor({ timeout: 120_000 });
      for (let i = 0; i < 3; i++) {
        await view.locator(`.var-col[data-index="${i}"][data-phase="done"]`).waitFor({ timeout: 240_000 });
        await view.locator(`.var-col[data-index="${i}"] .var-file`).filter({ hasText: 'answer.txt' }).waitFor();
        await view.locator(`.var-col[data-index="${i}"] .var-check-head`).filter({ hasText: 'exit code 0' }).waitFor();
      }
      const boxes = await Promise.all([0, 1, 2].map((i) => cols.nth(i).boundingBox()));
      assert.ok(boxes[0]!.x < boxes[1]!.x && boxes[1]!.x < boxes[2]!.x, `side by side: ${JSON.stringify(boxes)}`);
      // The node named by its text, as the tree and VS Code's questions name it (never by its id).
      assert.match((await view.locator('.var-from').textContent())!, /^From the answer “app written” · check: /);
      await vs.screenshot('variants-view');
      assert.equal(existsSync(join(workspace, 'answer.txt')), false, "no variant wrote into the user's folder");
      // The variants are forks of the node: the tree shows them as link nodes (its family read again).
      await vs.page.locator(sel.editor.tab).filter({ hasText: 'write the app' }).first().click();
      await vs.webview().locator('[role="treeitem"].k-link').first().waitFor({ timeout: 120_000 });
      await vs.screenshot('variants-in-tree');
      // Back in the view (made again from the run the host holds: it is not kept while hidden).
      await vs.page.locator(sel.editor.tab).filter({ hasText: 'Variants:' }).first().click();
      await view.locator('.var-col[data-index="2"][data-phase="done"]').waitFor({ timeout: 60_000 });

      // Adopt the second: the preview, "Adopt" in the choice, the file in the user's folder.
      await view.locator('.var-col[data-index="1"] [data-action="adopt"]').click();
      // (the choice is a notification beside the preview, as a restore's is)
      const choice = vs.page
        .locator(sel.notifications.toast)
        .filter({ has: vs.page.locator(sel.notifications.button).filter({ hasText: /^Adopt$/ }) });
      await choice.first().waitFor({ timeout: 120_000 });
      await choice
        .first()
        .locator(sel.notifications.button)
        .filter({ hasText: /^Adopt$/ })
        .click();
      await until(
        () =>
          existsSync(join(workspace, 'answer.txt')) &&
          readFileSync(join(workspace, 'answer.txt'), 'utf8') === 'ok\nfine\n'
            ? true
            : undefined,
        60_000,
        'the adopted file',
      );
      await vs.notifications().filter({ hasText: 'Adopted 1 file of variant 2' }).first().waitFor({ timeout: 60_000 });
      await vs.screenshot('adopted');
      // Undo from the notification: the folder as it was.
      await vs
        .notifications()
        .filter({ hasText: 'Adopted 1 file of variant 2' })
        .first()
        .getByRole('button', { name: 'Undo' })
        .click();
      await until(
        () => (!existsSync(join(workspace, 'answer.txt')) ? true : undefined),
        60_000,
        'the adopted file gone again',
      );
      assert.equal(
        readFileSync(join(workspace, 'src', 'app.ts'), 'utf8'),
        'export const app = 1;\n',
        "the user's own files untouched",
      );
    },
    {
      sessions: async ({ agentDir, workspace: ws }) => {
        workspace = ws;
        const pe = makePiEnv(
          lb!,
          { retry: { enabled: false }, compaction: { enabled: false } },
          { agentDir, workDir: ws },
        );
        bin = piShim(join(agentDir, '..'));
        writeFileSync(join(ws, 'README.md'), 'hello\n');
        mkdirSync(sessionDirFor(agentDir, ws), { recursive: true });
        const file = join(
          sessionDirFor(agentDir, ws),
          sessionFileName('2026-03-01T10:00:00.000Z', '019b8f3a-0000-7000-8000-00000000e2b1'),
        );
        const pi = PiRpc.start(file, pe);
        try {
          await pi.ready();
          await pi.prompt('write the app');
          nodeId = (await pi.leaf())!;
        } finally {
          await pi.stop();
        }
      },
      settings: () => ({ 'piTree.piCommand': join(bin, 'pi') }),
      env: { PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
      timeout: 600_000,
    },
  );
});
