// Self-test of the e2e machinery on a fixture extension, so scenario failures point at the product,
// not the harness: palette commands, the double-iframe webview lookup by extensionId, a click in
// the webview reaching the extension host, file polling, and the env the extension host inherits.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe } from 'node:test';
import { scenario } from './harness.js';

const probe = join(__dirname, 'fixtures', 'webview-probe');

describe('e2e harness self-test', () => {
  scenario(
    'harness drives a webview round trip',
    async (vs) => {
      await vs.runCommand('pi-tree probe: Open Webview');
      const webview = vs.webview('pi-tree-e2e.webview-probe');
      await webview.getByRole('heading', { name: 'probe' }).waitFor({ timeout: 60_000 });
      // the lookup is per extension: pi-tree itself has no webview open here
      assert.equal(await vs.webviewElement('pi-tree-e2e.webview-probe').count(), 1);
      assert.equal(await vs.webviewElement().count(), 0);
      await vs.screenshot('probe open');
      await webview.getByRole('button', { name: 'Write' }).click();
      const written = await vs.pollFile(
        join(vs.workspace, 'probe.json'),
        (text) => JSON.parse(text) as { text: string; agentDir: string },
      );
      assert.deepEqual(written, { text: 'clicked', agentDir: vs.agentDir });
      assert.deepEqual(
        vs.consoleErrors.filter((e) => /Content Security Policy/i.test(e)),
        [],
      );
    },
    { extraExtensions: [probe], sessions: 'none' },
  );
});
