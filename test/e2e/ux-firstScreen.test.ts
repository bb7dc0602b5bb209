// Issue #34 item 2 in a real VS Code: a 100k-entry session shows its first screen (the leaf, its path
// and the branches leaving it, read from the file's end) while the whole tree is still on its way, with
// the loading bar as a strip above it — not under an opaque layer until everything has arrived.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { sessionDirFor, sessionFileName } from '../../scripts/lib/demoSessions.js';
import { generateSession } from '../support/generate.js';
import { scenario } from './harness.js';
import * as sel from './selectors.js';
import { until } from './uxHelpers.js';

const TITLE = 'One hundred thousand entries';

describe('the first screen of a big session (#34 item 2)', () => {
  scenario(
    '100k: the first screen is seen while the rest loads, under a loading strip',
    async (vs) => {
      await vs.openContainer();
      const row = vs.treeRows().filter({ hasText: TITLE });
      await row.waitFor({ timeout: 60_000 });
      await row.click();
      await vs.page.locator(sel.editor.activeTab).filter({ hasText: TITLE }).waitFor({ timeout: 60_000 });
      const wv = vs.webview();
      // While the loading bar is up and the status line counts only the first screen's entries, the
      // selected card (the leaf's) must be the topmost thing at its centre: nothing covers it. Once the
      // status line counts all 100k entries that chance has passed.
      let drawnAt = 0;
      const t0 = Date.now();
      const seen = await until(
        async () => {
          const s = await wv
            .locator('body')
            .evaluate(() => {
              const loading = document.querySelector('.loading') as HTMLElement | null;
              const node = document.querySelector('svg.scene g.node.selected');
              const status = document.querySelector('footer.status')?.textContent ?? '';
              const entries = Number(/^([\d,]+) entries/.exec(status)?.[1].replace(/,/g, '') ?? NaN);
              if (entries >= 100_000) return { state: 'whole' as const, status, bar: '' };
              if (!loading || loading.hidden || !node) return null;
              const r = node.getBoundingClientRect();
              const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
              return {
                state: hit && node.contains(hit) ? ('seen' as const) : ('covered' as const),
                status,
                bar: loading.textContent ?? '',
              };
            })
            .catch(() => null);
          if (s?.state === 'covered' && !drawnAt) drawnAt = Date.now();
          return s && s.state !== 'covered' ? s : undefined;
        },
        180_000,
        'the first screen or the whole tree',
        50,
      );
      const covered = drawnAt ? ` (its first screen was drawn but covered for ${Date.now() - drawnAt} ms)` : '';
      assert.equal(
        seen.state,
        'seen',
        `the first screen was never seen: the whole tree came ${Date.now() - t0} ms after the click${covered}`,
      );
      assert.match(
        seen.bar,
        /Reading the session|Loading [\d,]+ of 100,\d{3} entries/,
        `the strip says what is loading (status: ${seen.status})`,
      );
      console.log(`first screen seen: ${seen.status} | ${seen.bar}`);
      await vs.screenshot('first-screen');
      // Then the whole tree replaces it and the strip goes.
      await wv
        .locator('footer.status')
        .filter({ hasText: /^100,\d{3} entries/ })
        .waitFor({ timeout: 180_000 });
      await wv.locator('.loading').waitFor({ state: 'hidden', timeout: 60_000 });
      await vs.screenshot('whole-tree');
    },
    {
      sessions: ({ agentDir, workspace }) => {
        const g = generateSession({
          seed: 100,
          entries: 100_000,
          branchRate: 0.03,
          compactions: 4,
          labels: 40,
          largeOutputRate: 0.02,
          cwd: workspace,
        });
        const last = g.entries[g.entries.length - 1].id as string;
        const name = {
          type: 'session_info',
          id: 'bigname34',
          parentId: last,
          timestamp: new Date().toISOString(),
          name: TITLE,
        };
        const dir = sessionDirFor(agentDir, workspace);
        mkdirSync(dir, { recursive: true });
        writeFileSync(
          join(dir, sessionFileName(new Date(Date.now() - 86_400_000).toISOString(), g.header.id as string)),
          `${g.text}${JSON.stringify(name)}\n`,
        );
      },
      timeout: 400_000,
    },
  );
});
