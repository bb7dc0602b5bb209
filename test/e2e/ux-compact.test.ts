// Issue #34 item 9 in a real VS Code: Compact (pi's /compact) from the explorer. The leaf's node menu
// and the palette open the same preview → edit → commit dialog as the branch summary: the configured
// model (here an OpenAI-compatible endpoint on loopback) writes the summary, the user edits it, and
// Compact writes pi's compaction entry under the leaf; asked again, the dialog says why not.
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { completionJson, startLoopback, type Loopback } from '../support/loopbackOpenAI.js';
import { SessionBuilder } from '../../scripts/lib/demoSessions.js';
import { scenario } from './harness.js';
import { contextMenuItem, openTree, until } from './uxHelpers.js';

type Line = Record<string, unknown>;
const lines = (t: string): Line[] =>
  t
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

describe('compact from the explorer (#34 item 9)', () => {
  let server: Loopback;
  before(async () => {
    server = await startLoopback(() =>
      completionJson('## Goal\nA cache layer for the session lists.\n\n## Progress\n- LRU chosen'),
    );
  });
  after(() => server?.close());

  let file = '';
  let leaf = '';
  scenario(
    "the leaf's menu and the palette open Compact: preview, edit, commit writes the compaction",
    async (vs) => {
      const wv = await openTree(vs, 'Plan the cache layer');
      // The node menu of the leaf (VS Code's own context menu of the webview) offers Compact….
      const row = wv.locator(`[role="treeitem"][data-entry-id="${leaf}"]`);
      const item = await contextMenuItem(vs, row, /^Compact…$/, 'the node menu with Compact…');
      await vs.screenshot('menu');
      await item.click();
      const dialog = wv.locator('[data-dialog="compact"]');
      await dialog.locator('[data-action="compact-default"]').click();
      const text = dialog.locator('vscode-textarea[data-field="summary"] textarea');
      await until(
        async () => ((await text.inputValue().catch(() => '')).includes('LRU chosen') ? true : undefined),
        90_000,
        'the preview',
      );
      // (one call, or two when the kept part starts inside a turn: pi's split turn)
      const calls = server.requests.length;
      assert.ok(calls >= 1 && calls <= 2, `calls to the model: ${calls}`);
      assert.match(JSON.stringify(server.requests[0].body), /Plan the cache layer/);
      assert.match((await dialog.textContent()) ?? '', /tokens before/);
      await vs.screenshot('preview');
      const edited = `${await text.inputValue()}\n- Edited before compacting`;
      await text.fill(edited);
      await dialog.locator('[data-action="compact-commit"]').click();
      await dialog.waitFor({ state: 'detached', timeout: 30_000 });
      const compaction = await vs.pollFile(file, (t) => lines(t).find((l) => l.type === 'compaction'));
      assert.equal(compaction.parentId, leaf, 'under the leaf');
      assert.equal(compaction.summary, edited, "the user's text");
      assert.equal(typeof compaction.firstKeptEntryId, 'string');
      assert.ok((compaction.tokensBefore as number) > 0);
      await vs.screenshot('compacted');

      // From the palette, on the tree in front: the context ends in a compaction now, and the dialog says so.
      await vs.runCommand('pi Tree: Compact Session…');
      await dialog.locator('[data-action="compact-default"]').click();
      const alert = dialog.locator('[role="alert"]');
      await alert.waitFor({ timeout: 60_000 });
      assert.match((await alert.textContent()) ?? '', /Already compacted/);
      assert.equal(server.requests.length, calls, 'no call to the model');
      await vs.screenshot('again');
      await dialog.locator('[data-action="compact-cancel"]').click();
      await dialog.waitFor({ state: 'detached' });
    },
    {
      sessions: ({ agentDir, workspace }) => {
        const b = new SessionBuilder({ cwd: workspace, seed: 'e2e-compact', start: '2026-11-20T09:00:00.000Z' });
        const filler = (topic: string) =>
          `${topic}. ${'The session lists are read again on every refresh, which costs time on big folders. '.repeat(12)}`;
        b.user(filler('Plan the cache layer'));
        for (const topic of [
          'Which eviction policy?',
          'How big may it grow?',
          'Where does it live?',
          'What invalidates it?',
        ]) {
          b.assistant(filler(`About ${topic}`));
          b.user(filler(topic));
        }
        leaf = b.assistant('LRU, 500 entries, in the host, invalidated by size and mtime.');
        file = b.write(agentDir);
      },
      settings: () => ({
        'piTree.summary.provider': 'openai-compatible',
        'piTree.summary.endpoint': server.url,
        'piTree.summary.model': 'e2e-model',
        'piTree.summary.keepRecentTokens': 400,
      }),
      timeout: 300_000,
    },
  );
});
