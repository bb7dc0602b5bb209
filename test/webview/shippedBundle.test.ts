// The bundle that ships (dist/webview.js) carries no test hooks: nothing on `window` for tests or
// benchmarks (those are only in the test build, dist/test/webview.js), and it still runs on its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, meta, serve, ScriptedHost } from './helpers/browser';
import { smallSession } from './fixtures';

const dist = join(__dirname, '..', '..', 'dist');
test('the shipped bundle has no debug globals; the test build has them', () => {
  const shipped = readFileSync(join(dist, 'webview.js'), 'utf8');
  const testBuild = readFileSync(join(dist, 'test', 'webview.js'), 'utf8');
  // Strings only the test hooks (webview/app/testHooks.ts) put in a bundle.
  for (const s of ['__piTree', 'layoutBounds']) {
    assert.ok(testBuild.includes(s), `the test build exposes ${s} (so this check can see it)`);
    assert.ok(!shipped.includes(s), `dist/webview.js must not contain ${s}`);
  }
  assert.ok(!shipped.includes('__PI_TREE_TEST__'), 'the build flag is replaced');
  assert.ok(shipped.includes('pi-tree:rendered') && testBuild.includes('pi-tree:rendered'), 'both are the same app');
  // Intl's first use in a fresh webview costs ~35 ms (its locale data is loaded then): the first screen
  // once waited for one toLocaleString in an outline row's label. webview/ui/format.ts formats instead.
  for (const s of ['toLocaleString', 'Intl.', 'toLocaleDateString', 'toLocaleTimeString'])
    assert.ok(!shipped.includes(s), `dist/webview.js must not use ${s}`);
});

test('the shipped bundle runs: says ready, draws the session, fetches the selected entry, sets no global', async () => {
  const srv = await serve({ shipped: true });
  const browser = await launch();
  try {
    const s = smallSession();
    const host = await ScriptedHost.open(browser, srv.url, { meta: meta(), nodes: s.nodes, leafId: s.leafId });
    const page = host.page;
    await host.waitFor((m) => m.type === 'selected' && m.id === s.leafId, 60_000);
    await page.locator(`svg.scene g.node[data-entry-id="${s.leafId}"]`).waitFor();
    await host.waitFor((m) => m.type === 'request' && m.body.kind === 'getEntry' && m.body.id === s.leafId);
    assert.deepEqual(host.received[0], { type: 'ready' });
    const globals = await page.evaluate(() => Object.keys(window).filter((k) => /pi.?tree/i.test(k)));
    assert.deepEqual(globals, []);
    assert.deepEqual(host.pageErrors, []);
  } finally {
    await browser.close();
    await srv.close();
  }
});
