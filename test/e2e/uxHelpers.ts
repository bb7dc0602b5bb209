// Steps the e2e scenarios share: open a session's tree from the sidebar, read the selection, open a
// context menu, wait for a condition.
import type { FrameLocator, Locator } from 'playwright-core';
import type { VSCode } from './harness.js';
import { until } from '../../scripts/lib/until.js';
import * as sel from './selectors.js';

// The scenarios take the tests' one polling helper from here.
export { until };

/**
 * Opens the tree of the session whose sidebar row shows `title` and waits for its first rows. The
 * listing can redraw its rows between finding this one and the click landing (a session read later
 * moves the rows): the click then opens the session that moved under the pointer. The panel's tab
 * tells (it shows the file name until the session is read, then its title): a wrong one is closed and
 * the row clicked again. A click the redraw swallowed (no editor opens) is repeated too.
 * `waitForRows: false` returns as soon as the right panel is active (to watch it load).
 */
export async function openTree(vs: VSCode, title: string, opts: { waitForRows?: boolean } = {}): Promise<FrameLocator> {
  await vs.openContainer();
  const tab = vs.page.locator(sel.editor.activeTab);
  const activeTab = async () => ((await tab.count()) ? ((await tab.first().textContent()) ?? '') : '');
  for (let attempt = 1; ; attempt++) {
    if (attempt > 4) throw new Error(`the row "${title}" did not open its own tree in four clicks`);
    const before = await activeTab();
    await vs.treeRows().filter({ hasText: title }).first().click();
    const which = async () => {
      const text = await activeTab();
      if (text.includes(title)) return 'right';
      // (the editor that was active before the click is not the one it opened)
      return text && text !== before && !text.includes('.jsonl') ? 'wrong' : undefined;
    };
    const what = `the tree of "${title}" to open`;
    const opened = await until(which, 20_000, what).catch(async () =>
      // a panel that opened shows the file name until its session is read: wait for its title
      (await activeTab()) !== before ? until(which, 70_000, what) : ('none' as const),
    );
    if (opened === 'right') break;
    if (opened === 'wrong') await vs.runCommand('View: Close Editor');
  }
  const wv = vs.webview();
  if (opts.waitForRows === false) return wv;
  // the snapshot has arrived once the outline has rows
  await wv.locator('[role="tree"] [role="treeitem"]').first().waitFor({ timeout: 90_000 });
  return wv;
}

/**
 * Clicks the sidebar row showing `title` (at least once) until it is the selected row (a left click also opens its
 * tree). The listing can move another row under the pointer while it redraws; the click is then
 * repeated.
 */
export async function selectRow(vs: VSCode, title: string): Promise<void> {
  const row = vs.treeRows().filter({ hasText: title }).first();
  let clicked = false;
  await until(
    async () => {
      if (clicked && (await row.getAttribute('aria-selected')) === 'true') return true;
      await row.click();
      clicked = true;
      return undefined;
    },
    60_000,
    `the row "${title}" to be selected`,
  );
}

/**
 * Waits until the tree of `title`, which a click on its sidebar row opens, is the active tab and drawn.
 * Its webview takes the focus as it comes, and that closes a quick input opened before it: a command
 * that asks for input goes after this.
 */
export async function treeShown(vs: VSCode, title: string): Promise<void> {
  await vs.page
    .locator(sel.editor.activeTab)
    .filter({ hasText: title.slice(0, 30) })
    .waitFor({ timeout: 90_000 });
  await vs.webview().locator('[role="tree"] [role="treeitem"]').first().waitFor({ timeout: 90_000 });
}

/** The entry id of the selected row, if an entry (not a segment) is selected. */
export async function selectedEntry(wv: FrameLocator): Promise<string | undefined> {
  const row = wv.locator('[role="treeitem"][aria-selected="true"]').first();
  if (!(await row.count())) return undefined;
  return (await row.getAttribute('data-entry-id')) ?? undefined;
}

/**
 * Selects entry `id` through the find box: find by `text` (which splits the entry out of a segment),
 * then a step to the hit. The box is cleared first and its count waited away, so that the previous
 * query's "1/1" does not pass for this one.
 */
export async function selectByFind(wv: FrameLocator, text: string, id: string): Promise<void> {
  const find = wv.locator('vscode-textfield[data-field="find"] input');
  const count = wv.locator('.find-count');
  await find.fill('');
  await until(
    async () => ((await count.textContent())?.trim() === '' ? true : undefined),
    30_000,
    'the find count to clear',
  );
  await find.fill(text);
  await count.filter({ hasText: /\/[1-9]/ }).waitFor({ timeout: 60_000 });
  await wv.locator('button[data-action="find-next"]').click();
  await wv.locator(`[role="treeitem"][data-entry-id="${id}"][aria-selected="true"]`).waitFor();
}

/**
 * Opens `target`'s context menu (VS Code's own) until it offers `item`, and returns that item. The
 * menu can open late or without the item (a row the listing redraws, a webview still sending its
 * context): each try waits for the menu to show, and one without the item is closed, and seen gone,
 * before the next right-click (a menu left open blocks every click under it).
 */
export async function contextMenuItem(
  vs: VSCode,
  target: Locator,
  item: string | RegExp,
  what: string,
): Promise<Locator> {
  const menu = vs.page.locator(sel.contextMenu.menu);
  const entry = vs.page.locator(sel.contextMenu.item).filter({ hasText: item });
  const shown = (l: Locator, timeout: number): Promise<boolean> =>
    l
      .first()
      .waitFor({ timeout })
      .then(
        () => true,
        () => false,
      );
  await until(
    async () => {
      if (await menu.first().isVisible()) await vs.page.keyboard.press('Escape');
      await menu
        .first()
        .waitFor({ state: 'hidden', timeout: 5_000 })
        .catch(() => undefined);
      await target.click({ button: 'right' });
      if (!(await shown(menu, 5_000))) return undefined;
      if (await shown(entry, 2_000)) return true;
      await vs.page.keyboard.press('Escape');
      return undefined;
    },
    60_000,
    what,
  );
  return entry;
}
