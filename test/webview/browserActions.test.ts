// The built webview bundle in headless Chromium against a scripted host: the exact requests each action
// sends, deltas applied in place, a snapshot in parts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appHelpers, close, selected, selectId } from './helpers/app';
import { idle, meta, useWebviewBrowser } from './helpers/browser';
import { genSession } from './helpers/gen';
import { smallSession } from './fixtures';

const web = useWebviewBrowser();
const { open, small } = appHelpers(web);

test('actions send exactly the requests the host expects', async () => {
  const host = await small();
  const page = host.page;
  // Move to a user message: the reply hands its text back for re-editing.
  host.handlers.moveTo = (b) => ({
    leafId: 'a3000000',
    moved: true,
    ...(b.kind === 'moveTo' && b.id === 'u3000000' ? { editorText: 'now add tests' } : {}),
  });
  await selectId(host, 'u3000000');
  let req: unknown = host.nextRequest('moveTo');
  await page.keyboard.press('Enter');
  assert.deepEqual(await req, { kind: 'moveTo', id: 'u3000000' });
  const dlg = page.locator('[data-dialog="editor-text"]');
  await dlg.waitFor();
  assert.equal(
    await dlg
      .locator('vscode-textarea[data-field="editor-text"]')
      .evaluate((e) => (e as HTMLElement & { value: string }).value),
    'now add tests',
  );
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
  assert.deepEqual(await req, {
    kind: 'moveWithSummary',
    id: 'u4000000',
    summary: 'Edited summary.',
    previewId: 'p-default',
  });
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

test("the details pane's buttons keep their icons from render to render: no stylesheet fetched again, every icon a drawn codicon", async () => {
  const host = await small();
  const page = host.page;
  const codiconLoads = () =>
    page.evaluate(() => performance.getEntriesByType('resource').filter((e) => /codicon/.test(e.name)).length);
  await selectId(host, 'u3000000');
  const loads = await codiconLoads();
  // each selection renders the pane again, moving the kept buttons into it
  for (const id of ['a3000000', 'u2000000', 'a4000000', 'u3000000']) await selectId(host, id);
  assert.equal(await codiconLoads(), loads, 'the codicon stylesheet is not fetched again');
  const icons = await page.locator('.details .details-actions vscode-button').evaluateAll((bs) =>
    bs.map((b) => {
      const i = b.querySelector(':scope > .codicon[slot="content-before"]');
      if (!i) return `${b.textContent}: no icon`;
      const before = getComputedStyle(i, '::before');
      const box = i.getBoundingClientRect();
      return before.fontFamily.includes('codicon') && before.content !== 'none' && box.width === 16
        ? 'ok'
        : `${b.textContent}: ${before.fontFamily} ${before.content} ${box.width}`;
    }),
  );
  assert.ok(icons.length >= 5, `buttons: ${icons.length}`);
  assert.deepEqual(
    icons.filter((r) => r !== 'ok'),
    [],
  );
  await close(host);
});

test('deltas update the tree in place: appended, leafMoved, labelChanged, renamed', async () => {
  const host = await small();
  const page = host.page;
  await host.delta({
    type: 'appended',
    nodes: [
      {
        id: 'u5000000',
        parentId: 'a4000000',
        type: 'message',
        role: 'user',
        kind: 'user',
        text: 'user: one more thing',
        time: Date.UTC(2026, 10, 21),
      },
    ],
  });
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
  assert.doesNotMatch(
    (await page.locator('svg.scene g.node[data-entry-id="u5000000"]').getAttribute('class'))!,
    /\bleaf\b/,
  );
  const order = await page.$$eval('[role="treeitem"]', (els) => els.map((e) => (e as HTMLElement).dataset.key!));
  assert.deepEqual(
    order.slice(0, 4),
    ['u1000000', 'a1000000', 'seg:u4000000', 'bs000000'],
    'the branch holding the leaf comes first',
  );
  assert.equal(await selected(page), 'x1000000', 'the selection followed the leaf');
  await host.delta({ type: 'leafMoved', leafId: 'a3000000' });
  await idle(page);
  assert.match(
    (await page.locator('svg.scene g.node[data-entry-id="a3000000"]').getAttribute('class'))!,
    /\bleaf\b/,
    'a move into a segment splits it (full rebuild)',
  );
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
  await host.post({
    type: 'snapshot',
    rev: 50,
    meta: meta({ name: 'In parts' }),
    leafId: g.leafId,
    nodes: parts[0],
    total: g.nodes.length,
  });
  await host.post({ type: 'snapshotPart', rev: 50, nodes: parts[1] });
  await idle(page);
  assert.notEqual(
    await page.locator('h1.title').textContent(),
    'In parts',
    'nothing is shown from an incomplete snapshot',
  );
  await host.post({ type: 'snapshotPart', rev: 50, nodes: parts[2] });
  await idle(page);
  assert.equal(await page.locator('h1.title').textContent(), 'In parts');
  const count = await page.evaluate(
    () => (window as unknown as { __piTree: { model: { nodes: unknown[] } } }).__piTree.model.nodes.length,
  );
  assert.equal(count, g.nodes.length);
  await close(host);
});
