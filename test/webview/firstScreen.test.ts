// A big session's first screen in the built webview (headless Chromium, scripted host): the leaf, its
// path and the branches leaving it are drawn before the whole tree arrives, the loading bar stays up
// meanwhile, and the whole tree then replaces it, still framed on the leaf (or where the user panned to).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { NodeView } from '../../src/protocol';
import { idle, meta, ScriptedHost, useWebviewBrowser } from './helpers/browser';
import { boxes, inside } from './helpers/graphBoxes';
import { genSession } from './helpers/gen';

const web = useWebviewBrowser();

type Hooks = {
  __piTree: {
    model: { size: number };
    graph: {
      view: { x: number; y: number; k: number };
      panBy(x: number, y: number): void;
      overview(animate?: boolean): void;
    };
  };
};
const modelSize = (page: Page) => page.evaluate(() => (window as unknown as Hooks).__piTree.model.size);
const view = (page: Page) => page.evaluate(() => ({ ...(window as unknown as Hooks).__piTree.graph.view }));

/** The leaf's path (its last `n` entries) and the first entry of each branch leaving it, as the host picks them. */
function firstScreen(nodes: NodeView[], leafId: string, n = 400): NodeView[] {
  const byId = new Map(nodes.map((x) => [x.id, x]));
  const path: NodeView[] = [];
  for (let cur = byId.get(leafId); cur; cur = cur.parentId ? byId.get(cur.parentId) : undefined) path.push(cur);
  const shown = new Set(path.slice(0, n).map((x) => x.id));
  const out = nodes.filter((x) => shown.has(x.id) || (x.parentId !== null && shown.has(x.parentId)));
  return out;
}

async function open(
  preview: boolean,
  previewUncounted = false,
): Promise<{ host: ScriptedHost; s: ReturnType<typeof genSession>; first: NodeView[] }> {
  const s = genSession({ n: 20_000, branchRate: 0.02, seed: 41 });
  const first = firstScreen(s.nodes, s.leafId);
  const host = await web.open({
    meta: meta(),
    nodes: s.nodes,
    leafId: s.leafId,
    ...(preview ? { preview: first, previewUncounted } : {}),
  });
  return { host, s, first };
}

test('the first screen is drawn around the leaf before the whole tree, with the loading bar up; the whole tree replaces it, framed the same', async () => {
  const { host, s, first } = await open(true);
  const page = host.page;
  // The leaf (or its nearest shown entry: the default filter hides some kinds) is selected.
  const sel = page.locator('svg.scene g.node.selected');
  await sel.waitFor({ state: 'attached', timeout: 60_000 });
  // Painted, the webview says so: the host holds the whole file's read until then.
  const said = await host.waitFor((m) => m.type === 'shown', 30_000);
  assert.deepEqual(said, { type: 'shown' });
  await idle(page);
  const shown = (await sel.getAttribute('data-entry-id'))!;
  assert.ok(first.some((x) => x.id === shown));
  assert.equal(await modelSize(page), first.length, 'only the first screen is held');
  assert.ok(first.length < s.nodes.length / 10);
  const bar = page.locator('.loading');
  assert.equal(await bar.isVisible(), true, 'the loading bar stays up while the rest comes');
  assert.match((await bar.textContent()) ?? '', /Loading 0 of 20,000 entries/);
  // A strip above the first screen, not a layer over it: the leaf's card is what a click there meets.
  const uncovered = await page.evaluate(() => {
    const node = document.querySelector('svg.scene g.node.selected')!;
    const r = node.getBoundingClientRect();
    return node.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
  });
  assert.equal(uncovered, true, 'the loading bar does not cover the first screen');
  const a = await boxes(page, [shown]);
  assert.ok(inside(a.nodes[shown], a.g), 'the leaf is in view on the first screen');
  // The whole tree (a later revision), in parts as the host sends it.
  host.rev++;
  await host.post({
    type: 'snapshot',
    rev: host.rev,
    meta: meta(),
    leafId: s.leafId,
    nodes: s.nodes.slice(0, 8000),
    total: s.nodes.length,
  });
  assert.match((await bar.textContent()) ?? '', /Loading 8,000 of 20,000 entries/);
  assert.equal(await modelSize(page), first.length, 'a part alone changes nothing drawn');
  await host.post({ type: 'snapshotPart', rev: host.rev, nodes: s.nodes.slice(8000) });
  await idle(page);
  assert.equal(await modelSize(page), s.nodes.length);
  await bar.waitFor({ state: 'hidden' });
  const b = await boxes(page, [shown]);
  assert.ok(inside(b.nodes[shown], b.g), 'the leaf is still framed in the whole tree');
  // A first screen that comes after the whole tree (an older revision) is ignored.
  await host.post({
    type: 'firstScreen',
    rev: host.rev - 1,
    meta: meta(),
    leafId: s.leafId,
    nodes: first,
    total: s.nodes.length,
  });
  await idle(page);
  assert.equal(await modelSize(page), s.nodes.length);
  // The file re-read from the start (a newer revision): the tree shown stays until the new one is whole.
  host.rev++;
  await host.post({
    type: 'firstScreen',
    rev: host.rev,
    meta: meta(),
    leafId: s.leafId,
    nodes: first,
    total: s.nodes.length,
  });
  await idle(page);
  assert.equal(await modelSize(page), s.nodes.length);
  // Not drawn, it is still answered (the host would otherwise wait its longest before reading).
  await host.waitFor((m) => m.type === 'shown' && host.received.filter((x) => x.type === 'shown').length === 2, 30_000);
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();
});

test('a view panned on the first screen is not framed again when the whole tree arrives; a first screen before the count says the session is being read', async () => {
  const { host, s } = await open(true, true);
  const page = host.page;
  await page.locator('svg.scene g.node.selected').waitFor({ state: 'attached', timeout: 60_000 });
  await idle(page);
  assert.equal((await page.locator('.loading').textContent())?.trim(), 'Reading the session…');
  await page.evaluate(() => (window as unknown as Hooks).__piTree.graph.panBy(-60, 30));
  const panned = await view(page);
  host.rev++;
  await host.post({ type: 'snapshot', rev: host.rev, meta: meta(), leafId: s.leafId, nodes: s.nodes });
  await idle(page);
  assert.equal(await modelSize(page), s.nodes.length);
  const after = await view(page);
  assert.equal(after.k, panned.k, 'the zoom the user had is kept');
  await page.context().close();
});

test('the overview asked for on the first screen is the overview of the whole tree once it is in', async () => {
  const { host, s } = await open(true);
  const page = host.page;
  await page.locator('svg.scene g.node.selected').waitFor({ state: 'attached', timeout: 60_000 });
  await idle(page);
  await page.locator('[role="tree"]').focus();
  await page.keyboard.press('Shift+Digit0');
  await idle(page);
  const onPreview = await view(page);
  host.rev++;
  await host.post({ type: 'snapshot', rev: host.rev, meta: meta(), leafId: s.leafId, nodes: s.nodes });
  await idle(page);
  const shown = await view(page);
  assert.notDeepEqual(shown, onPreview, 'the whole tree is bigger: its overview is another view');
  await page.evaluate(() => (window as unknown as Hooks).__piTree.graph.overview(false));
  const overview = await view(page);
  for (const k of ['x', 'y', 'k'] as const)
    assert.ok(Math.abs(shown[k] - overview[k]) < 1e-6, `${k}: ${shown[k]} vs ${overview[k]}`);
  await page.context().close();
});
