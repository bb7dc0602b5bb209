// Smoke: the extension activates in a real VS Code (code-server) and its activity-bar container and
// Sessions view appear; the extension host sees the test's PI_CODING_AGENT_DIR.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { contributed, scenario } from './harness.js';

describe('e2e smoke (code-server + Chromium)', () => {
  scenario('smoke activates and shows the pi Sessions container', async (vs) => {
    const item = vs.activityItem();
    await item.waitFor({ state: 'visible', timeout: 60_000 });
    vs.mark('activity item');
    assert.equal(await item.getAttribute('aria-label'), contributed.containerTitle);
    await vs.waitForOutput('pi-tree activated');
    vs.mark('activated');
    assert.doesNotMatch(vs.extensionHostLog(), /Activating extension '?pi-tree\.pi-tree'? failed/i);

    const hosts = vs.extensionHostEnv();
    assert.ok(hosts.length > 0, 'no extension host process found in the server process group');
    for (const env of hosts) assert.equal(env.PI_CODING_AGENT_DIR, vs.agentDir);

    const container = await vs.openContainer();
    await vs.view().waitFor({ state: 'visible' });
    assert.match((await vs.sideBarTitle().textContent()) ?? '', /pi Sessions/i);
    assert.ok(await container.isVisible());
  });
});
