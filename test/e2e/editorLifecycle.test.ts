// Opening a tree at an entry and closing every view of a deleted session, in a real VS Code:
// "Show in tree" from a CodeLens opens the tree with that entry selected once the webview is ready
// (no fixed delay that a slow start outruns), and deleting the session closes its tree panel and its
// custom editor alike.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { describe } from 'node:test';
import { scenario } from './harness.js';
import * as sel from './selectors.js';
import { contextMenuItem } from './uxHelpers.js';

describe('tree panels and editors of a session', () => {
  scenario('show in tree selects the entry; deleting the session closes its panel and its editor', async (vs) => {
    const demo = vs.demo!;
    const file = demo.branched.file!;
    await vs.openContainer();
    const row = vs.treeRows().filter({ hasText: 'Stream the JSONL reader' });
    await row.waitFor();
    // "Open Session File as Text" from the palette asks which session (nothing is selected in the
    // sidebar and no tree is open): picked by file name, it opens that file as text. (A click on the
    // row's context menu item could land on a row the listing moved under it: CI, four tries, nothing.)
    const name = basename(file);
    await vs.runCommand('pi Tree: Open Session File as Text', { thenInput: true });
    await vs.page.locator(sel.quickInput.input).fill(name);
    await vs.page.locator(sel.quickInput.row).filter({ hasText: name }).first().click();
    await vs.page.locator(sel.editor.activeTab).filter({ hasText: name }).waitFor({ timeout: 30_000 });
    // The row's context menu offers the same (it may close while the listing still redraws its
    // streamed rows: it is opened again until the item shows).
    const asText = await contextMenuItem(vs, row, 'Open Session File as Text', "the session row's context menu");
    await vs.page.keyboard.press('Escape');
    await asText.waitFor({ state: 'hidden' });
    const lenses = vs.page.locator(sel.codeLens.link).filter({ hasText: 'Show in tree' });
    // Lenses are drawn for the lines in view only: the file's 21 lines are, from its top (a text
    // editor may open scrolled, e.g. to where the file was last viewed).
    await vs.page.locator(`${sel.workbench.editorArea} .monaco-editor .view-lines`).first().click();
    await vs.page.keyboard.press('Control+Home');
    await lenses.nth(3).waitFor(); // one per user message: ask, tryMmap, streamAsk, testsAsk
    assert.equal(await lenses.count(), 4);
    await lenses.nth(1).click();
    // the tree opens with "Could we memory-map the file instead?" selected: its details name its id
    const details = vs.webview().locator('.details');
    await details.getByText(demo.ids.tryMmap, { exact: true }).waitFor();
    await details.getByText('Could we memory-map the file instead?').first().waitFor();
    await vs.screenshot('shown-in-tree');

    // the same file in the custom editor too (Reopen Editor With… on its text tab)
    await vs.page.locator(sel.editor.tab).filter({ hasText: '.jsonl' }).first().click();
    await vs.runCommand('View: Reopen Editor With...', { thenInput: true });
    await vs.page.locator(sel.quickInput.row).filter({ hasText: 'pi Session Tree' }).click();
    // Tabs, not webviews: a hidden tab's webview is dropped (retainContextWhenHidden is off).
    const treeTabs = vs.page.locator(sel.editor.tab).filter({ hasText: 'Stream the JSONL reader' });
    await treeTabs.nth(1).waitFor();
    await vs.webview().locator('.details').waitFor();
    assert.equal(await treeTabs.count(), 2, 'a tree panel and a tree editor of one session');

    await vs.runCommand('pi Tree: Delete Session (Move to Trash)');
    await vs.page.locator(sel.dialog.button).filter({ hasText: 'Move to Trash' }).click();
    await treeTabs.first().waitFor({ state: 'detached' });
    assert.equal(await treeTabs.count(), 0, 'no view of the deleted session is left open');
    assert.equal(existsSync(file), false, 'the file went to the trash');
    await vs.screenshot('deleted');
  });
});
