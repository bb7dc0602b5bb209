// Issue #17 findings 2 and 6 in the built webview (headless Chromium, scripted host): the view framed
// around the selection on open and after a move, the row layout (lanes, time, model, tokens; an ARIA
// tree; a toolbar switch, a key and a setting; remembered), the hover card by pointer and by key, the
// graph kept visible at narrow widths, neutral compactions, and the loading bar of a big snapshot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { NodeView } from '../../src/protocol';
import { idle, meta, ScriptedHost, useWebviewBrowser } from './helpers/browser';
import { genSession } from './helpers/gen';
import { boxes, close, inside } from './helpers/graphBoxes';
import { smallSession } from './fixtures';

const web = useWebviewBrowser();

type Hooks = {
  __piTree: { graph: { view: { x: number; y: number; k: number }; el: HTMLElement }; stats(): { selected?: string } };
};

async function open(
  nodes: NodeView[],
  leafId: string | null,
  over: Parameters<typeof meta>[0] = {},
  width = 1280,
): Promise<ScriptedHost> {
  return web.opened({ meta: meta(over), nodes, leafId }, { width, height: 800 });
}

const selected = (page: Page) => page.evaluate(() => (window as unknown as Hooks).__piTree.stats().selected);

test('on open the leaf, its path and the branch beside it are all in view and readable; after a move the new place is framed', async () => {
  const s = smallSession();
  const host = await open(s.nodes, s.leafId);
  const page = host.page;
  const ids = ['u1000000', 'a1000000', 'u2000000', 'a4000000', 'bs000000'];
  let b = await boxes(page, ids);
  for (const id of ids) assert.ok(inside(b.nodes[id], b.g), `${id} in view: ${JSON.stringify(b)}`);
  const k = await page.evaluate(() => (window as unknown as Hooks).__piTree.graph.view.k);
  assert.ok(k >= 0.7 && k <= 1, `readable zoom ${k}`);
  // Balanced: the tree is not pinned to one side with half the pane empty.
  const all = Object.values(b.nodes).filter((x) => x) as { left: number; right: number }[];
  const left = Math.min(...all.map((x) => x.left)) - b.g.left;
  const right = b.g.right - Math.max(...all.map((x) => x.right));
  assert.ok(Math.abs(left - right) < b.g.width * 0.2, `margins ${left} / ${right}`);
  // Pan far away, then the leaf moves to the selection: the view comes back to frame it.
  await page.evaluate(() => {
    const g = (window as unknown as { __piTree: { graph: { panBy(x: number, y: number): void } } }).__piTree.graph;
    g.panBy(-3000, -2000);
  });
  await host.post({ type: 'invoke', action: 'select', id: 'x1000000' });
  await idle(page);
  await page.evaluate(() =>
    (window as unknown as { __piTree: { graph: { panBy(x: number, y: number): void } } }).__piTree.graph.panBy(
      -3000,
      -2000,
    ),
  );
  await idle(page);
  b = await boxes(page, ['x1000000']);
  assert.ok(!inside(b.nodes.x1000000, b.g), 'panned away');
  await host.delta({ type: 'leafMoved', leafId: 'x1000000' });
  await idle(page);
  b = await boxes(page, ['x1000000', 'bs000000', 'a1000000']);
  for (const id of ['x1000000', 'bs000000']) assert.ok(inside(b.nodes[id], b.g), `${id} framed after the move`);
  await close(host);
});

test('the minimap is a strip beside the graph: no node is ever under it', async () => {
  const s = genSession({ n: 2000, branchRate: 0.03, seed: 2 });
  const host = await open(s.nodes, s.leafId);
  const page = host.page;
  for (const key of ['0', 'Shift+0', '.']) {
    await page.locator('[role="tree"]').focus();
    await page.keyboard.press(key);
    await idle(page);
    const over = await page.evaluate(() => {
      const m = document.querySelector('canvas.minimap')!.getBoundingClientRect();
      const g = document.querySelector('.graph')!.getBoundingClientRect();
      return {
        overlap: m.left < g.right && m.right > g.left && m.top < g.bottom && m.bottom > g.top,
        mini: m.width * m.height,
      };
    });
    assert.equal(over.overlap, false, `after ${key}`);
    assert.ok(over.mini > 1000, 'the minimap is shown');
  }
  await close(host);
});

test('rows: one row per entry with lanes, time, model and tokens, an ARIA tree like the outline; switched by toolbar, V and the setting; remembered', async () => {
  const s = smallSession();
  const host = await open(s.nodes, s.leafId);
  const page = host.page;
  const tree = page.locator('[role="tree"]');
  const graphRows = await page.locator('[role="treeitem"]').count();
  await page.locator('[data-action="layout-rows"]').click();
  await idle(page);
  assert.equal(await page.locator('[data-action="layout-rows"]').getAttribute('aria-pressed'), 'true');
  assert.equal(await page.locator('[data-action="layout-graph"]').getAttribute('aria-pressed'), 'false');
  assert.ok(await page.locator('.app.layout-rows').count());
  assert.equal(await page.locator('[role="treeitem"]').count(), graphRows, 'the same rows');
  assert.ok(await page.locator('[role="treeitem"] svg.lanes').count(), 'a lane column');
  const row = page.locator('[role="treeitem"][data-entry-id="a1000000"]');
  assert.equal(await row.locator('.cell.model').textContent(), 'claude-x');
  assert.equal(await row.locator('.cell.tokens').textContent(), '1.2k');
  assert.match((await row.locator('.cell.time').textContent())!, /^2026-11-20 \d\d:\d\d$/);
  assert.match((await row.getAttribute('aria-label'))!, /1,200 tokens/);
  // The rows take the graph's place and are wider than the outline was.
  const w = await page.evaluate(
    () => (document.querySelector('.outline') as HTMLElement).getBoundingClientRect().width,
  );
  assert.ok(w > 600, `rows are ${w}px wide`);
  assert.equal(
    await page.evaluate(() => getComputedStyle(document.querySelector('.graph-pane')!).visibility),
    'hidden',
  );
  // The keyboard works the same in rows.
  await tree.focus();
  await page.keyboard.press('ArrowUp');
  await idle(page);
  assert.equal(await selected(page), 'seg:r2000000');
  await page.keyboard.press('ArrowDown');
  // V switches back; the choice is kept across a reload.
  await page.keyboard.press('v');
  await idle(page);
  assert.equal(await page.locator('.app.layout-rows').count(), 0);
  await page.keyboard.press('v');
  await idle(page);
  await page.reload();
  await host.waitFor((m) => m.type === 'ready');
  await idle(page);
  assert.ok(await page.locator('.app.layout-rows').count(), 'rows after a reload');
  await close(host);
  // The setting opens a session in rows until the user picks another.
  const h2 = await open(s.nodes, s.leafId, { defaultLayout: 'rows' });
  assert.ok(await h2.page.locator('.app.layout-rows').count());
  await close(h2);
});

test('hover card: the whole text, time, model and tokens on pointer rest and by key (I), read out and focusable', async () => {
  const s = smallSession();
  const long = `user: ${'Please rewrite the parser so that it streams its input. '.repeat(6)}`;
  s.nodes[3] = { ...s.nodes[3], text: long.slice(0, 200) };
  const host = await open(s.nodes, s.leafId);
  const page = host.page;
  const full = `${long.slice(6)} And keep the tests.`;
  host.handlers.getEntry = (b) => ({
    id: b.id,
    entry: { type: 'message', id: b.id, message: { role: 'user', content: [{ type: 'text', text: full }] } },
    truncated: false,
    onPath: true,
    isLeaf: false,
  });
  const card = page.locator('.hover-card');
  // Pointer: rest on the leaf's node.
  await page.locator('svg.scene g.node[data-entry-id="a1000000"]').hover();
  await card.waitFor({ state: 'visible' });
  await idle(page);
  const text = (await card.textContent())!;
  assert.match(text, /Assistant message/);
  assert.match(text, /Hi there, how can I help\?/);
  assert.match(text, /2026-11-20 09:03:00/);
  assert.match(text, /claude-x/);
  assert.match(text, /1,200/);
  await page.mouse.move(5, 790);
  await card.waitFor({ state: 'hidden' });
  // A 200-character preview is completed from the entry.
  await page.locator('svg.scene g.node[data-entry-id="u2000000"]').hover();
  await card.waitFor({ state: 'visible' });
  await idle(page);
  assert.match((await card.locator('.hc-text').textContent())!, /And keep the tests\.$/);
  assert.ok(
    host.requestsOf('getEntry').some((r) => r.id === 'u2000000'),
    'the whole text was asked for',
  );
  assert.ok(
    !host.requestsOf('getEntry').some((r) => r.id === 'a1000000'),
    'a short preview is the whole text: nothing asked',
  );
  await page.mouse.move(5, 790);
  await card.waitFor({ state: 'hidden' });
  // By key: I shows the selection's card and names it as the tree's description; I again focuses it.
  const tree = page.locator('[role="tree"]');
  await tree.focus();
  await page.keyboard.press('i');
  await idle(page);
  assert.ok(await card.isVisible());
  assert.equal(await tree.getAttribute('aria-describedby'), 'hover-card');
  assert.equal(await card.getAttribute('role'), 'tooltip');
  assert.match((await card.textContent())!, /Tests added/);
  // It follows the selection.
  await page.keyboard.press('ArrowUp');
  await idle(page);
  assert.match((await card.textContent())!, /3 entries in a row/);
  await page.keyboard.press('i');
  await idle(page);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'hover-card');
  await page.keyboard.press('Escape');
  await idle(page);
  assert.ok(await card.isHidden());
  assert.equal(
    await page.evaluate(() => document.activeElement?.getAttribute('role')),
    'tree',
    'focus is back on the tree',
  );
  assert.equal(await tree.getAttribute('aria-describedby'), null);
  await close(host);
});

test('hover card by key right after the pointer left the tree: the hide the pointer scheduled does not close it', async () => {
  const s = smallSession();
  const host = await open(s.nodes, s.leafId);
  const page = host.page;
  // The browser's clock, run by hand: the card's show and hide delays are timers.
  await page.clock.install();
  const card = page.locator('.hover-card');
  await page.locator('[role="treeitem"][data-entry-id="a4000000"]').click();
  await page.locator('[role="treeitem"][data-entry-id="u2000000"]').hover();
  await page.mouse.move(5, 790); // leaves the tree: a hide is scheduled
  await page.locator('[role="tree"]').press('KeyI');
  await card.waitFor({ state: 'visible' });
  await page.clock.runFor(2000);
  assert.ok(await card.isVisible(), 'the card opened by key stays');
  await page.locator('[role="tree"]').press('Escape');
  await card.waitFor({ state: 'hidden' });
  await close(host);
});

test("hover card: a key or a click closes the pointer's card, and rows drawn again under the resting pointer open none until it moves", async () => {
  const s = smallSession();
  const host = await open(s.nodes, s.leafId);
  const page = host.page;
  await page.clock.install();
  const card = page.locator('.hover-card');
  const tree = page.locator('[role="tree"]');
  await page.locator('[role="treeitem"][data-entry-id="a4000000"]').click();
  await page.locator('[role="treeitem"][data-entry-id="u2000000"]').hover();
  await page.clock.runFor(1000);
  await card.waitFor({ state: 'visible' });
  // Keys move the selection: the card goes, and stays gone while the pointer rests (the rows are drawn
  // again under it on each step).
  await tree.press('ArrowUp');
  await card.waitFor({ state: 'hidden' });
  await tree.press('ArrowUp');
  await page.clock.runFor(2000);
  await idle(page);
  assert.ok(await card.isHidden(), 'no card while the keys are in use');
  // A modifier alone changes nothing; moving the pointer brings cards back.
  await page.locator('[role="treeitem"][data-entry-id="a4000000"]').hover();
  await page.clock.runFor(1000);
  await card.waitFor({ state: 'visible' });
  await page.keyboard.press('Shift');
  await page.clock.runFor(500);
  assert.ok(await card.isVisible(), 'Shift alone keeps it');
  // A click on the row: the card goes and does not come back over the rows while the pointer rests
  // (the details pane shows that entry now); a move brings it back.
  const row = page.locator('[role="treeitem"][data-entry-id="a4000000"]');
  await row.click();
  await card.waitFor({ state: 'hidden' });
  await page.clock.runFor(2000);
  await idle(page);
  assert.ok(await card.isHidden(), 'no card after the click while the pointer rests');
  const box = (await row.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2 + 12, box.y + box.height / 2);
  await page.clock.runFor(1000);
  await card.waitFor({ state: 'visible' });
  await close(host);
});

test('narrow: the graph stays on screen, the outline gives way, and the layout switch is always visible', async () => {
  const s = smallSession();
  const host = await open(s.nodes, s.leafId, {}, 560);
  const page = host.page;
  assert.ok(await page.locator('.app.narrow').count());
  const g = await page.evaluate(() => document.querySelector('.graph')!.getBoundingClientRect().width);
  assert.ok(g >= 250, `the graph is ${g}px wide at a 560px window`);
  assert.ok(await page.locator('svg.scene g.node').count(), 'nodes are drawn');
  const sw = page.locator('[data-action="layout-rows"]');
  assert.ok(await sw.isVisible());
  await sw.click();
  await idle(page);
  assert.ok(await page.locator('.app.layout-rows').count());
  assert.ok((await page.evaluate(() => document.querySelector('.outline')!.getBoundingClientRect().width)) >= 250);
  // The rows' columns give way to the message (at 900 px in VS Code they took the whole row: no message,
  // its header under the time's): the message keeps most of the row, and no header overlaps another.
  // (no named inner functions: the page has no __name helper for them)
  const cols = await page.evaluate(() => {
    const row = document.querySelector('.outline [role="treeitem"]')!;
    const heads = [...document.querySelectorAll('.rows-head .cell')]
      .filter((c) => (c as HTMLElement).offsetParent)
      .map((c) => c.getBoundingClientRect());
    return {
      row: row.getBoundingClientRect().width,
      text: row.querySelector('.text')?.getBoundingClientRect().width ?? 0,
      overlap: heads.some((a, i) => heads.slice(i + 1).some((b) => a.right > b.left + 0.5 && b.right > a.left + 0.5)),
      shown: [...row.querySelectorAll('.cell')].filter((c) => (c as HTMLElement).offsetParent).map((c) => c.className),
    };
  });
  assert.ok(
    cols.text >= cols.row * 0.5,
    `the message is ${cols.text.toFixed(0)} of a ${cols.row.toFixed(0)} px row (${cols.shown.join(', ')} shown)`,
  );
  assert.equal(cols.overlap, false, 'no column header over another');
  await page.locator('[data-action="layout-graph"]').click();
  await idle(page);
  assert.ok(
    (await page.evaluate(() => document.querySelector('.graph')!.getBoundingClientRect().width)) >= 250,
    'the graph is back',
  );
  // Wide again: the outline comes back beside the graph.
  await page.setViewportSize({ width: 1400, height: 800 });
  // The width class changes when the panes' ResizeObserver reports (after a frame): wait for it.
  await page.locator('.app.narrow').waitFor({ state: 'detached' });
  await idle(page);
  assert.ok((await page.evaluate(() => document.querySelector('.outline')!.getBoundingClientRect().width)) >= 250);
  await close(host);
});

test("a segment's members: one line each inside the details pane, the whole text as tooltip", async () => {
  const s = smallSession();
  // a long path without a place to break (it ran past the pane's edge)
  const long = `[read: ${'packages/coding-agent/src/'.repeat(8)}main.ts]`;
  s.nodes = s.nodes.map((n) => (n.id === 'r2000000' ? { ...n, text: long } : n));
  const host = await open(s.nodes, s.leafId, {}, 900);
  const page = host.page;
  await page
    .locator('[role="treeitem"]')
    .filter({ hasText: /\d+ entries/ })
    .first()
    .click();
  const members = page.locator('.details .seg-list button.link');
  await members.first().waitFor();
  const fit = await page.evaluate(() => {
    const pane = document.querySelector('.details')!.getBoundingClientRect();
    return [...document.querySelectorAll('.details .seg-list button.link')].map((b) => {
      const r = b.getBoundingClientRect();
      return {
        inside: r.right <= pane.right + 0.5,
        height: r.height,
        title: (b as HTMLElement).title,
        text: b.textContent,
      };
    });
  });
  assert.ok(fit.length >= 2, JSON.stringify(fit));
  const line = Math.min(...fit.map((f) => f.height));
  for (const f of fit) {
    assert.ok(f.inside, `"${f.text?.slice(0, 40)}…" runs past the pane`);
    assert.ok(f.height < line + 1, `"${f.text?.slice(0, 40)}…" wraps (${f.height} px, a line is ${line})`);
    assert.equal(f.title, f.text);
  }
  assert.ok(fit.some((f) => f.text === long));
  await close(host);
});

test('compactions are drawn in neutral theme colours (not the error red, not dashed), cards show long titles', async () => {
  const s = smallSession();
  s.nodes.push({
    id: 'c1000000',
    parentId: 'a4000000',
    type: 'compaction',
    kind: 'compaction',
    text: '[compaction: 120k tokens]',
    time: Date.UTC(2026, 10, 20, 10),
  });
  s.nodes.push({
    id: 'u9000000',
    parentId: 'c1000000',
    type: 'message',
    role: 'user',
    kind: 'user',
    text: 'user: Now make the reader stream its input in one MiB chunks, please',
    time: Date.UTC(2026, 10, 20, 11),
  });
  const host = await open(s.nodes, 'u9000000');
  const page = host.page;
  const look = await page.evaluate(() => {
    const box = document.querySelector('svg.scene g.node[data-entry-id="c1000000"] rect.box')!;
    const cs = getComputedStyle(box);
    const red = getComputedStyle(document.body).getPropertyValue('--vscode-charts-red').trim();
    const probe = document.createElement('div');
    probe.style.color = red;
    document.body.append(probe);
    const redRgb = getComputedStyle(probe).color;
    probe.remove();
    return {
      stroke: cs.stroke,
      dash: cs.strokeDasharray,
      redRgb,
      stripe: getComputedStyle(document.querySelector('svg.scene g.node[data-entry-id="c1000000"] rect.stripe')!).fill,
    };
  });
  assert.notEqual(look.stroke, look.redRgb);
  assert.notEqual(look.stripe, look.redRgb);
  assert.equal(look.dash, 'none');
  const title = await page.locator('svg.scene g.node[data-entry-id="u9000000"] text.title').textContent();
  assert.ok(title!.length >= 38, `a readable title: "${title}"`);
  await close(host);
});

test('a big session shows a loading bar with its progress until the tree is drawn', async () => {
  const s = smallSession();
  const host = await open(s.nodes, s.leafId);
  const page = host.page;
  const g = genSession({ n: 6000, seed: 4 });
  await host.post({
    type: 'snapshot',
    rev: 9,
    meta: meta({ name: 'Big' }),
    leafId: g.leafId,
    nodes: g.nodes.slice(0, 2000),
    total: g.nodes.length,
  });
  await host.post({ type: 'snapshotPart', rev: 9, nodes: g.nodes.slice(2000, 4000) });
  const loading = page.locator('.loading');
  assert.ok(await loading.isVisible());
  assert.equal(await loading.getAttribute('role'), 'status');
  assert.match((await loading.textContent())!, /Loading 4,000 of 6,000 entries/);
  await host.post({ type: 'snapshotPart', rev: 9, nodes: g.nodes.slice(4000) });
  await idle(page);
  assert.ok(await loading.isHidden());
  await close(host);
});
