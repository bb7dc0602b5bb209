// Issue #34 item 1 in a real VS Code: "Continue in pi" finds pi. The `npm start` demo runs the project's
// own pi (scripts/demoPi.mjs: the devDependency, with a Node it supports), so it starts and connects;
// without pi every attempt says so in a notification whose button opens the setting; and a value set on
// the User tab of the Settings editor (where users look first) is the pi that runs next.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { demoSettings } from '../../scripts/demoPi.mjs';
import { SessionBuilder, writeDemoSessions } from '../../scripts/lib/demoSessions.js';
import { PI_START_MS } from '../support/piRpc.js';
import { scenario } from './harness.js';
import * as sel from './selectors.js';
import { openTree, selectByFind, until } from './uxHelpers.js';

describe('Continue in pi finds pi (#34 item 1)', () => {
  let demo: Record<string, string> = {};
  scenario(
    "the demo's Continue in pi starts the project's pi, which connects",
    async (vs) => {
      assert.match(String(demo['piTree.piCommand']), /pi$/, 'the demo names the project pi');
      await vs.openContainer();
      const row = vs.treeRows().filter({ hasText: 'What does the leaf of a pi session mean?' });
      // The row's inline action shows while the pointer is on the row: the listing may redraw its rows
      // under the pointer (sessions read later), so the hover is made again until the click lands.
      const action = row.locator('.action-label[aria-label="Continue in pi"]');
      await until(
        async () => {
          await row.hover();
          return action.click({ timeout: 5_000 }).then(
            () => true,
            () => undefined,
          );
        },
        60_000,
        "the row's Continue in pi",
      );
      // pi 1.6.0 runs in the terminal with pi-tree's bridge: the sidebar marks the session connected.
      // pi's start is the slow part on a loaded machine, so it gets the limit every suite gives it.
      await row.filter({ hasText: 'pi connected' }).waitFor({ timeout: PI_START_MS + 30_000 });
      assert.equal(await vs.notifications().filter({ hasText: 'not installed' }).count(), 0);
      await vs.screenshot('connected');
    },
    {
      sessions: ({ agentDir, workspace }) => {
        demo = demoSettings(join(agentDir, '..', 'demo-bin'));
        return writeDemoSessions(agentDir, workspace);
      },
      settings: () => demo,
      timeout: 360_000,
    },
  );

  let fakePi = '';
  let argvFile = '';
  let answer = '';
  scenario(
    'without pi each attempt says so with a button to the setting; a User setting is the pi that runs next',
    async (vs) => {
      const wv = await openTree(vs, 'Read the config');
      await selectByFind(wv, 'settings.json', answer);
      const notFound = vs.notifications().filter({ hasText: /pi is not installed|not found/ });
      // Every attempt shows the warning, with the way to the setting: a second one while the first is
      // still open is shown anew (VS Code puts an equal warning in the place of the open one, unchanged).
      for (let attempt = 1; attempt <= 2; attempt++) {
        await wv.locator('.details [data-action="continue"]').click();
        const shown = attempt === 1 ? notFound.first() : notFound.filter({ hasText: `attempt ${attempt}` }).first();
        await shown.waitFor({ timeout: 30_000 });
        assert.equal(
          await shown.locator(sel.notifications.button).filter({ hasText: 'Open Setting' }).count(),
          1,
          'a button to the setting',
        );
        await vs.screenshot(`no-pi-${attempt}`);
      }
      await notFound.first().locator(sel.notifications.button).filter({ hasText: 'Open Setting' }).click();

      // The Settings editor opens on the setting, on the User tab, and takes a value there.
      const settings = vs.page.locator('.settings-editor');
      await settings.waitFor({ timeout: 30_000 });
      const field = settings.locator('.setting-item-contents[data-key="piTree.piCommand"] input');
      await field.waitFor({ timeout: 30_000 });
      const userFile = join(vs.runDir, 'user-data', 'User', 'settings.json');
      // (VS Code writes the file in place: read mid-write it is not JSON yet, and not saved)
      const saved = () => {
        try {
          return (JSON.parse(readFileSync(userFile, 'utf8')) as Record<string, unknown>)['piTree.piCommand'] === fakePi;
        } catch {
          return false;
        }
      };
      await until(
        async () => {
          if (saved()) return true;
          await field.fill(fakePi);
          await field.press('Tab');
          await until(() => (saved() ? true : undefined), 10_000, 'the setting to be saved').catch(() => {});
          return saved() ? true : undefined;
        },
        120_000,
        'the User setting to be saved',
      );
      await vs.screenshot('user-setting');
      await vs.page.locator('.modal-editor-action-container .codicon-close').first().click();
      await settings.waitFor({ state: 'hidden', timeout: 30_000 });

      // That pi runs now.
      await vs.page.locator(sel.editor.tab).filter({ hasText: 'Read the config' }).click();
      await selectByFind(vs.webview(), 'settings.json', answer);
      await vs.webview().locator('.details [data-action="continue"]').click();
      const argv = await vs.pollFile(argvFile, (t) => (t.includes('--session') ? t : undefined), 30_000);
      assert.match(argv, /--session/);
      await vs.screenshot('ran');
    },
    {
      sessions: ({ agentDir, workspace }) => {
        const b = new SessionBuilder({ cwd: workspace, seed: 'e2e-pi-setting', start: '2026-11-20T09:00:00.000Z' });
        b.user('Read the config');
        answer = b.assistant('It is in settings.json.');
        b.user('Now change the port');
        b.assistant('Done: port 8080.');
        b.write(agentDir);
        const bin = join(agentDir, '..', 'fake-bin');
        mkdirSync(bin, { recursive: true });
        fakePi = join(bin, 'pi');
        argvFile = join(bin, 'argv.txt');
        writeFileSync(fakePi, `#!/bin/sh\nprintf '%s\\n' "$@" > '${argvFile}'\n`);
        chmodSync(fakePi, 0o755);
      },
      // (a pi that is not there, in the settings a user may have from before: the Remote tab's machine settings too)
      settings: () => ({ 'piTree.piCommand': '/nonexistent/pi' }),
      timeout: 300_000,
    },
  );
});
