// Issue #34 item 7 in a real VS Code: the view keeps the current entry and what is around it in sight.
// An editor made wider frames again what a narrow one cut off (it kept its centre, the path stayed
// cut); a fork's link card beside its path is framed on open (it was cut at the left); on a 20k-entry
// session the minimap fills its strip (it was a thin line) and a press anywhere on it keeps cards in
// view (a press beside the line emptied the graph); after Move with summary through a running pi the
// new leaf is in view (it was below the visible area).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import type { FrameLocator } from 'playwright-core';
import { sessionDirFor, sessionFileName, writeDemoSessions } from '../../scripts/lib/demoSessions.js';
import { generateSession } from '../support/generate.js';
import { scenario } from './harness.js';
import { parserWithPi } from './parserWithPi.js';
import { openTree, selectByFind, selectedEntry, until } from './uxHelpers.js';

type Box = { left: number; right: number; top: number; bottom: number };

/** The graph viewport's box and the card boxes of these entries (null when not drawn), in the webview. */
function boxes(wv: FrameLocator, selectors: string[]): Promise<{ g: Box; cards: (Box | null)[] }> {
  // No named inner functions: the page has no __name helper for them.
  return wv.locator('body').evaluate((_b, sels) => {
    const out: ({ left: number; right: number; top: number; bottom: number } | null)[] = [];
    for (const el of [document.querySelector('.graph'), ...sels.map((s) => document.querySelector(`${s} rect.box`))]) {
      const r = el?.getBoundingClientRect();
      out.push(r ? { left: r.left, right: r.right, top: r.top, bottom: r.bottom } : null);
    }
    return { g: out[0]!, cards: out.slice(1) };
  }, selectors);
}
const inside = (b: Box | null, g: Box) =>
  !!b && b.left >= g.left - 0.5 && b.right <= g.right + 0.5 && b.top >= g.top - 0.5 && b.bottom <= g.bottom + 0.5;
const card = (id: string) => `svg.scene g.node[data-entry-id="${id}"]`;

/** Waits until every card is inside the graph; the error names those that are not. */
async function allInView(wv: FrameLocator, selectors: string[], what: string, timeoutMs = 20_000): Promise<void> {
  let last = '';
  await until(
    async () => {
      const b = await boxes(wv, selectors);
      const out = selectors
        .map((s, i) => (inside(b.cards[i], b.g) ? '' : `${s} at ${JSON.stringify(b.cards[i])}`))
        .filter(Boolean);
      last = `${out.join('; ')} (graph ${JSON.stringify(b.g)})`;
      return out.length ? undefined : true;
    },
    timeoutMs,
    what,
  ).catch((e) => {
    throw new Error(`${(e as Error).message}; not in view: ${last}`);
  });
}

describe('the view keeps the current entry in sight (#34 item 7)', () => {
  scenario(
    'a wider editor frames what a narrow one cut off; a fork link card is framed on open; the 20k minimap fills its strip and a press anywhere keeps cards in view',
    async (vs) => {
      const { ids } = vs.demo!;
      // 1400 px wide with the side bar: the graph between the outline and the details is too narrow
      // for the path and the side branch at a readable zoom, so the branch is cut off.
      const wv = await openTree(vs, 'Stream the JSONL reader');
      const leaf = await until(() => selectedEntry(wv), 30_000, 'the selection');
      const near = [leaf, ids.testsAsk, ids.done, ids.plan, ids.tryMmap].map(card);
      await wv.locator(card(leaf)).waitFor();
      const narrow = await boxes(wv, near);
      assert.ok(
        !near.every((_, i) => inside(narrow.cards[i], narrow.g)),
        'the narrow graph cuts something off (else this step shows nothing)',
      );
      await vs.screenshot('narrow');
      // The editor gets wider (the side bar goes): the view frames the path and the branch again.
      await vs.runCommand('View: Toggle Primary Side Bar Visibility');
      const width = async () => {
        const g = (await boxes(wv, [])).g;
        return g.right - g.left;
      };
      await until(
        async () => ((await width()) > narrow.g.right - narrow.g.left + 100 ? true : undefined),
        20_000,
        'the graph to widen',
      );
      await allInView(wv, near, 'the path and its side branch in the wider graph');
      await vs.screenshot('widened');
      await vs.runCommand('View: Toggle Primary Side Bar Visibility');

      // The fork opens with its link card (to the session it came from) in view beside its path.
      const fwv = await openTree(vs, 'Before streaming');
      await fwv.locator('svg.scene g.node.k-link').waitFor({ timeout: 30_000 });
      const forkLeaf = await until(() => selectedEntry(fwv), 30_000, "the fork's selection");
      await allInView(
        fwv,
        ['svg.scene g.node.k-link', card(forkLeaf), card(ids.plan)],
        "the fork's link card, its leaf and the entry it parts at",
      );
      await vs.screenshot('fork-link');

      // 20k entries: the minimap fills its strip, and a press anywhere on it leaves cards in view.
      const big = await openTree(vs, 'Twenty thousand entries');
      await big
        .locator('footer.status')
        .filter({ hasText: /^20,0\d\d entries/ })
        .waitFor({ timeout: 120_000 });
      await big.locator('.loading').waitFor({ state: 'hidden', timeout: 120_000 });
      const mini = big.locator('canvas.minimap');
      const mb = (await mini.boundingBox())!;
      const cardsInView = () =>
        big.locator('body').evaluate(() => {
          const g = document.querySelector('.graph')!.getBoundingClientRect();
          if (document.querySelector('canvas.dense:not([hidden])')) return 1;
          return [...document.querySelectorAll('svg.scene g.node rect.box')].filter((r) => {
            const b = r.getBoundingClientRect();
            return b.right > g.left && b.left < g.right && b.bottom > g.top && b.top < g.bottom;
          }).length;
        });
      for (const [fx, fy] of [
        [0.1, 0.5],
        [0.9, 0.5],
        [0.5, 0.05],
        [0.5, 0.95],
        [0.1, 0.1],
        [0.9, 0.9],
      ]) {
        await mini.click({ position: { x: mb.width * fx, y: mb.height * fy } });
        await until(
          async () => ((await cardsInView()) > 0 ? true : undefined),
          10_000,
          `cards in view after a press on the minimap at ${fx} × ${fy} of it`,
        );
      }
      await vs.screenshot('minimap-pressed');
      const tree = (await mini.getAttribute('data-tree'))?.split(' ').map(Number);
      assert.ok(tree, 'the minimap says where it drew the tree');
      const [x0, y0, x1, y1] = tree;
      assert.ok(
        x1 - x0 >= mb.width * 0.9,
        `the tree is as wide as the strip (${(x1 - x0).toFixed(1)} of ${mb.width} px)`,
      );
      assert.ok(
        y1 - y0 >= mb.height * 0.5,
        `the tree takes most of the strip's height (${(y1 - y0).toFixed(1)} of ${mb.height} px)`,
      );
    },
    {
      sessions: ({ agentDir, workspace }) => {
        const demo = writeDemoSessions(agentDir, workspace);
        // The shape of the click benchmark's 20k session (labels, compactions, branches).
        const g = generateSession({
          seed: 20000,
          entries: 20_000,
          branchRate: 0.03,
          compactions: 4,
          labels: 40,
          largeOutputRate: 0.02,
          systemMessage: true,
          cwd: workspace,
        });
        const last = g.entries[g.entries.length - 1].id as string;
        const name = {
          type: 'session_info',
          id: 'bigname20',
          parentId: last,
          timestamp: new Date().toISOString(),
          name: 'Twenty thousand entries',
        };
        writeFileSync(
          join(
            sessionDirFor(agentDir, workspace),
            sessionFileName(new Date(Date.now() - 86_400_000).toISOString(), g.header.id as string),
          ),
          `${g.text}${JSON.stringify(name)}\n`,
        );
        return demo;
      },
      timeout: 400_000,
    },
  );
});

describe('the new leaf of a move with summary through pi is in view (#34 item 7)', () => {
  const fx = parserWithPi('019b8f3a-0000-7000-8000-00000000e2e7');
  const ids = fx.ids;

  scenario(
    'Move with summary through pi on an entry at the bottom of the view: the summary, the new leaf, is framed',
    async (vs) => {
      const running = fx.pi!;
      const wv = await openTree(vs, 'Plan the parser');
      await wv
        .locator('.badges .badge.bridge')
        .filter({ hasText: `connected to pi ${running.pid}` })
        .waitFor();
      await selectByFind(wv, 'Tokenize first', ids.a1);
      // The entry at the bottom of the view (as a find or a scroll leaves it): the wheel pans the graph.
      const at = await boxes(wv, [card(ids.a1)]);
      const gb = (await wv.locator('.graph').boundingBox())!;
      await vs.page.mouse.move(gb.x + gb.width / 2, gb.y + 10);
      await vs.page.mouse.wheel(0, -(at.g.bottom - 12 - at.cards[0]!.bottom));
      await until(
        async () => {
          const b = await boxes(wv, [card(ids.a1)]);
          const c = b.cards[0];
          return c && inside(c, b.g) && b.g.bottom - c.bottom < 30 ? true : undefined;
        },
        10_000,
        'the entry at the bottom of the view',
      );
      await vs.screenshot('at-the-bottom');
      await wv.locator('.details [data-action="move-summary"]').click();
      const dialog = wv.locator('[data-dialog="summary"]');
      await dialog.locator('[data-action="summary-default"]').click();
      const text = dialog.locator('vscode-textarea[data-field="summary"] textarea');
      await until(
        async () => ((await text.inputValue()).includes('by the model of pi.') ? true : undefined),
        60_000,
        "pi's summary in the dialog",
      );
      await dialog.locator('[data-action="summary-commit"]').click();
      const summary = await until(
        async () => {
          const r = await running.entries();
          const e = r.entries.find((x) => x.id === r.leafId);
          return e?.type === 'branch_summary' ? e : undefined;
        },
        20_000,
        "pi's leaf on the summary it wrote",
      );
      await wv
        .locator(`svg.scene g.node.leaf[data-entry-id="${summary.id}"]`)
        .waitFor({ state: 'attached', timeout: 30_000 });
      await allInView(
        wv,
        [card(summary.id as string), card(ids.a1)],
        'the new leaf (the summary) and the entry it hangs under',
      );
      await vs.screenshot('summary-in-view');
    },
    fx.options,
  );
});
