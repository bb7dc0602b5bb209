// The built webview bundle (dist/webview.js) in headless Chromium against a scripted host: layout and
// culling, filters and find, the keyboard map, the exact requests each action sends, deltas, persisted
// state, host `invoke`, and hostile session text staying inert.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { NodeView } from '../../src/protocol';
import { validateWebviewMessage } from '../../src/protocolValidation';
import { KEYMAP } from '../../webview/app/keymap';
import { idle, meta, ScriptedHost, useWebviewBrowser } from './helpers/browser';
import { genSession } from './helpers/gen';
import { HOSTILE_MARKDOWN, smallSession } from './fixtures';

const web = useWebviewBrowser();

async function open(nodes: NodeView[], leafId: string | null, over: Parameters<typeof meta>[0] = {}): Promise<ScriptedHost> {
  const host = await web.open({ meta: meta(over), nodes, leafId });
  await host.waitFor((m) => m.type === 'selected', 60_000);
  await idle(host.page);
  return host;
}

async function small(over: Parameters<typeof meta>[0] = {}): Promise<ScriptedHost> {
  const s = smallSession();
  const host = await open(s.nodes, s.leafId, over);
  await host.page.locator('[role="tree"]').focus();
  return host;
}

const selected = (page: Page) => page.evaluate(() => (window as unknown as { __piTree: { stats(): { selected?: string } } }).__piTree.stats().selected);
const stats = (page: Page) => page.evaluate(() => (window as unknown as { __piTree: { stats(): Record<string, number> } }).__piTree.stats());

async function selectId(host: ScriptedHost, id: string): Promise<void> {
  await host.post({ type: 'invoke', action: 'select', id });
  await idle(host.page);
  assert.equal(await selected(host.page), id);
  await host.page.locator('[role="tree"]').focus();
}

async function close(host: ScriptedHost): Promise<void> {
  assert.deepEqual(host.pageErrors, []);
  assert.deepEqual(await host.page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations), []);
  // Every message the webview sent passes the host's validator.
  for (const m of host.received) assert.equal(validateWebviewMessage(m).ok, true, JSON.stringify(m));
  await host.page.context().close();
}

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
  const k0 = await page.evaluate(() => (window as unknown as { __piTree: { graph: { view: { k: number } } } }).__piTree.graph.view.k);
  await page.mouse.move(g!.x + 300, g!.y + 300);
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, 400);
  await page.keyboard.up('Control');
  await idle(page);
  const k1 = await page.evaluate(() => (window as unknown as { __piTree: { graph: { view: { k: number } } } }).__piTree.graph.view.k);
  assert.ok(k1 < k0, `zoomed out ${k0} → ${k1}`);
  await page.locator('[role="tree"]').focus();
  // Fit (0) on a tree too big to read whole: the selection and its branches at a readable zoom.
  await page.keyboard.press('0');
  await idle(page);
  const near = await page.evaluate(() => (window as unknown as { __piTree: { graph: { view: { k: number } } } }).__piTree.graph.view.k);
  assert.ok(near >= 0.5, `Fit stays readable: k ${near}`);
  assert.equal(await page.locator(`svg.scene g.node[data-entry-id="${s.leafId}"]`).count(), 1, 'the selection (the leaf) is in view');
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
  assert.deepEqual(await rows(), ['u1000000', 'a1000000', 'u2000000', 'seg:r2000000', 'a4000000', 'seg:u4000000', 'bs000000', 'x1000000']);
  await page.keyboard.press('o');
  await idle(page);
  assert.deepEqual(await rows(), ['u1000000', 'a1000000', 'u2000000', 'seg:a3000000', 'a4000000', 'seg:u4000000', 'bs000000', 'x1000000'], 'no-tools hides the tool result');
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
  assert.ok(!all.includes('a2000000') && !all.some((k) => k === 'seg:a2000000'), 'a text-less assistant stays hidden in all');
  assert.equal(await page.locator('vscode-single-select.filter').evaluate((e) => (e as HTMLElement & { value: string }).value), 'all');
  await close(host);
});

test("piTree.tree.defaultFilter: a session opens with the setting's filter; the user's own choice for it is kept after a reload", async () => {
  const host = await small({ defaultFilter: 'user-only' });
  const page = host.page;
  const filter = () => page.locator('vscode-single-select.filter').evaluate((e) => (e as HTMLElement & { value: string }).value);
  const rows = () => page.$$eval('[role="treeitem"]', (els) => els.map((e) => (e as HTMLElement).dataset.key!));
  assert.equal(await filter(), 'user-only');
  assert.deepEqual(await rows(), ['u1000000', 'u2000000', 'u3000000', 'u4000000', 'x1000000']);
  await page.keyboard.press('o'); // the user picks labeled-only for this session
  await idle(page);
  const readyBefore = host.received.filter((m) => m.type === 'ready').length;
  await page.reload();
  await host.waitFor((m) => m.type === 'ready' && host.received.filter((x) => x.type === 'ready').length > readyBefore);
  await page.waitForFunction(() => ((window as unknown as { __piTree?: { stats(): { items: number } } }).__piTree?.stats().items ?? 0) > 0);
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
  assert.equal(await tree.getAttribute('aria-activedescendant'), await page.locator('[role="treeitem"][data-entry-id="a4000000"]').getAttribute('id'));
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
  assert.match((await row.getAttribute('aria-label'))!, /^User message: user: fix the parser please, label start, on the current path/);
  assert.equal(await page.locator('[role="treeitem"][data-entry-id="a1000000"]').getAttribute('aria-expanded'), 'true');
  // Left on a branch point folds it; Right unfolds.
  await selectId(host, 'a1000000');
  await key('ArrowLeft');
  assert.equal(await page.locator('[role="treeitem"]').count(), 2);
  await key('ArrowRight');
  assert.equal(await page.locator('[role="treeitem"]').count(), 8);
  // The shortcut sheet is generated from the registry.
  await page.keyboard.press('?');
  const sheet = page.locator('[data-dialog="shortcuts"]');
  await sheet.waitFor();
  assert.equal(await sheet.locator('tr[data-command]').count(), KEYMAP.length);
  await page.keyboard.press('Escape');
  await sheet.waitFor({ state: 'detached' });
  // Shift+F10 and the Menu key open the native menu: a contextmenu event on the node's element.
  await selectId(host, 'u2000000');
  await page.keyboard.press('Shift+F10');
  await page.keyboard.press('ContextMenu');
  const menus = await page.evaluate(() => (window as unknown as { __contextMenus: { context: string; x: number; y: number }[] }).__contextMenus);
  assert.equal(menus.length, 2);
  const ctx = JSON.parse(menus[0].context);
  assert.deepEqual({ s: ctx.webviewSection, id: ctx.entryId, role: ctx.entryRole, p: ctx.preventDefaultContextMenuItems }, { s: 'node', id: 'u2000000', role: 'user', p: true });
  assert.ok(menus[0].x > 0 && menus[0].y > 0);
  // The selection is reported to the host (for native menu commands).
  await host.waitFor((m) => m.type === 'selected' && m.id === 'u2000000');
  await close(host);
});

test('actions send exactly the requests the host expects', async () => {
  const host = await small();
  const page = host.page;
  // Move to a user message: the reply hands its text back for re-editing.
  host.handlers.moveTo = (b) => ({ leafId: 'a3000000', moved: true, ...(b.kind === 'moveTo' && b.id === 'u3000000' ? { editorText: 'now add tests' } : {}) });
  await selectId(host, 'u3000000');
  let req: unknown = host.nextRequest('moveTo');
  await page.keyboard.press('Enter');
  assert.deepEqual(await req, { kind: 'moveTo', id: 'u3000000' });
  const dlg = page.locator('[data-dialog="editor-text"]');
  await dlg.waitFor();
  assert.equal(await dlg.locator('vscode-textarea[data-field="editor-text"]').evaluate((e) => (e as HTMLElement & { value: string }).value), 'now add tests');
  req = host.nextRequest('copyText');
  await dlg.locator('[data-action="editor-copy"]').click();
  assert.deepEqual(await req, { kind: 'copyText', id: 'u3000000' });
  req = host.nextRequest('continueInPi');
  await dlg.locator('[data-action="editor-continue"]').click();
  assert.deepEqual(await req, { kind: 'continueInPi', text: 'now add tests' });
  await dlg.waitFor({ state: 'detached' });

  // Move with summary: preview, edit, commit.
  host.handlers.summaryPreview = (b) => ({
    previewId: b.kind === 'summaryPreview' && b.focus ? 'p-focus' : 'p-default',
    summary: 'The user tried X.',
    details: { readFiles: ['a.ts'], modifiedFiles: [] },
    entryCount: 4,
    model: 'test-model',
  });
  await selectId(host, 'u4000000');
  req = host.nextRequest('summaryPreview');
  await page.keyboard.press('Shift+Enter');
  const sum = page.locator('[data-dialog="summary"]');
  await sum.locator('[data-action="summary-default"]').click();
  assert.deepEqual(await req, { kind: 'summaryPreview', id: 'u4000000' });
  const text = sum.locator('vscode-textarea[data-field="summary"] textarea');
  await text.waitFor();
  assert.equal(await text.inputValue(), 'The user tried X.');
  await text.fill('Edited summary.');
  req = host.nextRequest('moveWithSummary');
  await sum.locator('[data-action="summary-commit"]').click();
  assert.deepEqual(await req, { kind: 'moveWithSummary', id: 'u4000000', summary: 'Edited summary.', previewId: 'p-default' });
  await sum.waitFor({ state: 'detached' });

  // Custom focus, then cancel: the preview is dropped and nothing is written.
  await page.locator('[role="tree"]').focus();
  req = host.nextRequest('summaryPreview');
  await page.keyboard.press('Shift+Enter');
  await sum.locator('[data-action="summary-custom"]').click();
  await sum.locator('vscode-textarea[data-field="focus"] textarea').fill('the tests');
  await sum.locator('[data-action="summary-generate"]').click();
  assert.deepEqual(await req, { kind: 'summaryPreview', id: 'u4000000', focus: 'the tests' });
  await sum.locator('vscode-textarea[data-field="summary"]').waitFor();
  req = host.nextRequest('cancelPreview');
  await page.keyboard.press('Escape');
  assert.deepEqual(await req, { kind: 'cancelPreview', previewId: 'p-focus' });
  await sum.waitFor({ state: 'detached' });
  assert.equal(host.requestsOf('moveWithSummary').length, 1);

  // No summary model: the user writes the summary; no preview id.
  await host.delta({ type: 'meta', meta: meta({ summariesAvailable: false }) });
  await idle(page);
  await page.locator('[role="tree"]').focus();
  await page.keyboard.press('Shift+Enter');
  await sum.locator('[data-action="summary-write"]').click();
  await sum.locator('vscode-textarea[data-field="summary"] textarea').fill('My own summary');
  req = host.nextRequest('moveWithSummary');
  await sum.locator('[data-action="summary-commit"]').click();
  assert.deepEqual(await req, { kind: 'moveWithSummary', id: 'u4000000', summary: 'My own summary' });

  // Fork (user messages only), clone, copy, continue, context.
  await selectId(host, 'u2000000');
  req = host.nextRequest('fork');
  await page.keyboard.press('f');
  assert.deepEqual(await req, { kind: 'fork', id: 'u2000000' });
  req = host.nextRequest('clone');
  await page.keyboard.press('Shift+F');
  assert.deepEqual(await req, { kind: 'clone', id: 'u2000000' });
  req = host.nextRequest('copyText');
  await page.keyboard.press('Control+c');
  assert.deepEqual(await req, { kind: 'copyText', id: 'u2000000' });
  req = host.nextRequest('continueInPi');
  await page.keyboard.press('p');
  assert.deepEqual(await req, { kind: 'continueInPi', id: 'u2000000' });
  host.handlers.getContext = (b) => ({
    leafId: b.kind === 'getContext' ? b.id : null,
    messages: [
      { role: 'compactionSummary', text: 'summary of before', tokens: 50 },
      { role: 'user', text: 'fix the parser please', tokens: 6, entryId: 'u2000000' },
    ],
    tokens: 56,
    compactionAt: 0,
    thinkingLevel: 'high',
    model: 'claude-x',
  });
  req = host.nextRequest('getContext');
  await page.keyboard.press('x');
  assert.deepEqual(await req, { kind: 'getContext', id: 'u2000000' });
  await page.locator('.context-view .boundary').waitFor();
  assert.equal(await page.locator('.context-view li.ctx-msg').count(), 2);
  await selectId(host, 'a3000000');
  const forks = host.requestsOf('fork').length;
  await page.keyboard.press('f');
  await idle(page);
  assert.equal(host.requestsOf('fork').length, forks, 'no fork from an assistant message');

  // Label: inline editor, Enter saves; Shift+Delete clears.
  req = host.nextRequest('setLabel');
  await page.keyboard.press('F2');
  const input = page.locator('.label-editor vscode-textfield[data-field="label"] input');
  await input.fill('  v2  ');
  await input.press('Enter');
  assert.deepEqual(await req, { kind: 'setLabel', id: 'a3000000', label: 'v2' });
  await host.delta({ type: 'labelChanged', targetId: 'a3000000', label: 'v2' });
  await idle(page);
  await page.locator('[role="tree"]').focus();
  req = host.nextRequest('setLabel');
  await page.keyboard.press('Shift+Delete');
  assert.deepEqual(await req, { kind: 'setLabel', id: 'a3000000' });
  // The details pane buttons send the same requests (a3000000 is the leaf now: the move to u3000000
  // above put it there, so its Move is disabled).
  assert.equal(await page.locator('.details [data-action="move"]').getAttribute('disabled'), '');
  await selectId(host, 'a1000000');
  req = host.nextRequest('moveTo');
  await page.locator('.details [data-action="move"]').click();
  assert.deepEqual(await req, { kind: 'moveTo', id: 'a1000000' });
  // Errors from the host are shown, not swallowed.
  host.handlers.clone = () => {
    throw new Error('disk full');
  };
  await page.locator('.details [data-action="clone"]').click();
  await page.locator('.toast.error', { hasText: 'disk full' }).waitFor();
  // Read-only sessions refuse writes before asking the host.
  await host.delta({ type: 'meta', meta: meta({ readOnly: 'untrusted workspace' }) });
  await idle(page);
  await page.locator('[role="tree"]').focus();
  const moves = host.requestsOf('moveTo').length;
  await page.keyboard.press('Enter');
  await idle(page);
  assert.equal(host.requestsOf('moveTo').length, moves);
  assert.equal(await page.locator('.details [data-action="move"]').getAttribute('disabled'), '');
  await close(host);
});

test('deltas update the tree in place: appended, leafMoved, labelChanged, renamed', async () => {
  const host = await small();
  const page = host.page;
  await host.delta({ type: 'appended', nodes: [{ id: 'u5000000', parentId: 'a4000000', type: 'message', role: 'user', kind: 'user', text: 'user: one more thing', time: Date.UTC(2026, 10, 21) }] });
  await host.delta({ type: 'leafMoved', leafId: 'u5000000' });
  await idle(page);
  await page.locator('[role="treeitem"][data-entry-id="u5000000"]').waitFor();
  // The selection was on the old leaf, so it follows the new one.
  assert.equal(await selected(page), 'u5000000');
  assert.match((await page.locator('svg.scene g.node[data-entry-id="u5000000"]').getAttribute('class'))!, /\bleaf\b/);
  // A move to an entry that has its own node takes the fast path (no relayout): flags and order.
  await host.delta({ type: 'leafMoved', leafId: 'x1000000' });
  await idle(page);
  assert.match((await page.locator('svg.scene g.node[data-entry-id="x1000000"]').getAttribute('class'))!, /\bleaf\b/);
  assert.doesNotMatch((await page.locator('svg.scene g.node[data-entry-id="u5000000"]').getAttribute('class'))!, /\bleaf\b/);
  const order = await page.$$eval('[role="treeitem"]', (els) => els.map((e) => (e as HTMLElement).dataset.key!));
  assert.deepEqual(order.slice(0, 4), ['u1000000', 'a1000000', 'seg:u4000000', 'bs000000'], 'the branch holding the leaf comes first');
  assert.equal(await selected(page), 'x1000000', 'the selection followed the leaf');
  await host.delta({ type: 'leafMoved', leafId: 'a3000000' });
  await idle(page);
  assert.match((await page.locator('svg.scene g.node[data-entry-id="a3000000"]').getAttribute('class'))!, /\bleaf\b/, 'a move into a segment splits it (full rebuild)');
  await host.delta({ type: 'labelChanged', targetId: 'u1000000', label: 'origin' });
  await idle(page);
  assert.equal(await page.locator('[role="treeitem"][data-entry-id="u1000000"] .label-badge').textContent(), 'origin');
  await host.delta({ type: 'renamed', name: 'Parser work' });
  await idle(page);
  assert.equal(await page.locator('h1.title').textContent(), 'Parser work');
  assert.equal(host.received.filter((m) => m.type === 'ready').length, 1, 'no reload');
  // A stale delta (older than the snapshot) is ignored.
  await host.post({ type: 'labelChanged', rev: 0, targetId: 'u1000000', label: 'stale' });
  await idle(page);
  assert.equal(await page.locator('[role="treeitem"][data-entry-id="u1000000"] .label-badge').textContent(), 'origin');
  await close(host);
});

test('a big snapshot in parts is applied once whole', async () => {
  const s = smallSession();
  const host = await open(s.nodes, s.leafId);
  const page = host.page;
  const g = genSession({ n: 12_000, seed: 7 });
  const parts = [g.nodes.slice(0, 5000), g.nodes.slice(5000, 10_000), g.nodes.slice(10_000)];
  await host.post({ type: 'snapshot', rev: 50, meta: meta({ name: 'In parts' }), leafId: g.leafId, nodes: parts[0], total: g.nodes.length });
  await host.post({ type: 'snapshotPart', rev: 50, nodes: parts[1] });
  await idle(page);
  assert.notEqual(await page.locator('h1.title').textContent(), 'In parts', 'nothing is shown from an incomplete snapshot');
  await host.post({ type: 'snapshotPart', rev: 50, nodes: parts[2] });
  await idle(page);
  assert.equal(await page.locator('h1.title').textContent(), 'In parts');
  const count = await page.evaluate(() => (window as unknown as { __piTree: { model: { nodes: unknown[] } } }).__piTree.model.nodes.length);
  assert.equal(count, g.nodes.length);
  await close(host);
});

test('hostile session text is rendered inert (script, onerror, javascript: links, Markdown links)', async () => {
  const s = smallSession();
  const host = await open(s.nodes, s.leafId);
  const page = host.page;
  host.handlers.getEntry = (b) => ({
    id: 'x1000000',
    entry: {
      type: 'message',
      id: 'x1000000',
      parentId: 'bs000000',
      message: {
        role: 'user',
        content: [
          { type: 'text', text: HOSTILE_MARKDOWN },
          { type: 'image', mimeType: 'image/svg+xml', data: 'PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+' },
          { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==' },
        ],
      },
    },
    truncated: false,
    onPath: false,
    isLeaf: b.kind === 'getEntry' && false,
  });
  await host.post({ type: 'invoke', action: 'select', id: 'x1000000' });
  await page.locator('.details .markdown').first().waitFor();
  await idle(page);
  const facts = await page.evaluate(() => {
    const app = document.getElementById('app')!;
    return {
      pwned: (window as unknown as { __pwned?: unknown }).__pwned,
      scripts: app.querySelectorAll('script').length,
      iframes: app.querySelectorAll('iframe').length,
      onAttrs: [...app.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
      jsHrefs: [...app.querySelectorAll('[href]')].filter((e) => /^\s*(javascript|data):/i.test(e.getAttribute('href')!)).length,
      links: [...app.querySelectorAll('.details a[href]')].map((a) => a.getAttribute('href')),
      images: [...app.querySelectorAll('.details img')].map((i) => i.getAttribute('src')!.slice(0, 15)),
      text: document.querySelector('.details .markdown')!.textContent,
      svgText: document.querySelector('svg.scene g.node[data-entry-id="x1000000"] .title')?.textContent,
    };
  });
  assert.equal(facts.pwned, undefined);
  assert.equal(facts.scripts, 0);
  assert.equal(facts.iframes, 0);
  assert.equal(facts.onAttrs, 0);
  assert.equal(facts.jsHrefs, 0);
  assert.ok(facts.links.length >= 1 && facts.links.every((h) => /^https:\/\/example\.com/.test(h!)), JSON.stringify(facts.links));
  assert.ok(facts.links.includes('https://example.com/docs'));
  assert.deepEqual(facts.images, ['data:image/png;', 'data:image/png;']);
  assert.match(facts.text!, /<script>window.__pwned = "script"<\/script>/, 'raw HTML shows as text');
  assert.match(facts.svgText ?? '', /<script>/, 'node titles are text too');
  // Clicking the javascript: "link" text does nothing.
  await page.locator('.details .markdown', { hasText: 'js link' }).first().click();
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), undefined);
  await close(host);
});

test('UI state survives a reload (selection, filter, find, zoom) and entries are fetched only on demand', async () => {
  const host = await small();
  const page = host.page;
  assert.deepEqual(host.requestsOf('getEntry'), [{ kind: 'getEntry', id: 'a4000000' }], 'only the selected entry is fetched');
  // Five rows up in one go (one task, as fast as a held key): only the row the selection stops on is fetched.
  await page.evaluate(() => {
    const tree = document.querySelector('[role="tree"]')!;
    for (let i = 0; i < 5; i++) tree.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowUp', code: 'ArrowUp', bubbles: true, cancelable: true }));
  });
  await idle(page);
  assert.equal(await selected(page), 'u1000000');
  assert.deepEqual(
    host.requestsOf('getEntry'),
    [
      { kind: 'getEntry', id: 'a4000000' },
      { kind: 'getEntry', id: 'u1000000' },
    ],
    'arrowing through rows does not fetch every row',
  );
  await page.keyboard.press('o');
  await page.locator('vscode-textfield[data-field="find"] input').fill('parser');
  await idle(page);
  await selectId(host, 'u2000000');
  await page.keyboard.press('=');
  await idle(page); // the zoom has settled and the UI state is saved
  const k = await page.evaluate(() => (window as unknown as { __piTree: { graph: { view: { k: number } } } }).__piTree.graph.view.k);
  const readyBefore = host.received.filter((m) => m.type === 'ready').length;
  await page.reload();
  await host.waitFor((m) => m.type === 'ready' && host.received.filter((x) => x.type === 'ready').length > readyBefore);
  await page.waitForFunction(() => ((window as unknown as { __piTree?: { stats(): { items: number } } }).__piTree?.stats().items ?? 0) > 0);
  await idle(page);
  assert.equal(await selected(page), 'u2000000');
  assert.equal(await page.locator('vscode-single-select.filter').evaluate((e) => (e as HTMLElement & { value: string }).value), 'no-tools');
  assert.equal(await page.locator('vscode-textfield[data-field="find"]').evaluate((e) => (e as HTMLElement & { value: string }).value), 'parser');
  const k2 = await page.evaluate(() => (window as unknown as { __piTree: { graph: { view: { k: number } } } }).__piTree.graph.view.k);
  assert.ok(Math.abs(k2 - k) < 1e-6, `zoom ${k} → ${k2}`);
  const saved = await page.evaluate(() => JSON.parse(sessionStorage.getItem('vscodeState')!));
  assert.equal(saved.v, 1);
  assert.equal(saved.restoreToken, 'tok-1', 'the host serializer finds its token at the top level of the state');
  await close(host);
});

test('host invoke messages open the same UI (label editor, summary, shortcuts, details)', async () => {
  const host = await small();
  const page = host.page;
  await host.post({ type: 'invoke', action: 'editLabel', id: 'a1000000' });
  await page.locator('.label-editor vscode-textfield[data-field="label"]').waitFor();
  assert.equal(await selected(page), 'a1000000');
  await page.keyboard.press('Escape');
  await page.locator('.label-editor').waitFor({ state: 'detached' });
  assert.equal(host.requestsOf('setLabel').length, 0, 'Escape writes nothing');
  await host.post({ type: 'invoke', action: 'summaryMove', id: 'u4000000' });
  await page.locator('[data-dialog="summary"]').waitFor();
  // Focus stays inside the modal dialog.
  for (let i = 0; i < 6; i++) await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => !!document.activeElement?.closest('[data-dialog="summary"]')), true);
  await page.keyboard.press('Escape');
  await host.post({ type: 'invoke', action: 'showShortcuts' });
  await page.locator('[data-dialog="shortcuts"]').waitFor();
  await page.keyboard.press('Escape');
  await host.post({ type: 'invoke', action: 'focusLeaf' });
  await idle(page);
  assert.equal(await selected(page), 'a4000000');
  await host.post({ type: 'invoke', action: 'find' });
  await idle(page);
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-field')), 'find');
  await close(host);
});

test('themes: high contrast draws solid contrast borders; reduced motion jumps without animating', async () => {
  const host = await small();
  const page = host.page;
  await page.evaluate(() => {
    document.body.className = 'vscode-high-contrast';
    document.documentElement.style.setProperty('--vscode-contrastBorder', 'rgb(111, 195, 223)');
    document.documentElement.style.setProperty('--vscode-contrastActiveBorder', 'rgb(243, 133, 24)');
  });
  const box = page.locator('svg.scene g.node[data-entry-id="x1000000"] rect.box');
  assert.equal(await box.evaluate((e) => getComputedStyle(e).stroke), 'rgb(111, 195, 223)');
  const sel = page.locator('svg.scene g.node.selected rect.box');
  assert.equal(await sel.evaluate((e) => getComputedStyle(e).stroke), 'rgb(243, 133, 24)');
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const view = () => page.evaluate(() => ({ ...(window as unknown as { __piTree: { graph: { view: { x: number; y: number; k: number } } } }).__piTree.graph.view }));
  await page.keyboard.press('Home');
  await page.keyboard.press('0');
  const v1 = await view();
  await idle(page); // an animation would still be moving the view
  assert.deepEqual(await view(), v1, 'fit applied at once, not animated');
  await close(host);
});

test('host answers are announced: a cancelled move opens nothing, forks name their file', async () => {
  const host = await small();
  const page = host.page;
  const live = page.locator('.sr-only[aria-live="polite"]');
  host.handlers.moveTo = () => ({ leafId: 'a4000000', moved: false, cancelled: true, editorText: 'now add tests' });
  await selectId(host, 'u3000000');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /Cancelled/.test(document.querySelector('.sr-only[aria-live="polite"]')!.textContent!));
  assert.equal(await page.locator('[data-dialog="editor-text"]').count(), 0);
  host.handlers.fork = () => ({ fileName: '2026-11-29T10-00-00-000Z_0190.jsonl', text: 'fix the parser please' });
  await selectId(host, 'u2000000');
  await page.keyboard.press('f');
  await page.waitForFunction(() => /2026-11-29T10-00-00-000Z_0190\.jsonl/.test(document.querySelector('.sr-only[aria-live="polite"]')!.textContent!));
  assert.match((await live.textContent())!, /^Forked a new session from this message: /);
  await close(host);
});
