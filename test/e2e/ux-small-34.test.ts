// Issue #34 item 10 in a real VS Code, three small things: a straight-line session keeps the entries
// that changed files (and their diff marks) in sight instead of folding them into "N entries"; at about
// 450 px the details pane goes below the graph and none of its buttons is cut off; "Disconnect pi from
// pi-tree" asks first, as Connect does, and changes nothing until the user agrees.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { SessionBuilder } from '../../scripts/lib/demoSessions.js';
import { scenario } from './harness.js';
import * as sel from './selectors.js';
import { openTree, until } from './uxHelpers.js';

describe('small things (#34 item 10)', () => {
  let ask = '';
  let edit = '';
  scenario(
    'an edit stays in sight in a straight session; a 450 px tree keeps its buttons whole; Disconnect asks first',
    async (vs) => {
      // 1. The edit is its own node, with its diff mark, without expanding anything.
      const wv = await openTree(vs, 'Make the port configurable');
      const row = wv.locator(`[role="treeitem"][data-entry-id="${edit}"]`);
      await row.waitFor({ timeout: 30_000 });
      assert.match((await row.getAttribute('class')) ?? '', /\bchanged\b/, 'the row carries the diff mark');
      await wv.locator(`svg.scene g.node.changed[data-entry-id="${edit}"]`).waitFor({ timeout: 30_000 });
      assert.ok(
        (await wv.locator('[role="treeitem"]').count()) < 12,
        'the rest of the straight line is still folded into segments',
      );
      await vs.screenshot('edit-in-sight');

      // 2. About 450 px wide: the details pane sits below the graph, and its buttons are whole.
      await vs.runCommand('View: Close Primary Side Bar');
      await vs.page.setViewportSize({ width: 500, height: 900 });
      await until(
        async () =>
          (await wv.locator('body').evaluate(() => document.documentElement.clientWidth)) < 520 ? true : undefined,
        30_000,
        'the tree to be about 450 px wide',
      );
      await wv.locator(`svg.scene g.node[data-entry-id="${ask}"]`).click();
      const details = wv.locator('.details');
      await details.locator('vscode-button[data-action="move-summary"]').waitFor({ timeout: 30_000 });
      const cut = await details.evaluate((pane) => {
        const p = pane.getBoundingClientRect();
        const width = document.documentElement.clientWidth;
        const buttons = [...pane.querySelectorAll('vscode-button')].map((b) => ({
          text: b.textContent?.trim(),
          r: b.getBoundingClientRect(),
        }));
        return {
          paneShare: p.width / width,
          cut: buttons
            .filter(({ r }) => r.width > 0 && (r.left < p.left - 1 || r.right > p.left + pane.clientWidth + 1))
            .map((b) => b.text),
          buttons: buttons.length,
        };
      });
      assert.ok(cut.buttons >= 5, `the details' buttons: ${cut.buttons}`);
      assert.deepEqual(cut.cut, [], 'no button is cut off');
      assert.ok(
        cut.paneShare > 0.9,
        `the details pane spans the view below the graph (${Math.round(cut.paneShare * 100)}%)`,
      );
      await vs.screenshot('narrow');
      await vs.page.setViewportSize({ width: 1400, height: 900 });

      // 3. Connect (asked), then Disconnect: asked first too, and nothing changes before the answer.
      const settings = join(vs.agentDir, 'settings.json');
      const lists = () => existsSync(settings) && readFileSync(settings, 'utf8').includes('pi-bridge.js');
      await vs.runCommand('pi Tree: Connect pi to pi-tree');
      await vs.page
        .locator(sel.dialog.button)
        .filter({ hasText: /^Connect$/ })
        .click();
      await until(() => (lists() ? true : undefined), 30_000, "pi's settings to list the bridge");
      await vs.runCommand('pi Tree: Disconnect pi from pi-tree');
      const disconnect = vs.page.locator(sel.dialog.button).filter({ hasText: /^Disconnect$/ });
      await disconnect.waitFor({ timeout: 30_000 });
      assert.ok(lists(), 'nothing was taken out before the answer');
      await vs.screenshot('disconnect-asks');
      await disconnect.click();
      await until(() => (!lists() ? true : undefined), 30_000, 'the bridge to be taken out');
      await vs.notifications().filter({ hasText: 'Disconnected' }).first().waitFor();
    },
    {
      sessions: ({ agentDir, workspace }) => {
        const b = new SessionBuilder({ cwd: workspace, seed: 'e2e-small-34', start: '2026-11-20T09:00:00.000Z' });
        ask = b.user('Make the port configurable');
        const read = b.assistant('', [{ name: 'read', arguments: { path: 'src/server.ts' } }]);
        b.toolResults(read, ['const port = 8080;']);
        const call = b.assistant('', [
          {
            name: 'edit',
            arguments: {
              path: 'src/server.ts',
              oldText: 'const port = 8080;',
              newText: 'const port = Number(process.env.PORT ?? 8080);',
            },
          },
        ]);
        // (pi's default filter hides a call without text: its result is the node that shows the edit)
        [edit] = b.toolResults(call, ['Edited src/server.ts']);
        b.assistant('The port comes from PORT now, 8080 by default.');
        b.user('Document it in the README');
        b.assistant('Added a line to the README.');
        b.user('Thanks');
        b.assistant('You are welcome.');
        b.write(agentDir);
      },
    },
  );
});
