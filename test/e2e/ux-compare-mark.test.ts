// Issue #34 item 8 in a real VS Code: the first C ("Compare with…") shows that the entry is marked —
// a chip in the header naming it (with a cancel button), a dashed ring and the compare icon on its card,
// a mark on its outline row (and "marked for compare" in its accessible name) — until Escape cancels
// or the second C on another entry opens the compare view.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type { FrameLocator } from 'playwright-core';
import { scenario } from './harness.js';
import { openTree, selectByFind, until } from './uxHelpers.js';

/** Whether an element is on screen: it has a box inside the webview's viewport and is not hidden. */
const onScreen = (wv: FrameLocator, selector: string) =>
  wv
    .locator('body')
    .evaluate((_b, s) => {
      const el = document.querySelector(s);
      if (!el) return false;
      const r = el.getBoundingClientRect();
      const st = getComputedStyle(el);
      return (
        r.width > 0 &&
        r.height > 0 &&
        r.bottom > 0 &&
        r.right > 0 &&
        r.top < innerHeight &&
        r.left < innerWidth &&
        st.visibility !== 'hidden' &&
        st.display !== 'none'
      );
    }, selector)
    .then((v) => (v ? true : undefined));

describe('compare marking (#34 item 8)', () => {
  scenario(
    'the first C marks the entry where it can be seen: header chip, ring on the card, row mark; Escape and the chip clear it; the second C compares',
    async (vs) => {
      const { ids } = vs.demo!;
      const wv = await openTree(vs, 'Stream the JSONL reader');
      const tree = wv.locator('[role="tree"]');
      await selectByFind(wv, 'no built-in mmap', ids.mmapAnswer);
      await tree.focus();
      await tree.press('KeyC');
      const chip = wv.locator('.compare-chip');
      await until(() => onScreen(wv, '.compare-chip'), 10_000, 'the header to say an entry is marked for compare');
      assert.match(
        (await chip.textContent()) ?? '',
        /Press C on another entry to compare it with “Node has no built-in mmap/,
      );
      assert.equal(await chip.getAttribute('data-entry-id'), ids.mmapAnswer);
      await until(
        () => onScreen(wv, `svg.scene g.node.compare-base[data-entry-id="${ids.mmapAnswer}"] .compare-ring`),
        10_000,
        'the ring on the marked card',
      );
      const row = wv.locator(`[role="treeitem"][data-entry-id="${ids.mmapAnswer}"]`);
      await until(
        () => onScreen(wv, `[role="treeitem"].compare-base[data-entry-id="${ids.mmapAnswer}"] .codicon-git-compare`),
        10_000,
        'the mark on the outline row',
      );
      assert.match((await row.getAttribute('aria-label')) ?? '', /marked for compare$/);
      assert.match(
        (await wv.locator('.details [data-action="compare-with"]').textContent()) ?? '',
        /Marked for compare/,
      );
      await vs.screenshot('marked');

      // Escape takes the mark away everywhere.
      await tree.focus();
      await tree.press('Escape');
      await chip.waitFor({ state: 'detached', timeout: 10_000 });
      await wv.locator('svg.scene g.node.compare-base').waitFor({ state: 'detached', timeout: 10_000 });
      assert.equal(await wv.locator('[role="treeitem"].compare-base').count(), 0);

      // Marked again, the chip's close button cancels it too (by pointer).
      await tree.press('KeyC');
      await chip.waitFor({ timeout: 10_000 });
      await chip.locator('button[data-action="compare-cancel"]').click();
      await chip.waitFor({ state: 'detached', timeout: 10_000 });

      // C, then C on another entry: the compare view opens and the mark is gone from the tree.
      await tree.focus();
      await tree.press('KeyC');
      await chip.waitFor({ timeout: 10_000 });
      await selectByFind(wv, 'now streams in 1 MiB', ids.done);
      await tree.focus();
      await tree.press('KeyC');
      const cmp = vs.webview();
      await cmp.locator('.cmp-ancestor').waitFor({ timeout: 60_000 });
      await vs.screenshot('compared');
    },
  );
});
