// In the built webview (headless Chromium, scripted host): an entry with a checkpoint stays its own node
// with its mark, as entries that change files do. A bash turn whose writes pi-tree cannot read from its
// command line (a `for` loop writing a thousand files) has no diff mark, but pi's capture took a
// checkpoint at it: folded into a run ("6 entries") its mark was not drawn anywhere.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { idle, meta, useWebviewBrowser } from './helpers/browser';
import { close } from './helpers/graphBoxes';
import { smallSession } from './fixtures';

const web = useWebviewBrowser();

test('a checkpoint on an entry inside a run: the entry leaves the run, its own node with the checkpoint mark', async () => {
  const s = smallSession();
  // a3 sits in the run below u2 (a2's tools, r2, a3, u3), as a bash turn without a diff mark does.
  const host = await web.open({ meta: meta(), nodes: s.nodes, leafId: s.leafId });
  await host.waitFor((m) => m.type === 'selected', 60_000);
  await idle(host.page);
  const page = host.page;
  const node = page.locator('svg.scene g.node[data-entry-id="a3000000"]');
  assert.equal(await node.count(), 0, 'a3 is drawn inside the run before its checkpoint is known');
  await host.delta({ type: 'codeMarks', ids: ['a3000000'] });
  await idle(page);
  await node.locator('.code-mark').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('[role="treeitem"].checkpoint[data-entry-id="a3000000"]').count(), 1);
  // Gone again (a checkpoint collected): back into the run.
  await host.delta({ type: 'codeMarks', ids: [] });
  await idle(page);
  await node.waitFor({ state: 'detached', timeout: 30_000 });
  await close(host);
});
