// Issue #17, finding 2 in a real VS Code: the view shows the branches. On open the leaf is framed with
// its path and the branch beside it at a readable zoom (not pinned to an edge); after a move the new
// place is framed; the minimap never lies over a node; Fit on a 20k-entry session shows a readable
// neighbourhood (not a 1-px strip) and Shift+0 the whole tree.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import type { FrameLocator } from 'playwright-core';
import { sessionDirFor, sessionFileName, writeDemoSessions } from '../../scripts/lib/demoSessions.js';
import { generateSession } from '../support/generate.js';
import { scenario } from './harness.js';
import { openTree, selectedEntry, until } from './uxHelpers.js';

type Box = { left: number; right: number; top: number; bottom: number; width: number };

/** The graph viewport's box and the boxes of the cards of these entries (null when not drawn). */
function boxes(wv: FrameLocator, ids: string[]): Promise<{ g: Box; mini: Box; cards: Record<string, Box | null> }> {
  // No named inner functions: the page has no __name helper for them.
  return wv.locator('body').evaluate((_b, ids) => {
    const els: [string, Element | null][] = [
      ['g', document.querySelector('.graph')],
      ['mini', document.querySelector('canvas.minimap')],
      ...ids.map((id): [string, Element | null] => [
        id,
        document.querySelector(`svg.scene g.node[data-entry-id="${id}"] rect.box`),
      ]),
    ];
    const out: Record<string, { left: number; right: number; top: number; bottom: number; width: number } | null> = {};
    for (const [k, el] of els) {
      const r = el?.getBoundingClientRect();
      out[k] = r ? { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width } : null;
    }
    return { g: out.g!, mini: out.mini!, cards: Object.fromEntries(ids.map((id) => [id, out[id]])) };
  }, ids);
}

const inside = (b: Box | null, g: Box) =>
  !!b && b.left >= g.left - 0.5 && b.right <= g.right + 0.5 && b.top >= g.top - 0.5 && b.bottom <= g.bottom + 0.5;
const overlap = (a: Box, b: Box) => a.left < b.right && a.right > b.left && a.top < b.bottom && a.bottom > b.top;
/** Zoom of the graph: a card's drawn width over its width in the layout. */
const zoomOf = (wv: FrameLocator, id: string) =>
  wv
    .locator(`svg.scene g.node[data-entry-id="${id}"] rect.box`)
    .evaluate((el) => el.getBoundingClientRect().width / Number(el.getAttribute('width')));

describe('the view shows the branches (#17 finding 2)', () => {
  scenario(
    'on open the leaf, its path and the branch beside it are framed; after a move the new place is; the minimap covers nothing; Fit on 20k stays readable',
    async (vs) => {
      await vs.page.setViewportSize({ width: 1600, height: 1000 });
      const demo = vs.demo!;
      const wv = await openTree(vs, 'Stream the JSONL reader');
      // The leaf is the name entry (hidden by the default filter): its nearest shown entry is selected.
      const leaf = await until(() => selectedEntry(wv), 30_000, 'the selection');
      await wv.locator(`svg.scene g.node[data-entry-id="${leaf}"]`).waitFor();
      const ids = [leaf, demo.ids.testsAsk, demo.ids.done, demo.ids.plan, demo.ids.tryMmap];
      const b = await until(
        async () => {
          const x = await boxes(wv, ids);
          return ids.every((id) => inside(x.cards[id], x.g)) ? x : undefined;
        },
        30_000,
        'the leaf, its path and the side branch to be in view',
      );
      assert.ok((await zoomOf(wv, leaf)) >= 0.7, 'readable');
      // Not pinned to one side with half the pane empty.
      const cards = Object.values(b.cards) as Box[];
      const left = Math.min(...cards.map((c) => c.left)) - b.g.left;
      const right = b.g.right - Math.max(...cards.map((c) => c.right));
      assert.ok(
        Math.abs(left - right) < b.g.width * 0.25,
        `margins ${left.toFixed(0)} / ${right.toFixed(0)} of ${b.g.width.toFixed(0)}`,
      );
      assert.equal(overlap(b.mini, b.g), false, 'the minimap is beside the graph, not over it');
      await vs.screenshot('opened');
      // Steps up the path keep that view: each next card is in view already (a step used to centre it,
      // cutting the side branch off while half the pane stayed empty).
      await wv.locator('[role="tree"]').focus();
      for (const k of ['ArrowUp', 'ArrowUp']) {
        const before = await selectedEntry(wv);
        await wv.locator('[role="tree"]').press(k);
        await until(async () => ((await selectedEntry(wv)) !== before ? true : undefined));
      }
      const stepped = await boxes(wv, ids);
      assert.ok(
        ids.every((id) => inside(stepped.cards[id], stepped.g)),
        'after two steps up the path the side branch is still in view',
      );
      assert.ok(
        Math.abs(stepped.cards[demo.ids.tryMmap]!.left - b.cards[demo.ids.tryMmap]!.left) < 1,
        'the view did not move',
      );

      // Move the leaf into the side branch: the view frames the new place.
      await wv.locator('[role="tree"]').focus();
      await wv.locator(`[role="treeitem"][data-entry-id="${demo.ids.mmapAnswer}"]`).click();
      await until(async () => ((await selectedEntry(wv)) === demo.ids.mmapAnswer ? true : undefined));
      await wv.locator('[role="tree"]').press('Shift+ArrowDown'); // pan away a little first
      await wv.locator('.details [data-action="move"]').click();
      await wv.locator(`svg.scene g.node.leaf[data-entry-id="${demo.ids.mmapAnswer}"]`).waitFor({ timeout: 30_000 });
      await until(
        async () => {
          const x = await boxes(wv, [demo.ids.mmapAnswer, demo.ids.tryMmap, demo.ids.plan]);
          return Object.values(x.cards).every((c) => inside(c, x.g)) ? x : undefined;
        },
        30_000,
        'the new leaf and its path to be framed',
      );
      await vs.screenshot('moved');

      // A 20k-entry session: Fit shows a readable neighbourhood; Shift+0 the whole tree.
      const big = await openTree(vs, 'Twenty thousand entries');
      await big.locator('h1.title').filter({ hasText: 'Twenty thousand entries' }).waitFor({ timeout: 120_000 });
      await big.locator('svg.scene g.node').first().waitFor({ timeout: 120_000 });
      // Its first screen comes first; Fit is about the whole tree: wait until all of it is in.
      await big.locator('.loading').waitFor({ state: 'hidden', timeout: 120_000 });
      await big.locator('footer.status').filter({ hasText: '20,00' }).waitFor({ timeout: 120_000 });
      await big.locator('button[data-action="fit"]').click();
      const sel = await until(() => selectedEntry(big), 30_000, 'a selected entry');
      const k = await until(
        async () => {
          const z = await zoomOf(big, sel).catch(() => 0);
          return z >= 0.5 ? z : undefined;
        },
        30_000,
        'Fit to settle at a readable zoom',
      );
      assert.ok(k >= 0.5 && k <= 1, `Fit zoom ${k}`);
      const fitBoxes = await boxes(big, [sel]);
      assert.ok(inside(fitBoxes.cards[sel], fitBoxes.g), 'the selection is in view after Fit');
      await vs.screenshot('fit-20k');
      await big.locator('[role="tree"]').focus();
      await big.locator('[role="tree"]').press('Shift+Digit0');
      await until(
        async () =>
          (await big.locator('canvas.dense:not([hidden])').count()) ||
          (await big.locator('svg.scene g.node.simple').count())
            ? true
            : undefined,
        30_000,
        'the whole tree',
      );
      await vs.screenshot('overview-20k');
    },
    {
      sessions: ({ agentDir, workspace }) => {
        const demo = writeDemoSessions(agentDir, workspace);
        const g = generateSession({ seed: 20, entries: 20_000, branchRate: 0.01, cwd: workspace });
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
