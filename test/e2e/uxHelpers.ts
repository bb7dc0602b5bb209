// Steps the #17 scenarios share: open a session's tree from the sidebar, read the selection, wait for a
// condition. (tree.test.ts keeps its own copies; these are for the ux-*.test.ts files.)
import type { FrameLocator } from 'playwright-core';
import type { VSCode } from './harness.js';

/** Opens the tree of the session whose sidebar row shows `title` and waits for its first rows. */
export async function openTree(vs: VSCode, title: string): Promise<FrameLocator> {
  await vs.openContainer();
  await vs.treeRows().filter({ hasText: title }).first().click();
  const wv = vs.webview();
  await wv.locator('[role="tree"] [role="treeitem"]').first().waitFor({ timeout: 90_000 });
  return wv;
}

/** The entry id of the selected row, if an entry (not a segment) is selected. */
export async function selectedEntry(wv: FrameLocator): Promise<string | undefined> {
  const row = wv.locator('[role="treeitem"][aria-selected="true"]').first();
  if (!(await row.count())) return undefined;
  return (await row.getAttribute('data-entry-id')) ?? undefined;
}

/** Polls `probe` until it returns a value (not undefined); fails after `timeoutMs`. */
export async function until<T>(probe: () => T | undefined | null | Promise<T | undefined | null>, timeoutMs = 20_000, what = 'a condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
