// Issue #34 item 3 in a real VS Code: a summary that fails is shown where the user asked for it. Move
// with summary → Summarize on a session whose working folder is gone (pi cannot open it there) keeps the
// dialog open with the reason and the ways on (summarize again, write it yourself, move without one,
// the summary settings); writing the summary by hand then moves with it.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { SessionBuilder, sessionDirFor, sessionFileName } from '../../scripts/lib/demoSessions.js';
import { scenario } from './harness.js';
import { openTree, selectByFind, selectedEntry, until } from './uxHelpers.js';

type Line = Record<string, unknown>;

describe('a failed summary is shown in its dialog (#34 item 3)', () => {
  let file = '';
  let target = '';
  let fakePi = '';
  scenario(
    'Summarize on a session whose folder is gone shows why in the dialog, and a summary written by hand moves',
    async (vs) => {
      const wv = await openTree(vs, 'Tidy the old checkout');
      // (inside a straight segment: the find box splits it out and selects it)
      await selectByFind(wv, 'Which parts should go', target);
      await until(
        async () => ((await selectedEntry(wv)) === target ? true : undefined),
        30_000,
        'the entry to be selected',
      );
      await wv.locator('.details [data-action="move-summary"]').click();
      const dialog = wv.locator('[data-dialog="summary"]');
      await dialog.locator('[data-action="summary-default"]').click();

      // The reason, in the dialog (not only in the log), and what to do about it.
      const alert = dialog.locator('[role="alert"]');
      await alert.waitFor({ timeout: 60_000 });
      const said = (await alert.textContent()) ?? '';
      assert.match(said, /no longer exists/, `the reason: ${said}`);
      assert.match(said, /write the summary yourself/i, `what to do: ${said}`);
      for (const way of ['summary-default', 'summary-write', 'summary-none', 'summary-setup', 'summary-cancel']) {
        assert.equal(await dialog.locator(`[data-action="${way}"]`).count(), 1, `the dialog offers ${way}`);
      }
      await vs.screenshot('failed');

      // Written by hand, the summary moves with it.
      await dialog.locator('[data-action="summary-write"]').click();
      const text = dialog.locator('vscode-textarea[data-field="summary"] textarea');
      await text.fill('Tried the old checkout; its folder is gone.');
      await dialog.locator('[data-action="summary-commit"]').click();
      await dialog.waitFor({ state: 'detached', timeout: 30_000 });
      const written = await vs.pollFile(file, (t) => {
        const lines = t
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Line);
        return lines.find((l) => l.type === 'branch_summary');
      });
      assert.equal(written.summary, 'Tried the old checkout; its folder is gone.');
      assert.equal(written.parentId, target);
      await vs.screenshot('written');
    },
    {
      sessions: ({ agentDir, workspace }) => {
        // The session's folder was a checkout that has been deleted since.
        const b = new SessionBuilder({
          cwd: join(workspace, 'old-checkout'),
          seed: 'e2e-gone',
          start: '2026-11-20T09:00:00.000Z',
        });
        b.user('Tidy the old checkout');
        target = b.assistant('Which parts should go?');
        b.user('The build folder.');
        b.assistant('Removed build/.');
        // Listed with the workspace's sessions (pi files a session under the folder it started in; this
        // one was moved here with the project), its header still naming the old folder.
        const dir = sessionDirFor(agentDir, workspace);
        mkdirSync(dir, { recursive: true });
        file = join(dir, sessionFileName(b.timestamp, b.id));
        writeFileSync(file, b.text());
        // provider "pi" needs a pi to be found; it never runs here (pi cannot open a session without its folder)
        const bin = join(agentDir, '..', 'fake-bin');
        mkdirSync(bin, { recursive: true });
        fakePi = join(bin, 'pi');
        writeFileSync(fakePi, '#!/bin/sh\nexit 3\n');
        chmodSync(fakePi, 0o755);
      },
      settings: () => ({ 'piTree.summary.provider': 'pi', 'piTree.piCommand': fakePi }),
    },
  );
});
