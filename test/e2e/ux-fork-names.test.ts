// In a real VS Code: forks and clones can be told apart. Two forks (pi's /fork before the same message),
// a clone and a fork made before the first message (it holds no message) of one session read
// "… (fork 1 · 10:00)", "… (fork 2 · 11:00)", "… (clone 1 · 12:00)" and "<the source's name> (fork 3 ·
// 12:30)" — one rule (core/listing/sessionTitle.ts) in the sidebar, in their tabs and in the link nodes
// of their source's tree; no two alike, none a file name or "(no messages)".
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { SessionBuilder } from '../../scripts/lib/demoSessions.js';
import { scenario } from './harness.js';
import * as sel from './selectors.js';
import { until } from './uxHelpers.js';

const MARK = /\((fork|clone) \d · \d\d:\d\d\)$/;

describe('forks and clones are told apart (#34 item 5)', () => {
  scenario(
    'two forks and a clone read differently, and alike in the sidebar, their tabs and the link nodes',
    async (vs) => {
      await vs.openContainer();
      const rows = vs.treeRows();
      await until(
        async () => ((await rows.count()) === 5 ? true : undefined),
        60_000,
        'the source and its four copies',
      );
      const label = (i: number) => rows.nth(i).locator(sel.pane.rowLabel).textContent();
      // The three copies, as the sidebar names them once it has told forks from clones.
      const copies = await until(
        async () => {
          const all = await Promise.all([0, 1, 2, 3, 4].map(async (i) => ((await label(i)) ?? '').trim()));
          const marked = all.filter((t) => MARK.test(t)).sort();
          return marked.length === 4 && marked.some((t) => t.includes('(clone')) ? marked : undefined;
        },
        60_000,
        'four marked rows, one a clone',
      );
      assert.equal(new Set(copies).size, 4, `no two alike: ${JSON.stringify(copies)}`);
      assert.match(
        copies.find((t) => t.includes('(fork 1'))!,
        /^Make the reader stream \(fork 1 · \d\d:\d\d\)$/,
      );
      assert.match(
        copies.find((t) => t.includes('(fork 2'))!,
        /^Make the reader stream \(fork 2 · \d\d:\d\d\)$/,
      );
      assert.match(
        copies.find((t) => t.includes('(clone'))!,
        /^Stream the reader \(clone 1 · \d\d:\d\d\)$/,
      );
      assert.match(
        copies.find((t) => t.includes('(fork 3'))!,
        /^Stream the reader \(fork 3 · \d\d:\d\d\)$/,
        'the fork without messages reads as its source',
      );
      await vs.screenshot('sidebar');

      // Each copy's tab reads as its row.
      const tab = vs.page.locator(sel.editor.activeTab);
      for (const title of copies) {
        await rows
          .filter({ has: vs.page.locator(sel.pane.rowLabel, { hasText: title }) })
          .first()
          .click();
        await tab.filter({ hasText: title }).waitFor({ timeout: 60_000 });
      }
      assert.equal(await vs.page.locator(sel.editor.tab).count(), 4);
      await vs.screenshot('tabs');

      // The source's tree names them the same in its link nodes.
      await rows
        .filter({ has: vs.page.locator(sel.pane.rowLabel, { hasText: /^Stream the reader$/ }) })
        .first()
        .click();
      await tab.filter({ hasText: /^\s*Stream the reader\s*$/ }).waitFor({ timeout: 60_000 });
      const links = vs.webview().locator('[role="treeitem"].k-link');
      await until(async () => ((await links.count()) === 4 ? true : undefined), 60_000, 'four link nodes');
      const texts = await links.allTextContents();
      for (const title of copies)
        assert.ok(
          texts.some((t) => t.includes(title)),
          `a link reads "${title}": ${JSON.stringify(texts)}`,
        );
      assert.ok(
        texts.some((t) => t.includes('clone: Stream the reader (clone 1')),
        `the clone's link says clone: ${JSON.stringify(texts)}`,
      );
      await vs.screenshot('links');
    },
    {
      sessions: ({ agentDir, workspace }) => {
        const t0 = Date.parse('2026-11-20T09:00:00.000Z');
        const b = new SessionBuilder({ cwd: workspace, seed: 'e2e-fork-names', start: t0 });
        b.user('Make the reader stream');
        const a1 = b.assistant('It reads 1 MiB chunks now.');
        b.user('Now add tests');
        b.assistant('Added a test with 100k entries.');
        b.name('Stream the reader');
        b.write(agentDir);
        // pi's /fork before "Now add tests", twice, an hour apart; then /clone at the leaf.
        b.branchedSession(a1, { seed: 'e2e-fork-1', start: t0 + 3_600_000 }).write(agentDir);
        b.branchedSession(a1, { seed: 'e2e-fork-2', start: t0 + 7_200_000 }).write(agentDir);
        b.branchedSession(b.leafId!, { seed: 'e2e-clone', start: t0 + 10_800_000 }).write(agentDir);
        // A fork made before the first message: a header and nothing else yet.
        new SessionBuilder({ cwd: workspace, seed: 'e2e-fork-3', start: t0 + 12_600_000, parentSession: b.file }).write(
          agentDir,
        );
      },
    },
  );
});
