// Issue #17 finding 7 (and the dialog titles of finding 6, the fork dialog of 5) in the built webview: the summary dialog
// without a model offers "Set up a model…", Enter in the focus box asks the model (Shift+Enter is a
// new line), the shortcut sheet tells the 0 key from the O key, and a long title ends on a whole word.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idle, meta, ScriptedHost, selectEntry, useWebviewBrowser } from './helpers/browser';
import { smallSession } from './fixtures';

const web = useWebviewBrowser();

async function open(over: Parameters<typeof meta>[0] = {}): Promise<ScriptedHost> {
  const s = smallSession();
  s.nodes[9] = {
    ...s.nodes[9],
    text: 'user: try an alternative approach that keeps the parser streaming while the index is rebuilt in the background',
  };
  return web.opened({ meta: meta(over), nodes: s.nodes, leafId: s.leafId });
}

test('no summary model: the dialog offers "Set up a model…", which asks the host for the settings', async () => {
  const host = await open({ summariesAvailable: false });
  const page = host.page;
  await selectEntry(host, 'u4000000');
  await page.keyboard.press('Shift+Enter');
  const sum = page.locator('[data-dialog="summary"]');
  await sum.waitFor();
  const setup = sum.locator('[data-action="summary-setup"]');
  assert.equal(await setup.textContent(), 'Set up a model…');
  const req = host.nextRequest('setupSummaryModel');
  await setup.click();
  assert.deepEqual(await req, { kind: 'setupSummaryModel' });
  await sum.waitFor({ state: 'detached' });
  // A long title ends on a whole word.
  await selectEntry(host, 'u4000000');
  await page.keyboard.press('Shift+Enter');
  const title = (await sum.locator('h2').textContent())!;
  const shown = /^Move to “(.*)…” with a summary$/.exec(title)?.[1];
  assert.ok(shown && shown.length <= 60, title);
  const full =
    'try an alternative approach that keeps the parser streaming while the index is rebuilt in the background';
  assert.ok(full.startsWith(shown) && /\W/.test(full[shown.length]), `ends on a whole word: "${shown}"`);
  await page.keyboard.press('Escape');
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();
});

test('Enter in the focus box asks the model; Shift+Enter is a new line', async () => {
  const host = await open();
  const page = host.page;
  host.handlers.summaryPreview = (b) => ({
    previewId: 'p1',
    summary: `focus: ${b.focus}`,
    details: { readFiles: [], modifiedFiles: [] },
    entryCount: 2,
  });
  await selectEntry(host, 'u4000000');
  await page.keyboard.press('Shift+Enter');
  const sum = page.locator('[data-dialog="summary"]');
  await sum.locator('[data-action="summary-custom"]').click();
  const focus = sum.locator('vscode-textarea[data-field="focus"] textarea');
  await focus.click();
  await page.keyboard.type('the tests');
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.type('and the docs');
  assert.equal(await focus.inputValue(), 'the tests\nand the docs');
  assert.equal(host.requestsOf('summaryPreview').length, 0, 'Shift+Enter does not submit');
  const req = host.nextRequest('summaryPreview');
  await page.keyboard.press('Enter');
  assert.deepEqual(await req, { kind: 'summaryPreview', id: 'u4000000', focus: 'the tests\nand the docs' });
  await sum.locator('vscode-textarea[data-field="summary"]').waitFor();
  await page.keyboard.press('Escape');
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();
});

test('a long summary to review opens at its start, the caret there', async () => {
  const host = await open();
  const page = host.page;
  const summary = Array.from({ length: 40 }, (_, i) => `## Part ${i + 1}\n- line ${i + 1}`).join('\n\n');
  host.handlers.summaryPreview = () => ({
    previewId: 'p-long',
    summary,
    details: { readFiles: [], modifiedFiles: [] },
    entryCount: 9,
  });
  await selectEntry(host, 'u4000000');
  await page.keyboard.press('Shift+Enter');
  const sum = page.locator('[data-dialog="summary"]');
  await sum.locator('[data-action="summary-default"]').click();
  const area = sum.locator('vscode-textarea[data-field="summary"] textarea');
  await area.waitFor();
  await page.waitForFunction(() => document.activeElement?.localName === 'vscode-textarea');
  await idle(page);
  const at = await area.evaluate((t) => {
    const ta = t as HTMLTextAreaElement;
    return {
      start: ta.selectionStart,
      end: ta.selectionEnd,
      top: ta.scrollTop,
      scrolls: ta.scrollHeight > ta.clientHeight,
      value: ta.value.length,
    };
  });
  assert.deepEqual(at, { start: 0, end: 0, top: 0, scrolls: true, value: summary.length });
  await page.keyboard.press('Escape');
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();
});

test('the shortcut sheet tells the 0 (zero) key from the letter O', async () => {
  const host = await open();
  const page = host.page;
  await page.locator('[role="tree"]').focus();
  await page.keyboard.press('?');
  const sheet = page.locator('[data-dialog="shortcuts"]');
  await sheet.waitFor();
  const fit = (await sheet.locator('tr[data-command="view.fit"] kbd').allTextContents())[0];
  const filter = (await sheet.locator('tr[data-command="filter.next"] kbd').allTextContents())[0];
  assert.equal(filter, 'O');
  assert.match(fit, /zero/);
  assert.notEqual(fit.replace(/\W/g, '').toUpperCase(), 'O');
  await page.keyboard.press('Escape');
  await page.context().close();
});

test("a node's native menu names its tree (the command goes there); a fork's message is offered when the host hands it over", async () => {
  const host = await open();
  const page = host.page;
  await selectEntry(host, 'u2000000');
  await page.keyboard.press('Shift+F10');
  const menus = await page.evaluate(
    () => (window as unknown as { __contextMenus: { context: string }[] }).__contextMenus,
  );
  assert.equal(JSON.parse(menus[0].context).panel, 'tok-1', 'the restore token of this tree');
  // The host opened this tree for a fork from a user message: its text is offered for re-editing.
  await host.post({ type: 'invoke', action: 'editorText', text: 'Add a test with a 100k-entry file.' });
  const dialog = page.locator('[data-dialog="editor-text"]');
  await dialog.waitFor();
  assert.equal(
    await dialog.locator('vscode-textarea[data-field="editor-text"] textarea').inputValue(),
    'Add a test with a 100k-entry file.',
  );
  assert.match((await dialog.textContent())!, /forked just before this message/);
  const req = host.nextRequest('continueInPi');
  await dialog.locator('[data-action="editor-continue"]').click();
  assert.deepEqual(await req, { kind: 'continueInPi', text: 'Add a test with a 100k-entry file.' });
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();
});

test('Compact (#34 item 9): a failed commit stays in the dialog with the reason; a running pi’s compaction is kept or undone', async () => {
  const host = await open();
  const page = host.page;
  const dialog = page.locator('[data-dialog="compact"]');
  // pi-tree's model writes a draft; the commit fails (the session moved on): the reason shows in the dialog.
  host.handlers.compactCommit = () => {
    throw new Error('The session changed while the compaction was being made; nothing was written. Compact again.');
  };
  await host.post({ type: 'invoke', action: 'compact' });
  const preview = host.nextRequest('compactPreview');
  await dialog.locator('[data-action="compact-default"]').click();
  assert.deepEqual(await preview, { kind: 'compactPreview' });
  const text = dialog.locator('vscode-textarea[data-field="summary"] textarea');
  await text.waitFor();
  assert.equal(await text.inputValue(), 'A compaction.');
  await text.fill('Edited compaction.');
  const commit = host.nextRequest('compactCommit');
  await dialog.locator('[data-action="compact-commit"]').click();
  assert.deepEqual(await commit, { kind: 'compactCommit', previewId: 'compact-1', summary: 'Edited compaction.' });
  const alert = dialog.locator('[role="alert"]');
  await alert.waitFor();
  assert.match((await alert.textContent())!, /session changed.*Compact again/);
  assert.equal(await dialog.locator('[data-action="compact-default"]').textContent(), 'Compact Again');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });

  // A pi with the bridge runs the session: it compacts at once; Undo moves the leaf back.
  await host.post({ type: 'meta', rev: 99, meta: meta({ bridge: { pid: 4242, busy: false } }) });
  host.handlers.compactPreview = () => ({
    previewId: 'compact-2',
    summary: 'Written by pi.',
    details: { readFiles: ['a.ts'], modifiedFiles: [] },
    tokensBefore: 5000,
    model: 'pi (pid 4242)',
    committed: true,
    entryId: 'c9000000',
    previousLeafId: 'a1000000',
  });
  await host.post({ type: 'invoke', action: 'compact' });
  assert.match((await dialog.locator('p').first().textContent())!, /pi 4242 runs this session/);
  await dialog.locator('[data-action="compact-default"]').click();
  await dialog.locator('[data-action="compact-undo"]').waitFor();
  assert.equal(await dialog.locator('vscode-textarea[data-field="summary"]').getAttribute('readonly'), '');
  assert.equal(
    await dialog.locator('[data-action="compact-commit"]').count(),
    0,
    'what pi wrote is not committed again',
  );
  const undo = host.nextRequest('moveTo');
  await dialog.locator('[data-action="compact-undo"]').click();
  assert.deepEqual(await undo, { kind: 'moveTo', id: 'a1000000' });
  await dialog.waitFor({ state: 'detached' });
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();
});

test('Compact says how much it keeps in words (no settings key) and offers the settings; "nothing to compact" does not send the user to another model', async () => {
  const host = await open();
  const page = host.page;
  const dialog = page.locator('[data-dialog="compact"]');
  host.handlers.compactPreview = () => {
    throw new Error('Nothing to compact (session too small)');
  };
  await host.post({ type: 'invoke', action: 'compact' });
  await dialog.waitFor();
  const intro = (await dialog.textContent())!;
  assert.doesNotMatch(intro, /piTree\./, 'no settings key in the text');
  assert.match(intro, /Keep Recent Tokens/);
  assert.equal(await dialog.locator('[data-action="compact-setup"]').textContent(), 'Open Settings');
  await dialog.locator('[data-action="compact-default"]').click();
  const alert = dialog.locator('[role="alert"]');
  await alert.waitFor();
  const said = (await alert.textContent())!;
  assert.match(said, /Nothing to compact/);
  assert.match(said, /nothing older to summarize/);
  assert.doesNotMatch(said, /another summary model/);
  assert.equal(
    await dialog.locator('[data-action="compact-default"]').count(),
    0,
    'compacting again would say the same',
  );
  const req = host.nextRequest('setupSummaryModel');
  await dialog.locator('[data-action="compact-setup"]').click();
  assert.deepEqual(await req, { kind: 'setupSummaryModel' });
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();
});
