// In a real VS Code: the minimap of a 100,000-entry session (generated as the benchmarks do, a branch
// point now and then) shows the tree's shape across the strip, not a 1-px line down it. The strip's
// pixels are read from its canvas: the columns and rows where anything is drawn.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { sessionDirFor, sessionFileName } from '../../scripts/lib/demoSessions.js';
import { generateSession } from '../support/generate.js';
import { scenario } from './harness.js';
import { openTree, until } from './uxHelpers.js';

describe('the minimap of a 100k-entry session', () => {
  scenario(
    'the tree fills the strip each way, drawn wider than a line',
    async (vs) => {
      await vs.page.setViewportSize({ width: 1600, height: 1000 });
      const wv = await openTree(vs, 'A hundred thousand entries');
      await wv.locator('.loading').waitFor({ state: 'hidden', timeout: 240_000 });
      await wv.locator('footer.status').filter({ hasText: '100,' }).waitFor({ timeout: 240_000 });
      // The columns and rows of the strip where anything is drawn (the drawing waits for a free moment).
      const drawn = await until(
        () =>
          wv.locator('canvas.minimap').evaluate((c: HTMLCanvasElement) => {
            if (!c.dataset.tree || !c.width) return undefined;
            const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
            const cols = new Set<number>();
            const rows = new Set<number>();
            for (let y = 0; y < c.height; y++)
              for (let x = 0; x < c.width; x++)
                if (d[(y * c.width + x) * 4 + 3] > 0) {
                  cols.add(x);
                  rows.add(y);
                }
            return { w: c.width, h: c.height, cols: cols.size, rows: rows.size };
          }),
        120_000,
        'the minimap drawn',
      );
      await vs.screenshot('100k');
      assert.ok(drawn.rows >= drawn.h * 0.8, `drawn down the strip: ${JSON.stringify(drawn)}`);
      assert.ok(drawn.cols >= drawn.w * 0.25, `drawn across the strip, not a line: ${JSON.stringify(drawn)}`);
    },
    {
      sessions: ({ agentDir, workspace }) => {
        const g = generateSession({ seed: 100, entries: 100_000, branchRate: 0.01, cwd: workspace });
        const last = g.entries[g.entries.length - 1].id as string;
        const name = {
          type: 'session_info',
          id: 'bigname10',
          parentId: last,
          timestamp: new Date().toISOString(),
          name: 'A hundred thousand entries',
        };
        mkdirSync(sessionDirFor(agentDir, workspace), { recursive: true });
        writeFileSync(
          join(
            sessionDirFor(agentDir, workspace),
            sessionFileName(new Date(Date.now() - 86_400_000).toISOString(), g.header.id as string),
          ),
          `${g.text}${JSON.stringify(name)}\n`,
        );
      },
      timeout: 500_000,
    },
  );
});
