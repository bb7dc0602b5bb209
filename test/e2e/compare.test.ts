// #15 in a real VS Code: compare two branches of the demo session (the compare view: ancestor, sides,
// totals, files), open an edit's diff from the details pane (VS Code's diff editor shows the replaced
// and the new text), open the fork from its link node (its tree links back), fold what is off the path.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { scenario } from './harness.js';
import * as sel from './selectors.js';
import { openTree, selectByFind } from './uxHelpers.js';

describe('compare, code changes and the family tree', () => {
  scenario(
    'compare two branches, open an edit as a diff, open the fork from its link, fold off the path',
    async (vs) => {
      const demo = vs.demo!;
      const ids = demo.ids;
      const editResult = demo.branched.entries.find(
        (e) => (e.message as { toolName?: string } | undefined)?.toolName === 'edit',
      )!.id;
      let wv = await openTree(vs, 'Stream the JSONL reader');

      // The edit's tool result: its change in the details pane, opened in VS Code's diff editor
      await selectByFind(wv, 'edit: src', editResult);
      const change = wv.locator('.details .changes button.change-open').first();
      await change.waitFor({ timeout: 30_000 });
      assert.equal(await change.textContent(), 'edit src/core/reader.ts');
      await change.click();
      const original = vs.page.locator(sel.diffEditor.original);
      const modified = vs.page.locator(sel.diffEditor.modified);
      await original.filter({ hasText: 'readFileSync' }).waitFor({ timeout: 60_000 });
      await modified.filter({ hasText: 'createReadStream' }).waitFor();
      assert.equal((await original.textContent())?.trim(), 'readFileSync');
      assert.equal((await modified.textContent())?.trim(), 'createReadStream');
      await vs.page.locator(sel.editor.activeTab).filter({ hasText: 'reader.ts' }).waitFor();
      await vs.screenshot('edit-diff');

      // Back to the tree (the edit's changes listed, its node marked, the fork drawn as a link node)
      await vs.page.locator(sel.editor.tab).filter({ hasText: 'Stream the JSONL reader' }).click();
      wv = vs.webview();
      await wv.locator('[role="tree"] [role="treeitem"]').first().waitFor({ timeout: 60_000 });
      await selectByFind(wv, 'edit: src', editResult);
      await wv.locator('.details .changes button.change-open').waitFor({ timeout: 30_000 });
      await wv.locator('[role="treeitem"].k-link').waitFor({ timeout: 60_000 });
      await vs.screenshot('tree-changes');

      // Compare the dead end with the current leaf
      await selectByFind(wv, 'no built-in mmap', ids.mmapAnswer);
      await wv.locator('.details [data-action="compare-leaf"]').click();
      const cmp = vs.webview();
      await cmp.locator('.cmp-ancestor').filter({ hasText: ids.plan }).waitFor({ timeout: 60_000 });
      await cmp.locator('.cmp-card.side-a').filter({ hasText: 'no built-in mmap' }).waitFor();
      // side B (the leaf) edited the reader; its totals come after the first screen
      await cmp.locator('.cmp-card.side-b dl.cmp-totals').waitFor({ timeout: 60_000 });
      await cmp.locator('.cmp-card.side-b .cmp-files li').filter({ hasText: 'src/core/reader.ts' }).waitFor();
      assert.match(
        (await cmp.locator('.cmp-card.side-a dl.cmp-totals').textContent()) ?? '',
        /Messages2 \(1 user, 1 assistant, 0 tool results\)/,
      );
      assert.ok((await cmp.locator('.cmp-row').count()) >= 2);
      await cmp.locator('.cmp-row').filter({ hasText: 'Go with chunked reads' }).waitFor();
      await vs.screenshot('compare');

      // A row's two turns in the diff editor
      await cmp.locator('.cmp-row[data-row="1"] [data-action="diff-row"]').click();
      await vs.page
        .locator(sel.diffEditor.original)
        .filter({ hasText: 'Could we memory-map the file instead?' })
        .waitFor({ timeout: 60_000 });
      await vs.page.locator(sel.diffEditor.modified).filter({ hasText: 'Go with chunked reads' }).waitFor();

      // The fork: a link node under the entry it came from; a double click opens its tree, which links back
      await vs.page.locator(sel.editor.tab).filter({ hasText: 'Stream the JSONL reader' }).first().click();
      wv = vs.webview();
      const link = wv.locator('[role="treeitem"].k-link');
      await link.waitFor({ timeout: 60_000 });
      // (named as the sidebar names it: by the first message it went on with, #34 item 5)
      assert.match((await link.textContent()) ?? '', /fork: Before streaming: measure how long/);
      const parentId = await wv.locator(`[role="treeitem"][data-entry-id="${ids.plan}"]`).count();
      assert.equal(parentId, 1);
      await vs.screenshot('fork-link');
      await link.dblclick();
      const back = vs
        .webview()
        .locator('[role="treeitem"].k-link')
        .filter({ hasText: 'from: Stream the JSONL reader' });
      await back.waitFor({ timeout: 60_000 });
      await vs
        .webview()
        .locator('[role="treeitem"]')
        .filter({ hasText: 'measure how long the current reader takes' })
        .waitFor();
      await vs.screenshot('fork-opened');

      // Fold every branch off the current path: the mmap dead end becomes one folded node
      await vs.page.locator(sel.editor.tab).filter({ hasText: 'Stream the JSONL reader' }).first().click();
      wv = vs.webview();
      await wv.locator('[role="tree"] [role="treeitem"]').first().waitFor({ timeout: 60_000 });
      await wv.locator('[role="tree"]').focus();
      await wv.locator('[role="tree"]').press('Shift+Z');
      // (the outline's row: the graph draws only what is in its viewport)
      await wv
        .locator(`[role="treeitem"][data-entry-id="${ids.tryMmap}"] .folded-count`)
        .filter({ hasText: '+1' })
        .waitFor({ timeout: 30_000 });
      assert.equal(await wv.locator(`[role="treeitem"][data-entry-id="${ids.mmapAnswer}"]`).count(), 0);
      await vs.screenshot('folded');
    },
  );
});
