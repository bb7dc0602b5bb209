// The find box in the built webview (headless Chromium, scripted host): typed characters stay in the
// field (`/` and `?` do not run the global "open find" or "help"), Enter applies a query still being
// typed before it steps, the count is n/m as soon as a query applies, and a bad pattern says so once;
// a query typed before a re-made webview has its tree jumps once the tree comes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { idle, meta, ScriptedHost, useWebviewBrowser } from './helpers/browser';
import { smallSession } from './fixtures';

const web = useWebviewBrowser();

async function open(): Promise<ScriptedHost> {
  const s = smallSession();
  return web.opened({ meta: meta(), nodes: s.nodes, leafId: s.leafId });
}

const selected = (page: Page) =>
  page.evaluate(
    () => (window as unknown as { __piTree: { stats(): { selected?: string } } }).__piTree.stats().selected,
  );
const input = (page: Page) => page.locator('vscode-textfield[data-field="find"] input');

test('characters typed into the find box stay there: / and ? are text, not commands', async () => {
  const host = await open();
  const page = host.page;
  const field = input(page);
  await field.click();
  // Typed key by key (real keydown events), as a user would.
  await page.keyboard.type('file:src/a.ts');
  await idle(page);
  assert.equal(await field.inputValue(), 'file:src/a.ts', 'the / did not select the field and get typed over');
  assert.match((await page.locator('.find-count').textContent())!, /^1\/[1-9]/);
  await field.fill('');
  await page.keyboard.type('re:parser? re:a/b');
  await idle(page);
  assert.equal(await field.inputValue(), 're:parser? re:a/b');
  assert.equal(
    await page.locator('[data-dialog="shortcuts"]').count(),
    0,
    '? typed in the field does not open the shortcut sheet',
  );
  // Out of the field, / still opens find and selects the query.
  await page.locator('[role="tree"]').focus();
  await page.keyboard.press('/');
  await idle(page);
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-field')), 'find');
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();
});

test('Enter applies the query being typed before stepping; the count is n/m at once; a bad pattern is named once', async () => {
  const host = await open();
  const page = host.page;
  const field = input(page);
  const count = page.locator('.find-count');
  await field.fill('parser');
  await idle(page);
  // "parser" hits u2 (fix the parser) and a3 (Fixed the parser bug); the leaf a4 is selected, so the
  // first match at or after it wraps to u2.
  assert.equal(await count.textContent(), '1/2');
  assert.equal(await selected(page), 'u2000000');
  // A new query and Enter in one go (one task: the debounce cannot have run): Enter must step in the
  // hits of "tests" (u3, a4), never in those of "parser".
  await field.evaluate((el: HTMLInputElement) => {
    el.value = 'tests';
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', bubbles: true, composed: true, cancelable: true }),
    );
  });
  await idle(page);
  const after = await selected(page);
  assert.ok(after === 'u3000000' || after === 'a4000000', `Enter went to a match of the new query (got ${after})`);
  assert.match((await count.textContent())!, /^[12]\/2$/);
  // The first match of a query is selected and counted as soon as it applies.
  await field.fill('hello');
  await idle(page);
  assert.equal(await count.textContent(), '1/1');
  assert.equal(await selected(page), 'u1000000');
  // One clear error for a bad pattern, and the field is marked invalid.
  await field.fill('re:(');
  await idle(page);
  const err = (await count.textContent())!;
  assert.equal(err, 'Invalid regular expression: Unterminated group');
  assert.equal(err.match(/Invalid regular expression/g)?.length, 1);
  assert.equal(await page.locator('vscode-textfield[data-field="find"]').getAttribute('aria-invalid'), 'true');
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();
});

test('a query typed while a re-made webview waits for its tree jumps to its first match once the tree comes', async () => {
  const host = await open();
  const page = host.page;
  // The webview is made again (a hidden tab shown again): its saved state selects the leaf again, and
  // the host's snapshot comes later than the user starts typing.
  const answer = host.onMessage.bind(host);
  let held = false;
  host.onMessage = async (m) => {
    if (m.type === 'ready' && !held) {
      held = true;
      host.received.push(m);
      return;
    }
    return answer(m);
  };
  await page.reload();
  await page.waitForFunction(() => !!(window as unknown as { __piTree?: unknown }).__piTree);
  await input(page).fill('parser');
  await idle(page);
  assert.ok(held, 'the snapshot was held back');
  assert.equal(await selected(page), undefined, 'nothing to select yet');
  const s = host.session;
  await host.post({ type: 'snapshot', rev: host.rev, meta: s.meta, leafId: s.leafId, nodes: s.nodes });
  await idle(page);
  // Restored on the leaf (a4), then the query's first match at or after it: u2 (wrapping).
  assert.equal(await selected(page), 'u2000000');
  assert.equal(await page.locator('.find-count').textContent(), '1/2');
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();
});
