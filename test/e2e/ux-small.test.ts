// Issue #17, finding 7 in a real VS Code: the summary dialog without a model offers "Set up a model…"
// (VS Code's settings open on the summary settings, and once a model is set the dialog offers to
// summarize); Enter in the focus box asks the model; the shortcut sheet tells the 0 key from O.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { completionJson, startLoopback, type Loopback } from '../support/loopbackOpenAI.js';
import { scenario } from './harness.js';
import { openTree, selectedEntry, until } from './uxHelpers.js';

describe('small things (#17 finding 7)', () => {
  let server: Loopback;
  before(async () => {
    server = await startLoopback((req) =>
      completionJson(
        `## Goal\nFocus was: ${String(req.body.messages?.[req.body.messages.length - 1]?.content ?? '').slice(-40)}`,
      ),
    );
  });
  after(() => server?.close());

  scenario(
    'no model: "Set up a model…" opens the summary settings; with one, Enter in the focus box summarizes; 0 and O keycaps differ',
    async (vs) => {
      const demo = vs.demo!;
      const wv = await openTree(vs, 'Stream the JSONL reader');
      await wv.locator(`[role="treeitem"][data-entry-id="${demo.ids.plan}"]`).click();
      await until(async () => ((await selectedEntry(wv)) === demo.ids.plan ? true : undefined));
      await wv.locator('.details [data-action="move-summary"]').click();
      const dialog = wv.locator('[data-dialog="summary"]');
      const setup = dialog.locator('[data-action="summary-setup"]');
      await setup.waitFor();
      await vs.screenshot('no-model');
      await setup.click();
      // VS Code's settings editor, searching the summary settings.
      const search = vs.page
        .locator(
          '.settings-editor .suggest-input-container .monaco-editor textarea, .settings-editor .search-container .monaco-editor textarea',
        )
        .first();
      await vs.page.locator('.settings-editor').waitFor({ timeout: 30_000 });
      await until(
        async () => ((await vs.page.locator('.settings-editor').textContent())?.includes('Summary') ? true : undefined),
        30_000,
        'the summary settings',
      );
      assert.ok(await search.count());
      await vs.screenshot('settings');
      // Set the model there, as a user would: the model settings are per machine (code-server is the
      // remote host), so on the Remote tab; the open tree hears the change.
      const settings = vs.page.locator('.settings-editor');
      await settings.locator('.settings-tabs-widget .action-label').filter({ hasText: 'Remote' }).click();
      await settings.locator('.suggest-input-container .monaco-editor').first().click();
      await vs.page.keyboard.press('Control+A');
      // (by id: a plain search also lists piTree.summary.vscodeLmModel, whose row the list can redraw
      // under the typing; CI once typed the model there)
      await vs.page.keyboard.type('@id:piTree.summary.model');
      const model = settings.locator('.setting-item-contents[data-key="piTree.summary.model"]');
      // The editor writes the value a moment after the field shows it (closing it before then drops the
      // edit), and a list the search is still redrawing can replace the field under the typing: the
      // value is typed again until the write lands in the (remote) machine settings.
      const machine = join(vs.runDir, 'user-data', 'Machine', 'settings.json');
      const saved = () =>
        existsSync(machine) && /"piTree\.summary\.model"\s*:\s*"e2e-model"/.test(readFileSync(machine, 'utf8'));
      await until(
        async () => {
          if (saved()) return true;
          await model.locator('input').fill('e2e-model');
          await model.locator('input').press('Tab');
          await until(() => (saved() ? true : undefined), 10_000, 'the model setting to be saved').catch(() => {});
          return saved() ? true : undefined;
        },
        60_000,
        'the model setting to be saved',
      );
      await settings
        .locator('.setting-item-contents.is-configured[data-key="piTree.summary.model"]')
        .waitFor({ timeout: 30_000 });
      await vs.screenshot('model-set');
      // This VS Code shows the settings in a modal editor over the workbench: close it by its X.
      await vs.page.locator('.modal-editor-action-container .codicon-close').first().click();
      await settings.waitFor({ state: 'hidden', timeout: 30_000 });
      await vs.page
        .locator('.monaco-workbench .part.editor .tabs-container .tab')
        .filter({ hasText: 'Stream the JSONL reader' })
        .click();
      const w2 = vs.webview();
      await w2.locator(`[role="treeitem"][data-entry-id="${demo.ids.plan}"]`).click();
      await until(
        async () => {
          await w2.locator('.details [data-action="move-summary"]').click();
          // The dialog's choices are there (with or without a model) before they are counted.
          await w2.locator('[data-dialog="summary"] [data-action="summary-none"]').waitFor();
          const custom = await w2.locator('[data-dialog="summary"] [data-action="summary-custom"]').count();
          if (!custom) await w2.locator('[data-dialog="summary"] [data-action="summary-cancel"]').click();
          return custom ? true : undefined;
        },
        60_000,
        'the summary dialog to offer the model',
      );
      await w2.locator('[data-dialog="summary"] [data-action="summary-custom"]').click();
      const focus = w2.locator('[data-dialog="summary"] vscode-textarea[data-field="focus"] textarea');
      await focus.click();
      await focus.pressSequentially('the mmap decision', { delay: 10 });
      await focus.press('Enter');
      const text = w2.locator('[data-dialog="summary"] vscode-textarea[data-field="summary"] textarea');
      await until(
        async () => ((await text.inputValue().catch(() => '')).includes('## Goal') ? true : undefined),
        90_000,
        'the preview',
      );
      assert.equal(server.requests.length, 1, 'Enter asked the model once');
      assert.match(JSON.stringify(server.requests[0].body), /the mmap decision/);
      await vs.screenshot('focus-enter');
      await w2.locator('[data-dialog="summary"] [data-action="summary-cancel"]').click();

      // The shortcut sheet: the 0 (zero) key is not the letter O.
      await w2.locator('[role="tree"]').focus();
      await w2.locator('[role="tree"]').press('Shift+Slash');
      const sheet = w2.locator('[data-dialog="shortcuts"]');
      await sheet.waitFor();
      const fit = (await sheet.locator('tr[data-command="view.fit"] kbd').first().textContent())!;
      const filter = (await sheet.locator('tr[data-command="filter.next"] kbd').first().textContent())!;
      assert.equal(filter, 'O');
      assert.match(fit, /zero/);
      await vs.screenshot('keys');
    },
    {
      settings: () => ({
        'piTree.summary.provider': 'openai-compatible',
        'piTree.summary.endpoint': server.url,
        'piTree.summary.model': '',
      }),
      timeout: 400_000,
    },
  );
});
