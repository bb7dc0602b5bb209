// The entry-tree explorer in a real VS Code: open a session's tree, move the leaf, label, fork, follow a
// writer, survive a window reload; a summary through a loopback OpenAI-compatible server; hostile text.
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { FrameLocator } from 'playwright-core';
import { SessionBuilder, sessionFileName, writeDemoSessions } from '../../scripts/lib/demoSessions.js';
import { generateSession } from '../support/generate.js';
import { completionJson, startLoopback, type Loopback } from '../support/loopbackOpenAI.js';
import { scenario } from './harness.js';
import * as sel from './selectors.js';
import { openTree, selectByFind, until } from './uxHelpers.js';

type Line = Record<string, unknown>;
const parse = (text: string): Line[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
const complete = (t: string) => (t.endsWith('\n') ? parse(t) : undefined);

const selectedNode = (wv: FrameLocator, id: string) =>
  wv.locator(`[role="treeitem"][data-entry-id="${id}"][aria-selected="true"]`);

describe('session tree explorer', () => {
  scenario(
    'tree moves the leaf, labels, forks, follows a writer and comes back after a reload',
    async (vs) => {
      const demo = vs.demo!;
      const file = demo.branched.file!;
      const wv = await openTree(vs, 'Stream the JSONL reader');
      await wv.locator('h1.title').filter({ hasText: 'Stream the JSONL reader' }).waitFor();
      await vs.screenshot('opened');
      // The bundle came in the document (nothing fetched before the app started), under the CSP,
      // and the codicon font (now named by an absolute URI) is loaded and drawn.
      const doc = await wv.locator('body').evaluate(async () => {
        await document.fonts.ready;
        return {
          fetchedScripts: document.querySelectorAll('script[src]').length,
          inlineScripts: document.querySelectorAll('script[nonce]:not([src])').length,
          codicon: [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'codicon' && f.status === 'loaded'),
          fetched: performance.getEntriesByType('resource').map((r) => new URL(r.name).pathname.split('/').pop()),
        };
      });
      assert.deepEqual(
        { fetchedScripts: doc.fetchedScripts, inlineScripts: doc.inlineScripts, codicon: doc.codicon },
        { fetchedScripts: 0, inlineScripts: 1, codicon: true },
        JSON.stringify(doc),
      );
      assert.ok(
        !doc.fetched.some((f) => f === 'webview.js' || f === 'webview.css'),
        `fetched: ${doc.fetched.join(', ')}`,
      );
      assert.deepEqual(
        vs.consoleErrors.filter((e) => /Content Security Policy/i.test(e)),
        [],
      );

      // Move here on an assistant message: exactly one leaf record, and the highlight follows
      const lines0 = parse(readFileSync(file, 'utf8')).length;
      await selectByFind(wv, 'The reader splits one big string', demo.ids.plan);
      await wv.locator('.details [data-action="move"]').click();
      const lines = await vs.pollFile(file, (t) => {
        const ls = complete(t);
        return ls && ls.length > lines0 ? ls : undefined;
      });
      assert.equal(lines.length, lines0 + 1, 'exactly one line appended');
      assert.deepStrictEqual(
        {
          type: lines[lines.length - 1].type,
          targetId: lines[lines.length - 1].targetId,
          parentId: lines[lines.length - 1].parentId,
        },
        { type: 'leaf', targetId: demo.ids.plan, parentId: demo.ids.plan },
      );
      await wv.locator(`svg.scene g.node.leaf[data-entry-id="${demo.ids.plan}"]`).waitFor();
      await vs.screenshot('moved');

      // Label, then clear it (pi's label entries)
      await selectByFind(wv, "I'll look at the reader first", demo.ids.look);
      await wv.locator('[role="tree"]').press('F2');
      const labelInput = wv.locator('.label-editor vscode-textfield[data-field="label"] input');
      await labelInput.fill('checked');
      await labelInput.press('Enter');
      const label = await vs.pollFile(file, (t) =>
        complete(t)?.find((e) => e.type === 'label' && e.targetId === demo.ids.look && e.label === 'checked'),
      );
      assert.equal(label.parentId, demo.ids.plan, 'a label hangs under the current leaf');
      await wv.locator(`[role="treeitem"][data-entry-id="${demo.ids.look}"]`).filter({ hasText: 'checked' }).waitFor();
      await wv.locator('[role="tree"]').press('Shift+Delete');
      await vs.pollFile(file, (t) =>
        complete(t)?.find((e) => e.type === 'label' && e.targetId === demo.ids.look && !('label' in e)),
      );

      // Fork from a user message: a new file beside it, opened in its own tree
      await selectByFind(wv, 'Add a test with a 100k-entry file', demo.ids.testsAsk);
      const known = new Set(readdirSync(demo.dir));
      await wv.locator('.details [data-action="fork"]').click();
      const forked = await until(() => readdirSync(demo.dir).find((f) => f.endsWith('.jsonl') && !known.has(f)));
      const forkLines = await vs.pollFile(join(demo.dir, forked), complete);
      assert.equal(forkLines[0].parentSession, file);
      assert.ok(!forkLines.some((e) => e.id === demo.ids.testsAsk), 'the fork ends before the message');
      await until(async () => ((await vs.page.locator(sel.editor.tab).count()) >= 2 ? true : undefined));
      await vs.screenshot('forked');

      // Another process appends to the open session: the tree grows
      // back to the first session's tab (the sidebar rows move while the list refreshes)
      await vs.page.locator(sel.editor.tab).filter({ hasText: 'Stream the JSONL reader' }).click();
      await vs.webview().locator('h1.title').filter({ hasText: 'Stream the JSONL reader' }).waitFor();
      const cur = parse(readFileSync(file, 'utf8'));
      appendFileSync(
        file,
        `${JSON.stringify({ type: 'message', id: 'e2e0live', parentId: cur[cur.length - 1].id, timestamp: new Date().toISOString(), message: { role: 'user', content: [{ type: 'text', text: 'Appended by another process' }], timestamp: Date.now() } })}\n`,
      );
      const wv2 = vs.webview();
      await wv2.locator('[role="treeitem"][data-entry-id="e2e0live"]').waitFor({ timeout: 20_000 });
      await selectByFind(wv2, 'Appended by another process', 'e2e0live');
      await vs.screenshot('grown');

      // Reload the window: the explorer comes back with its selection
      await vs.runCommand('Developer: Reload Window');
      // A reload is a whole workbench start-up (which took ~45 s on a machine at load 20): wait as long as the first one may.
      await vs.page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: 120_000 });
      const back = vs.webview();
      await back.locator('[role="tree"]').waitFor({ timeout: 120_000 });
      await selectedNode(back, 'e2e0live').waitFor({ timeout: 30_000 });
      await vs.screenshot('restored');
    },
    { timeout: 400_000 },
  );

  scenario(
    'a big session (6,000 entries) is projected in a worker thread, and a new tool result is named after its call',
    async (vs) => {
      const demo = vs.demo!;
      const g = generateSession({ seed: 31, entries: 6000, branchRate: 0.02, compactions: 1, labels: 4 });
      const last = g.entries[g.entries.length - 1].id as string;
      const name = {
        type: 'session_info',
        id: 'bigname01',
        parentId: last,
        timestamp: new Date().toISOString(),
        name: 'Big generated session',
      };
      const file = join(demo.dir, sessionFileName(new Date().toISOString(), '019ad000-0000-7000-8000-0000000b16e5'));
      writeFileSync(file, `${g.text}${JSON.stringify(name)}\n`);
      const wv = await openTree(vs, 'Big generated session');
      await vs.waitForOutput(/entries projected in a worker thread/);
      await wv
        .locator('footer.status')
        .filter({ hasText: `${(g.entries.length + 1).toLocaleString('en-US')} entries` })
        .waitFor();
      // pi appends the result of a call the worker projected: this thread learns the call to name it
      type Call = { type: string; id: string; name: string; arguments: Record<string, unknown> };
      const call = g.entries
        .flatMap((e) =>
          (e.message as { role?: string; content?: Call[] } | undefined)?.role === 'assistant'
            ? ((e.message as { content: Call[] }).content ?? [])
            : [],
        )
        .filter((c) => c.type === 'toolCall')
        .pop()!;
      const result = {
        type: 'message',
        id: 'bigres001',
        parentId: 'bigname01',
        timestamp: new Date().toISOString(),
        message: {
          role: 'toolResult',
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: 'text', text: 'ok' }],
          isError: false,
          timestamp: Date.now(),
        },
      };
      appendFileSync(file, `${JSON.stringify(result)}\n`);
      const row = wv.locator('[role="treeitem"][data-entry-id="bigres001"]');
      await row.waitFor({ timeout: 60_000 });
      // (the generated session's last call, seed 31; its row reads as pi's /tree shows a read)
      assert.deepEqual(
        { name: call.name, arguments: call.arguments },
        { name: 'read', arguments: { path: 'src/host/panel.ts' } },
      );
      assert.ok(
        (await row.textContent())?.includes('[read: src/host/panel.ts]'),
        `row text: ${await row.textContent()}`,
      );
      // the context at the new leaf, built on the host in slices: the compaction boundary and its messages
      await row.click();
      await selectedNode(wv, 'bigres001').waitFor();
      await wv.locator('.details [data-action="context"]').click();
      await wv.locator('.context-view .boundary').waitFor({ timeout: 60_000 });
      assert.ok((await wv.locator('.context-view li.ctx-msg').count()) > 10);
      await vs.screenshot('big-session');
    },
  );

  let server: Loopback;
  before(async () => {
    server = await startLoopback((req) =>
      completionJson(`## Goal\nSummarized ${req.body.messages?.length ?? 0} messages of the branch.`),
    );
  });
  after(() => server?.close());

  scenario(
    'tree summarizes the branch being left through a model endpoint, and hostile text stays inert',
    async (vs) => {
      const wv = await openTree(vs, 'Stream the JSONL reader');
      const demo = vs.demo!;
      const file = demo.branched.file!;
      await selectByFind(wv, 'Go with chunked reads', demo.ids.streamAsk);
      await wv.locator('.details [data-action="move-summary"]').click();
      const dialog = wv.locator('[data-dialog="summary"]');
      await dialog.locator('[data-action="summary-default"]').click();
      const text = dialog.locator('vscode-textarea[data-field="summary"] textarea');
      await until(async () => ((await text.inputValue()).includes('Summarized') ? true : undefined), 60_000);
      const draft = await text.inputValue();
      assert.match(
        draft,
        /^The user explored a different conversation branch before returning here\.\nSummary of that exploration:\n\n## Goal/,
      );
      await vs.screenshot('summary-preview');
      await text.fill(`${draft}\n\nEdited by the user.`);
      await dialog.locator('[data-action="summary-commit"]').click();
      const lines = await vs.pollFile(file, (t) => {
        const ls = complete(t);
        return ls && ls[ls.length - 1].type === 'branch_summary' ? ls : undefined;
      });
      const [leaf, summary] = lines.slice(-2);
      // a user message target: pi's rule puts the leaf on its parent
      assert.equal(leaf.type, 'leaf');
      assert.equal(leaf.targetId, demo.branched.entries.find((e) => e.id === demo.ids.streamAsk)!.parentId);
      assert.equal(summary.parentId, leaf.targetId);
      assert.equal(summary.fromId, leaf.fromId, 'fromId = the leaf that was left');
      assert.match(String(summary.summary), /Edited by the user\.$/);
      assert.equal(summary.fromHook, false);
      assert.equal(server.requests.length, 1, 'one model call');
      assert.equal(server.requests[0].body.model, 'e2e-model');
      // the editor text of the user message is offered back
      await wv.locator('[data-dialog="editor-text"]').waitFor();
      await wv.locator('[data-dialog="editor-text"] [data-action="editor-close"]').click();

      // hostile text in a session renders as text; nothing runs
      const wvh = await openTree(vs, 'Hostile');
      await wvh.locator('[role="tree"]').waitFor();
      const hostileUser = wvh.locator('[role="treeitem"]').filter({ hasText: 'Hostile' }).first();
      await hostileUser.click();
      await wvh.locator('.details').filter({ hasText: '<img src=x onerror' }).waitFor();
      await wvh.locator('.details').filter({ hasText: '<script>' }).waitFor();
      const frames = vs.page.frames();
      for (const f of frames) {
        const pwned = await f
          .evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)
          .catch(() => undefined);
        assert.equal(pwned, undefined, `script ran in ${f.url()}`);
      }
      assert.equal(
        await wvh.locator('.details img[src="x"], .details script, .details a[href^="javascript:"]').count(),
        0,
      );
      await vs.screenshot('hostile');
    },
    {
      sessions: ({ agentDir, workspace }) => {
        const demo = writeDemoSessions(agentDir, workspace);
        const h = new SessionBuilder({ cwd: workspace, seed: 'e2e-hostile', start: Date.now() - 3_600_000 });
        h.user('Hostile: <img src=x onerror="window.__pwned=1"> and <script>window.__pwned=2</script>');
        h.assistant(
          'Here is a [link](javascript:window.__pwned=3) and <svg onload="window.__pwned=4"></svg> and **bold**.',
        );
        h.write(agentDir);
        return demo;
      },
      settings: () => ({
        'piTree.summary.provider': 'openai-compatible',
        'piTree.summary.endpoint': server.url,
        'piTree.summary.model': 'e2e-model',
      }),
    },
  );
});
