// The built webview bundle in headless Chromium against a scripted host: hostile session text stays
// inert, UI state survives a reload, host invoke messages, themes, host answers announced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appHelpers, close, selected, selectId } from './helpers/app';
import { idle, useWebviewBrowser } from './helpers/browser';
import { HOSTILE_MARKDOWN, smallSession } from './fixtures';

const web = useWebviewBrowser();
const { open, small } = appHelpers(web);

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
          {
            type: 'image',
            mimeType: 'image/png',
            data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
          },
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
      onAttrs: [...app.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on')))
        .length,
      jsHrefs: [...app.querySelectorAll('[href]')].filter((e) =>
        /^\s*(javascript|data):/i.test(e.getAttribute('href')!),
      ).length,
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
  assert.ok(
    facts.links.length >= 1 && facts.links.every((h) => /^https:\/\/example\.com/.test(h!)),
    JSON.stringify(facts.links),
  );
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
  assert.deepEqual(
    host.requestsOf('getEntry'),
    [{ kind: 'getEntry', id: 'a4000000' }],
    'only the selected entry is fetched',
  );
  // Five rows up in one go (one task, as fast as a held key): only the row the selection stops on is fetched.
  await page.evaluate(() => {
    const tree = document.querySelector('[role="tree"]')!;
    for (let i = 0; i < 5; i++)
      tree.dispatchEvent(
        new KeyboardEvent('keydown', { key: 'ArrowUp', code: 'ArrowUp', bubbles: true, cancelable: true }),
      );
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
  const k = await page.evaluate(
    () => (window as unknown as { __piTree: { graph: { view: { k: number } } } }).__piTree.graph.view.k,
  );
  const readyBefore = host.received.filter((m) => m.type === 'ready').length;
  await page.reload();
  await host.waitFor((m) => m.type === 'ready' && host.received.filter((x) => x.type === 'ready').length > readyBefore);
  await page.waitForFunction(
    () => ((window as unknown as { __piTree?: { stats(): { items: number } } }).__piTree?.stats().items ?? 0) > 0,
  );
  await idle(page);
  assert.equal(await selected(page), 'u2000000');
  assert.equal(await page.locator('select.filter').inputValue(), 'no-tools');
  assert.equal(
    await page
      .locator('vscode-textfield[data-field="find"]')
      .evaluate((e) => (e as HTMLElement & { value: string }).value),
    'parser',
  );
  const k2 = await page.evaluate(
    () => (window as unknown as { __piTree: { graph: { view: { k: number } } } }).__piTree.graph.view.k,
  );
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
  const view = () =>
    page.evaluate(() => ({
      ...(window as unknown as { __piTree: { graph: { view: { x: number; y: number; k: number } } } }).__piTree.graph
        .view,
    }));
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
  await page.waitForFunction(() =>
    /Cancelled/.test(document.querySelector('.sr-only[aria-live="polite"]')!.textContent!),
  );
  assert.equal(await page.locator('[data-dialog="editor-text"]').count(), 0);
  host.handlers.fork = () => ({ fileName: '2026-11-29T10-00-00-000Z_0190.jsonl', text: 'fix the parser please' });
  await selectId(host, 'u2000000');
  await page.keyboard.press('f');
  await page.waitForFunction(() =>
    /2026-11-29T10-00-00-000Z_0190\.jsonl/.test(document.querySelector('.sr-only[aria-live="polite"]')!.textContent!),
  );
  assert.match((await live.textContent())!, /^Forked a new session from this message: /);
  await close(host);
});
