// Issue #17, finding 5 in a real VS Code: a fork or a clone is told apart from its source — its tab is
// titled from its name, "… (fork 2 · 10:20)" or "… (clone 1 · 10:31)" (#34 item 5), never the raw file name; the forked message's text is offered in its tree for
// re-editing (as pi's /fork puts it in the editor); the new session is revealed and selected in the
// sidebar; and a later command goes where the user acted (F2 in the sidebar renames the selected row's
// session, whatever tree is in front) and the tab follows the new name.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { scenario } from './harness.js';
import * as sel from './selectors.js';
import { openTree, selectedEntry, until } from './uxHelpers.js';

type Line = Record<string, unknown>;
const parse = (t: string): Line[] =>
  t
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

describe('forks and clones (#17 finding 5)', () => {
  scenario(
    'a fork is named, offers its message for re-editing, is selected in the sidebar, and F2 renames the row the user picked',
    async (vs) => {
      const demo = vs.demo!;
      const wv = await openTree(vs, 'Stream the JSONL reader');
      const tab = vs.page.locator(sel.editor.activeTab);
      const rows = vs.treeRows();
      const selectedRows = rows.and(vs.page.locator('[aria-selected="true"]'));

      // A clone up to "The reader splits one big string…": its tab and row read "… (clone 1 · time)", not like
      // its source (before, a clone kept the source's title everywhere) and never the file name.
      await wv.locator(`[role="treeitem"][data-entry-id="${demo.ids.plan}"]`).click();
      await until(
        async () => ((await selectedEntry(wv)) === demo.ids.plan ? true : undefined),
        30_000,
        'the entry to be selected',
      );
      const beforeClone = new Set(readdirSync(demo.dir));
      await wv.locator('.details [data-action="clone"]').click();
      const cloneName = await until(
        () => readdirSync(demo.dir).find((f) => f.endsWith('.jsonl') && !beforeClone.has(f)),
        30_000,
        'the clone file',
      );
      const cloneFile = join(demo.dir, cloneName);
      await tab.filter({ hasText: '(clone' }).waitFor({ timeout: 30_000 });
      const cloneTitle = (await tab.textContent())!.trim();
      assert.match(cloneTitle, /^The JSONL reader load.*\(clone 1 · \d\d:\d\d\)$/, `clone tab: ${cloneTitle}`);
      await selectedRows.filter({ hasText: '(clone' }).first().waitFor({ timeout: 30_000 });
      const cloneLabel = (await selectedRows.first().textContent())!;
      await vs.screenshot('clone-revealed');
      await vs.page.locator(sel.editor.tab).filter({ hasText: 'Stream the JSONL reader' }).click();
      // Back on its tab the tree's webview is made again (hidden ones are dropped) and selects an entry
      // once its snapshot is in (the one it had, or the leaf). A query typed before that had its hit
      // found, but the snapshot's selection then took over (a fresh-clone run): the tree is waited for.
      await wv.locator('[role="tree"] [role="treeitem"][aria-selected="true"]').first().waitFor({ timeout: 60_000 });
      // Select "Add a test with a 100k-entry file." (a user message) and fork from it.
      const find = wv.locator('vscode-textfield[data-field="find"] input');
      await find.fill('"Add a test with a 100k-entry"');
      await find.press('Enter'); // applies the query and goes to its one hit
      await until(
        async () => ((await selectedEntry(wv)) === demo.ids.testsAsk ? true : undefined),
        30_000,
        'the message to be selected',
      );
      const known = new Set(readdirSync(demo.dir));
      await vs.webview().locator('.details [data-action="fork"]').click();
      const forkName = await until(
        () => readdirSync(demo.dir).find((f) => f.endsWith('.jsonl') && !known.has(f)),
        30_000,
        'the fork file',
      );
      const forkFile = join(demo.dir, forkName);

      // Its tab: named like pi names it (its first message, marked as the source's second fork: the demo
      // has one), not the file name.
      await tab.filter({ hasText: '(fork' }).waitFor({ timeout: 30_000 });
      await until(
        async () =>
          (await vs.page
            .locator(sel.editor.tab)
            .filter({ hasText: /\((fork|clone)[^)]*\)/ })
            .count()) === 2
            ? true
            : undefined,
        30_000,
        'the fork tab beside the clone tab',
      );
      const title = (await tab.textContent())!.trim();
      assert.doesNotMatch(title, /\.jsonl|019[0-9a-f]{5}-/, `tab title: ${title}`);
      assert.match(title, /^The JSONL reader loads.*\(fork 2 · \d\d:\d\d\)$/);
      // The forked message's text, offered for re-editing in the new tree.
      const fwv = vs.webview();
      const dialog = fwv.locator('[data-dialog="editor-text"]');
      await dialog.waitFor({ timeout: 60_000 });
      assert.equal(
        await dialog.locator('vscode-textarea[data-field="editor-text"] textarea').inputValue(),
        'Add a test with a 100k-entry file.',
      );
      await vs.screenshot('fork-editor-text');
      await dialog.locator('[data-action="editor-close"]').click();

      // The sidebar lists the fork, selected (not the clone's row any more), and no two rows read alike.
      await until(
        async () => {
          const t =
            (await selectedRows
              .first()
              .textContent()
              .catch(() => '')) ?? '';
          return /\(fork/.test(t) && t !== cloneLabel ? true : undefined;
        },
        30_000,
        'the fork row to be selected',
      );
      const labels = await rows.allTextContents();
      assert.equal(new Set(labels).size, labels.length, `no two rows alike: ${JSON.stringify(labels)}`);
      await vs.screenshot('fork-revealed');

      // F2 in the sidebar renames the session of the row that is selected there — the one the user sees
      // highlighted — and its tab follows the new name. (Before, the fork's tab in front took the rename
      // while the source's row stayed highlighted.)
      await vs.runCommand('pi Sessions: Focus on Sessions View');
      const selectedLabel = (await selectedRows.first().textContent())!;
      const selectedFile =
        selectedLabel === cloneLabel
          ? cloneFile
          : /\(fork/.test(selectedLabel)
            ? forkFile
            : /Stream the JSONL reader/.test(selectedLabel)
              ? demo.branched.file!
              : undefined;
      assert.ok(selectedFile, `selected row: ${selectedLabel}`);
      const others = [demo.branched.file!, forkFile, cloneFile].filter((f) => f !== selectedFile);
      await vs.page.keyboard.press('F2');
      const input = vs.page.locator(sel.quickInput.input);
      await input.waitFor();
      await input.fill('Renamed from its row');
      await input.press('Enter');
      await vs.pollFile(selectedFile, (t) =>
        parse(t).find((e) => e.type === 'session_info' && e.name === 'Renamed from its row'),
      );
      for (const other of others)
        assert.ok(
          !parse(readFileSync(other, 'utf8')).some(
            (e) => e.type === 'session_info' && e.name === 'Renamed from its row',
          ),
          'no other session was renamed',
        );
      await rows.filter({ hasText: 'Renamed from its row' }).waitFor();
      await vs.page.locator(sel.editor.tab).filter({ hasText: 'Renamed from its row' }).waitFor({ timeout: 30_000 });
      await vs.screenshot('renamed-row');
    },
  );
});
