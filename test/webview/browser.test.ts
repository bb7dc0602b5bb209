// The built webview bundle (dist/webview.js) in headless Chromium against a scripted host: layout and
// culling, filters and find, the keyboard map. (browserActions: the requests actions send, deltas;
// browserState: persisted state, host invoke, themes, hostile text.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { KEYMAP } from '../../webview/app/keymap';
import { appHelpers, close, selected, selectId, stats } from './helpers/app';
import { idle, useWebviewBrowser } from './helpers/browser';
import { genSession } from './helpers/gen';

const web = useWebviewBrowser();
const { open, small } = appHelpers(web);

test('loads under the strict CSP, says ready first, draws only what is in view, pans and zooms', async () => {
  const s = genSession({ n: 20_000, branchRate: 0.03, seed: 21 });
  const host = await open(s.nodes, s.leafId);
  const page = host.page;
  assert.deepEqual(host.received[0], { type: 'ready' });
  const st = await stats(page);
  assert.ok(st.items > 500, `items ${st.items}`);
  const inView = async () =>
    page.evaluate(() => {
      const g = document.querySelector('.graph')!.getBoundingClientRect();
      const mw = g.width * 0.25 + 200;
      const mh = g.height * 0.25 + 50;
      const nodes = [...document.querySelectorAll('svg.scene g.node')];
      const outside = nodes.filter((n) => {
        const r = n.getBoundingClientRect();
        return r.right < g.left - mw || r.left > g.right + mw || r.bottom < g.top - mh || r.top > g.bottom + mh;
      }).length;
      return { count: nodes.length, outside, keys: nodes.map((n) => (n as SVGGElement).dataset.key!) };
    });
  const a = await inView();
  assert.ok(a.count > 0 && a.count < st.items / 5, `rendered ${a.count} of ${st.items}`);
  assert.equal(a.outside, 0);
  // The leaf is drawn, marked, and on the highlighted path.
  const leaf = page.locator(`svg.scene g.node[data-entry-id="${s.leafId}"]`);
  assert.match((await leaf.getAttribute('class'))!, /\bleaf\b.*\bselected\b|\bselected\b.*\bleaf\b|\bleaf\b/);
  assert.ok((await page.locator('svg.scene path.edges.on-path').getAttribute('d'))!.length > 10);
  // Drag far to the side: a new set of nodes, still culled.
  const g = await page.locator('.graph').boundingBox();
  await page.mouse.move(g!.x + g!.width / 2, g!.y + g!.height / 2);
  await page.mouse.down();
  for (let i = 1; i <= 20; i++) await page.mouse.move(g!.x + g!.width / 2 - i * 100, g!.y + g!.height / 2 - i * 60);
  await page.mouse.up();
  await idle(page);
  const b = await inView();
  assert.equal(b.outside, 0);
  assert.notDeepEqual(b.keys.sort(), a.keys.sort());
  // Wheel pans, Ctrl+wheel zooms; keys zoom and fit.
  const k0 = await page.evaluate(
    () => (window as unknown as { __piTree: { graph: { view: { k: number } } } }).__piTree.graph.view.k,
  );
  await page.mouse.move(g!.x + 300, g!.y + 300);
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, 400);
  await page.keyboard.up('Control');
  await idle(page);
  const k1 = await page.evaluate(
    () => (window as unknown as { __piTree: { graph: { view: { k: number } } } }).__piTree.graph.view.k,
  );
  assert.ok(k1 < k0, `zoomed out ${k0} → ${k1}`);
  await page.locator('[role="tree"]').focus();
  // Fit (0) on a tree too big to read whole: the selection and its branches at a readable zoom.
  await page.keyboard.press('0');
  await idle(page);
  const near = await page.evaluate(
    () => (window as unknown as { __piTree: { graph: { view: { k: number } } } }).__piTree.graph.view.k,
  );
  assert.ok(near >= 0.5, `Fit stays readable: k ${near}`);
  assert.equal(
    await page.locator(`svg.scene g.node[data-entry-id="${s.leafId}"]`).count(),
    1,
    'the selection (the leaf) is in view',
  );
  // The whole tree (Shift+0): everything is in the window; beyond the SVG budget it is drawn on the canvas instead.
  await page.keyboard.press('Shift+0');
  await idle(page);
  const fitted = await stats(page);
  const canvasShown = await page.evaluate(() => !(document.querySelector('canvas.dense') as HTMLCanvasElement).hidden);
  assert.ok(canvasShown || fitted.rendered === fitted.items, JSON.stringify(fitted));
  await close(host);
});

test('filters follow pi (default, no-tools, user-only, labeled-only, all) and attach hidden entries to visible ancestors', async () => {
  const host = await small();
  const page = host.page;
  const rows = () => page.$$eval('[role="treeitem"]', (els) => els.map((e) => (e as HTMLElement).dataset.key!));
  assert.deepEqual(await rows(), [
    'u1000000',
    'a1000000',
    'u2000000',
    'seg:r2000000',
    'a4000000',
    'seg:u4000000',
    'bs000000',
    'x1000000',
  ]);
  await page.keyboard.press('o');
  await idle(page);
  assert.deepEqual(
    await rows(),
    ['u1000000', 'a1000000', 'u2000000', 'seg:a3000000', 'a4000000', 'seg:u4000000', 'bs000000', 'x1000000'],
    'no-tools hides the tool result',
  );
  await page.keyboard.press('o');
  await idle(page);
  assert.deepEqual(await rows(), ['u1000000', 'u2000000', 'u3000000', 'u4000000', 'x1000000'], 'user-only');
  // x1 hangs under u4 (its nearest visible ancestor) in the graph.
  assert.equal(await page.locator('[role="treeitem"][data-entry-id="x1000000"]').getAttribute('aria-level'), '2');
  await page.keyboard.press('o');
  await idle(page);
  assert.deepEqual(await rows(), ['u2000000'], 'labeled-only');
  await page.keyboard.press('o');
  await idle(page);
  const all = await rows();
  assert.ok(all.includes('m0000000'), 'all shows the model change');
  assert.ok(
    !all.includes('a2000000') && !all.some((k) => k === 'seg:a2000000'),
    'a text-less assistant stays hidden in all',
  );
  assert.equal(await page.locator('select.filter').inputValue(), 'all');
  await close(host);
});

test("piTree.tree.defaultFilter: a session opens with the setting's filter; the user's own choice for it is kept after a reload", async () => {
  const host = await small({ defaultFilter: 'user-only' });
  const page = host.page;
  const filter = () => page.locator('select.filter').inputValue();
  const rows = () => page.$$eval('[role="treeitem"]', (els) => els.map((e) => (e as HTMLElement).dataset.key!));
  assert.equal(await filter(), 'user-only');
  assert.deepEqual(await rows(), ['u1000000', 'u2000000', 'u3000000', 'u4000000', 'x1000000']);
  await page.keyboard.press('o'); // the user picks labeled-only for this session
  await idle(page);
  const readyBefore = host.received.filter((m) => m.type === 'ready').length;
  await page.reload();
  await host.waitFor((m) => m.type === 'ready' && host.received.filter((x) => x.type === 'ready').length > readyBefore);
  await page.waitForFunction(
    () => ((window as unknown as { __piTree?: { stats(): { items: number } } }).__piTree?.stats().items ?? 0) > 0,
  );
  await idle(page);
  assert.equal(await filter(), 'labeled-only', 'the choice made for this session wins over the setting');
  await close(host);
});

test('find: operators, n/m, next/previous, hits inside segments expand them', async () => {
  const host = await small();
  const page = host.page;
  const field = page.locator('vscode-textfield[data-field="find"] input');
  const count = page.locator('.find-count');
  // After typing, the query applies once typing pauses: idle() waits for that and the pass it starts.
  const waitCount = async (want: string | RegExp) => {
    await idle(page);
    const got = (await count.textContent()) ?? '';
    if (typeof want === 'string') assert.equal(got, want, 'find count');
    else assert.match(got, want, 'find count');
  };
  // A new query selects its first match at or after the selection: the count reads n/m at once.
  await field.fill('role:user parser');
  await waitCount('1/1');
  assert.equal(await selected(page), 'u2000000');
  await field.press('Enter');
  await idle(page);
  assert.equal(await selected(page), 'u2000000');
  assert.equal(await count.textContent(), '1/1');
  await field.fill('tests');
  await waitCount('1/2');
  // u3 was inside the r2..u3 segment: it is split out as its own node and selected.
  assert.equal(await selected(page), 'u3000000');
  assert.equal(await page.locator('svg.scene g.node[data-entry-id="u3000000"]').count(), 1);
  assert.match((await page.locator('svg.scene g.node[data-entry-id="u3000000"]').getAttribute('class'))!, /\bhit\b/);
  await page.keyboard.press('F3');
  await idle(page);
  assert.equal(await selected(page), 'a4000000');
  assert.equal(await count.textContent(), '2/2');
  await page.keyboard.press('Shift+F3');
  await idle(page);
  assert.equal(await selected(page), 'u3000000');
  assert.equal(await count.textContent(), '1/2');
  await field.fill('label:start tool:read');
  await waitCount('No results');
  await field.fill('file:alt.ts');
  await waitCount('1/1');
  await field.fill('re:(');
  await waitCount('Invalid regular expression: Unterminated group');
  await field.fill('re:"^assistant: (fixed|tests)"');
  await waitCount(/^[12]\/2$/);
  await field.press('Escape');
  await waitCount('');
  await close(host);
});

test('keyboard: rows, structure, branch points, labels, leaf, history, shortcut sheet, context menu key', async () => {
  const host = await small();
  const page = host.page;
  const key = async (k: string) => {
    await page.keyboard.press(k);
    await idle(page);
    return selected(page);
  };
  const tree = page.locator('[role="tree"]');
  assert.equal(await selected(page), 'a4000000');
  assert.equal(
    await tree.getAttribute('aria-activedescendant'),
    await page.locator('[role="treeitem"][data-entry-id="a4000000"]').getAttribute('id'),
  );
  assert.equal(await key('ArrowUp'), 'seg:r2000000');
  assert.equal(await key('ArrowUp'), 'u2000000');
  assert.equal(await key('Alt+ArrowUp'), 'a1000000');
  assert.equal(await key('Alt+ArrowDown'), 'u2000000', 'child on the current path first');
  assert.equal(await key(']'), 'seg:u4000000', 'next sibling');
  assert.equal(await key('['), 'u2000000', 'previous sibling');
  assert.equal(await key('b'), 'a1000000', 'next branch point (wraps)');
  assert.equal(await key('g'), 'u2000000', 'next label');
  assert.equal(await key('.'), 'a4000000', 'current leaf');
  assert.equal(await key('Alt+ArrowLeft'), 'u2000000', 'back');
  assert.equal(await key('Alt+ArrowLeft'), 'a1000000', 'back again');
  assert.equal(await key('Alt+ArrowRight'), 'u2000000', 'forward');
  assert.equal(await key('Home'), 'u1000000');
  assert.equal(await key('End'), 'x1000000');
  // Right on a segment expands it (APG), Left on an expanded run collapses it again.
  await selectId(host, 'a4000000');
  assert.equal(await key('ArrowUp'), 'seg:r2000000');
  assert.equal(await page.locator('[role="treeitem"][data-key="seg:r2000000"]').getAttribute('aria-expanded'), 'false');
  assert.equal(await key('ArrowRight'), 'r2000000');
  assert.equal(await page.locator('[role="treeitem"][data-entry-id="r2000000"]').getAttribute('aria-expanded'), 'true');
  assert.equal(await key('ArrowLeft'), 'seg:r2000000');
  // ARIA on rows.
  const row = page.locator('[role="treeitem"][data-entry-id="u2000000"]');
  assert.equal(await row.getAttribute('aria-level'), '2');
  assert.equal(await row.getAttribute('aria-posinset'), '1');
  assert.equal(await row.getAttribute('aria-setsize'), '6');
  assert.match(
    (await row.getAttribute('aria-label'))!,
    /^User message: user: fix the parser please, label start, on the current path/,
  );
  assert.equal(await page.locator('[role="treeitem"][data-entry-id="a1000000"]').getAttribute('aria-expanded'), 'true');
  // Left on a branch point folds it; Right unfolds.
  await selectId(host, 'a1000000');
  await key('ArrowLeft');
  assert.equal(await page.locator('[role="treeitem"]').count(), 2);
  await key('ArrowRight');
  assert.equal(await page.locator('[role="treeitem"]').count(), 8);
  // The shortcut sheet is generated from the registry.
  // (a short window: the sheet's keys do not fit in it)
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: size.width, height: 500 });
  await page.keyboard.press('?');
  const sheet = page.locator('[data-dialog="shortcuts"]');
  await sheet.waitFor();
  assert.equal(await sheet.locator('tr[data-command]').count(), KEYMAP.length);
  // It opens at its top with its Close button in view: only its body scrolls (focusing Close used to
  // scroll the whole sheet to its end, its title out of view).
  await sheet.locator(':focus').waitFor();
  const inView = async (l: Locator) => {
    const b = (await l.boundingBox())!;
    return b.y >= 0 && b.y + b.height <= 500;
  };
  assert.ok(await inView(sheet.locator('h2')), 'the title in view');
  assert.ok(await inView(sheet.locator(':focus')), 'Close in view');
  assert.equal(await sheet.locator('.dialog-body').evaluate((b) => b.scrollTop), 0);
  assert.ok(await sheet.locator('.dialog-body').evaluate((b) => b.scrollHeight > b.clientHeight), 'the body scrolls');
  await page.setViewportSize(size);
  await page.keyboard.press('Escape');
  await sheet.waitFor({ state: 'detached' });
  // Shift+F10 and the Menu key open the native menu: a contextmenu event on the node's element.
  await selectId(host, 'u2000000');
  await page.keyboard.press('Shift+F10');
  await page.keyboard.press('ContextMenu');
  const menus = await page.evaluate(
    () => (window as unknown as { __contextMenus: { context: string; x: number; y: number }[] }).__contextMenus,
  );
  assert.equal(menus.length, 2);
  const ctx = JSON.parse(menus[0].context);
  assert.deepEqual(
    { s: ctx.webviewSection, id: ctx.entryId, role: ctx.entryRole, p: ctx.preventDefaultContextMenuItems },
    { s: 'node', id: 'u2000000', role: 'user', p: true },
  );
  assert.ok(menus[0].x > 0 && menus[0].y > 0);
  // The selection is reported to the host (for native menu commands).
  await host.waitFor((m) => m.type === 'selected' && m.id === 'u2000000');
  await close(host);
});
