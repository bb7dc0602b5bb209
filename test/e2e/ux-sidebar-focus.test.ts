// Issue #34 item 4 in a real VS Code: a single click on a sidebar row shows the session's tree without
// taking the keyboard (F2 then renames the session, as it does in the sidebar), like VS Code's own
// preview editors; a double click or Enter on the row moves the focus into the tree.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type { VSCode } from './harness.js';
import { contributed, scenario } from './harness.js';
import * as sel from './selectors.js';
import { openTree, until } from './uxHelpers.js';

/** Where the workbench's keyboard focus is: the side bar, our tree's webview (its iframe), or elsewhere. */
const focusPart = (vs: VSCode) =>
  vs.page.evaluate(
    ({ sideBar, tree }) => {
      const a = document.activeElement;
      if (!a) return 'none';
      if (a.closest(sideBar)) return 'sidebar';
      if (a.matches(tree)) return 'tree';
      return a.tagName;
    },
    { sideBar: sel.workbench.sideBar, tree: sel.webview.outer(contributed.extensionId) },
  );

describe('a sidebar click keeps the keyboard (#34 item 4)', () => {
  scenario(
    'one click shows the tree and F2 still renames the session; a double click or Enter moves the focus into the tree',
    async (vs) => {
      // (openTree clicks the row once, and again only if the listing's redraw swallowed the click or moved
      // another row under it: 20 s later, never a double click)
      const wv = await openTree(vs, 'What does the leaf of a pi session mean?');
      const small = vs.treeRows().filter({ hasText: 'What does the leaf of a pi session mean?' });
      // The details pane is drawn a frame after the tree: by then the webview has done all it does on opening.
      await wv.locator('.details [data-action]').first().waitFor({ timeout: 60_000 });
      assert.equal(await focusPart(vs), 'sidebar', 'the click left the keyboard in the sidebar');
      await vs.screenshot('previewed');

      // F2 goes to the sidebar: VS Code's input box for the session's name, not the tree's label editor.
      await vs.page.keyboard.press('F2');
      const input = vs.page.locator(sel.quickInput.input);
      await input.waitFor({ timeout: 30_000 });
      assert.equal(await wv.locator('.label-editor').count(), 0, 'no label editor opened in the tree');
      assert.match((await vs.page.locator(sel.quickInput.widget).textContent()) ?? '', /Session name/);
      await input.press('Escape');
      await input.waitFor({ state: 'hidden' });

      // A double click takes the focus into the tree (the tab is pinned as VS Code's own editors are).
      await small.dblclick();
      await until(
        async () => ((await focusPart(vs)) === 'tree' ? true : undefined),
        30_000,
        'the focus to move into the tree',
      );
      await vs.screenshot('double-click');

      // Enter on a row opens its tree with the focus.
      await openTree(vs, 'Stream the JSONL reader');
      await until(
        async () => ((await focusPart(vs)) === 'sidebar' ? true : undefined),
        30_000,
        'the click to keep the focus in the sidebar',
      );
      await vs.page.keyboard.press('Enter');
      await until(
        async () => ((await focusPart(vs)) === 'tree' ? true : undefined),
        30_000,
        'Enter to move the focus into the tree',
      );
      await vs.screenshot('enter');
    },
  );
});
