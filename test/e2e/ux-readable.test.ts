// Issue #17, finding 6 in a real VS Code: cards wide enough to read a title, the whole text with time,
// model and tokens on a hover card, a row layout like git-graph (toggle in the header, remembered),
// compactions in neutral colours (not the error red), the graph still there at 900 px with a visible
// switch, and dialog titles that end on whole words.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { SessionBuilder, writeDemoSessions } from '../../scripts/lib/demoSessions.js';
import { scenario } from './harness.js';
import { openTree, selectedEntry, until } from './uxHelpers.js';

describe('readable explorer (#17 finding 6)', () => {
  scenario(
    'cards show readable titles, a hover card has the whole text, rows show time/model/tokens, compactions are neutral, 900 px keeps the graph',
    async (vs) => {
      await vs.page.setViewportSize({ width: 1600, height: 1000 });
      const demo = vs.demo!;
      // Every row listed first: a row that appears late would move the others under the click.
      await vs.openContainer();
      await vs.treeRows().filter({ hasText: 'Compacted session' }).waitFor();
      await until(async () => ((await vs.treeRows().count()) === 4 ? true : undefined), 30_000, 'four sessions');
      const wv = await openTree(vs, 'Stream the JSONL reader');
      // Cards: a long title gets a readable line (before, every card was cut at about 24 characters).
      const plan = wv.locator(`svg.scene g.node[data-entry-id="${demo.ids.plan}"]`);
      await plan.waitFor();
      const title = (await plan.locator('text.title').textContent())!;
      assert.ok(title.replace('…', '').length >= 36, `card title: "${title}"`);
      // Hover card: the whole message, time, model, tokens.
      await plan.hover();
      const card = wv.locator('.hover-card');
      await card.waitFor({ state: 'visible', timeout: 30_000 });
      const text = (await card.textContent())!;
      assert.match(
        text,
        /read 1 MiB chunks, carry the partial last line over, parse each complete line\./,
        'the whole text',
      );
      assert.match(text, /Time\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
      assert.match(text, /Model\s*claude-sonnet-4-5/);
      assert.match(text, /Tokens\s*[\d,]+/);
      await vs.screenshot('hover-card');
      await vs.page.mouse.move(5, 5);
      await card.waitFor({ state: 'hidden' });

      // Rows: one row per entry with lanes, time, model, tokens; the choice is kept when the tab comes back.
      await wv.locator('[data-action="layout-rows"]').click();
      const row = wv.locator(`[role="treeitem"][data-entry-id="${demo.ids.plan}"]`);
      await row.locator('.cell.model').filter({ hasText: 'claude-sonnet-4-5' }).waitFor();
      assert.match((await row.locator('.cell.time').textContent())!, /^\d{4}-\d\d-\d\d \d\d:\d\d$/);
      assert.match((await row.locator('.cell.tokens').textContent())!, /^[\d.]+k?$/);
      assert.ok(await wv.locator('[role="treeitem"] svg.lanes').count());
      await vs.screenshot('rows');
      // The hover card by key on a row: select the plan's row, I.
      await row.click();
      await until(async () => ((await selectedEntry(wv)) === demo.ids.plan ? true : undefined));
      await vs.page.mouse.move(5, 5); // no card by pointer rest
      await card.waitFor({ state: 'hidden' });
      await wv.locator('[role="tree"]').press('KeyI');
      await card.waitFor({ state: 'visible', timeout: 30_000 });
      assert.match((await card.textContent())!, /carry the partial last line over/);
      await vs.screenshot('rows-hover-card');
      await wv.locator('[role="tree"]').press('Escape');
      await card.waitFor({ state: 'hidden' });
      // Keyboard in rows, then away to another tab and back: still rows.
      await wv.locator('[role="tree"]').focus();
      await wv.locator('[role="tree"]').press('ArrowDown');
      await until(async () => {
        const id = await selectedEntry(wv);
        return id !== undefined && id !== demo.ids.plan ? true : undefined;
      });
      await openTree(vs, 'Compacted session');
      await vs.webview().locator('h1.title').filter({ hasText: 'Compacted session' }).waitFor();
      // Compactions: neutral theme colours, not the error red, not dashed.
      const wc = vs.webview();
      await wc.locator('[data-action="layout-graph"]').click();
      const comp = wc.locator('svg.scene g.node.k-compaction rect.box').first();
      await comp.waitFor({ timeout: 30_000 });
      const look = await comp.evaluate((el) => {
        const probe = document.createElement('div');
        probe.style.color = 'var(--vscode-charts-red)';
        document.body.append(probe);
        const red = getComputedStyle(probe).color;
        const errorFg = ((): string => {
          probe.style.color = 'var(--vscode-errorForeground)';
          return getComputedStyle(probe).color;
        })();
        probe.remove();
        const cs = getComputedStyle(el);
        return { stroke: cs.stroke, dash: cs.strokeDasharray, red, errorFg };
      });
      assert.notEqual(look.stroke, look.red);
      assert.notEqual(look.stroke, look.errorFg);
      assert.equal(look.dash, 'none');
      await vs.screenshot('compaction');
      await vs.page
        .locator('.monaco-workbench .part.editor .tabs-container .tab')
        .filter({ hasText: 'Stream the JSONL reader' })
        .click();
      await vs.webview().locator('.app.layout-rows').waitFor({ timeout: 30_000 });

      // 900 px wide: the graph is still there, and the switch to bring it back is visible.
      await vs.webview().locator('[data-action="layout-graph"]').click();
      await vs.page.setViewportSize({ width: 900, height: 900 });
      const w = vs.webview();
      await until(
        async () => ((await w.locator('.app.narrow').count()) ? true : undefined),
        30_000,
        'the narrow layout',
      );
      const gw = await w.locator('.graph').evaluate((el) => el.getBoundingClientRect().width);
      assert.ok(gw >= 200, `graph ${gw}px wide at 900 px`);
      assert.ok(await w.locator('svg.scene g.node').count(), 'cards drawn');
      assert.ok(await w.locator('[data-action="layout-rows"]').isVisible());
      assert.ok(await w.locator('[data-action="layout-graph"]').isVisible());
      await vs.screenshot('narrow-900');

      // A dialog title ends on a whole word.
      await vs.page.setViewportSize({ width: 1600, height: 1000 });
      await w.locator(`[role="treeitem"][data-entry-id="${demo.ids.plan}"]`).click();
      await w.locator('.details [data-action="move-summary"]').click();
      const h2 = (await w.locator('[data-dialog="summary"] h2').textContent())!;
      const shown = /^Move to “(.*)…” with a summary$/.exec(h2)?.[1];
      assert.ok(shown, h2);
      const full = 'The reader splits one big string. Plan: read 1 MiB chunks, carry the partial last line over';
      assert.ok(full.startsWith(shown!) && /\W/.test(full[shown!.length]), `ends on a whole word: "${shown}"`);
      await w.locator('[data-action="summary-cancel"]').click();
    },
    {
      sessions: ({ agentDir, workspace }) => {
        const demo = writeDemoSessions(agentDir, workspace);
        const c = new SessionBuilder({ cwd: workspace, seed: 'e2e-compaction', start: Date.now() - 7_200_000 });
        c.user('Read the whole repository and summarize it.');
        const a = c.assistant('It has a core, a host and a webview.');
        c.user('Go on with the details.');
        c.assistant('The core reads sessions; the host draws them.');
        c.compaction('## Goal\nSummarize the repository.', a, 120_000);
        c.user('Now the tests.');
        c.assistant('The tests run in real VS Code.');
        c.name('Compacted session');
        c.write(agentDir);
        return demo;
      },
      timeout: 400_000,
    },
  );
});
