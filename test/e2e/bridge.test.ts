// The tree explorer driving a running pi in a real VS Code: the test starts the real pi 1.6.0 in RPC
// mode with the bridge (PI_CODING_AGENT_DIR = the scenario's agent dir, a loopback model); the session
// opens connected ("connected to pi <pid>", "pi connected" in the sidebar), a click on an older node
// + "Move here" moves pi's own leaf (asked through pi's RPC), the tree highlights the new path, a branch
// summary is written by that pi (previewed, edited, committed), and when pi exits the explorer falls
// back to file mode without an error.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { scenario } from './harness.js';
import { parserWithPi } from './parserWithPi.js';
import { openTree, selectByFind, until } from './uxHelpers.js';

describe('tree explorer connected to a running pi', () => {
  const fx = parserWithPi('019b8f3a-0000-7000-8000-00000000e2e1');
  const ids = fx.ids;

  scenario(
    'a click on an older node moves the running pi, which the tree shows connected',
    async (vs) => {
      const running = fx.pi!;
      await vs.openContainer();
      const row = vs.treeRows().filter({ hasText: 'Plan the parser' });
      await row.filter({ hasText: 'pi connected' }).waitFor();
      const wv = await openTree(vs, 'Plan the parser');
      const badge = wv.locator('.badges .badge.bridge');
      await badge.filter({ hasText: `connected to pi ${running.pid}` }).waitFor();
      assert.equal(
        await wv.locator('.badges .badge.live').count(),
        0,
        'no time-based "live" guess beside the connection',
      );
      await vs.screenshot('connected');

      await selectByFind(wv, 'Tokenize first', ids.a1);
      const t0 = Date.now();
      await wv.locator('.details [data-action="move"]').click();
      await until(
        async () => ((await running.leaf()) === ids.a1 ? true : undefined),
        20_000,
        "pi's leaf at the clicked node",
        25,
      );
      vs.mark('click-to-pi-leaf', Date.now() - t0);
      console.log(`# click on "Move here" until pi's get_entries shows the new leaf: ${Date.now() - t0} ms`);
      await wv.locator(`svg.scene g.node.leaf[data-entry-id="${ids.a1}"]`).waitFor();
      assert.equal((await running.send({ type: 'get_state' })).isStreaming, false);
      await vs.screenshot('moved');

      // pi continues from there: its next prompt hangs under the node the user clicked
      await running.prompt('continue from the plan');
      const { entries, leafId } = await running.entries();
      const prompt = entries.find(
        (e) =>
          e.type === 'message' &&
          e.message?.role === 'user' &&
          JSON.stringify(e.message.content).includes('continue from the plan'),
      );
      // (pi 1.6.0 writes its system prompt as a message before the first prompt of a run)
      const byId = new Map(entries.map((e) => [e.id as string, e]));
      const ancestors: string[] = [];
      for (let p = prompt?.parentId as string | null; p; p = byId.get(p)?.parentId ?? null) ancestors.push(p);
      assert.ok(
        ancestors.includes(ids.a1) && !ancestors.includes(ids.a2),
        `the prompt continues from the clicked node (${ancestors.join(' ')})`,
      );
      await wv.locator(`svg.scene g.node.leaf[data-entry-id="${leafId}"]`).waitFor();

      // Move with summary (provider "pi"): the running pi writes the preview with its own model and
      // prompt, the user edits it, and pi commits the edited text (its session_before_tree hook)
      await selectByFind(wv, 'Here is the tokenizer', ids.a2);
      await wv.locator('.details [data-action="move-summary"]').click();
      const dialog = wv.locator('[data-dialog="summary"]');
      await dialog.locator('[data-action="summary-default"]').click();
      const text = dialog.locator('vscode-textarea[data-field="summary"] textarea');
      await until(
        async () => ((await text.inputValue()).includes('by the model of pi.') ? true : undefined),
        60_000,
        "pi's summary in the dialog",
      );
      await dialog.filter({ hasText: `by pi (pid ${running.pid})` }).waitFor();
      await text.fill(`${await text.inputValue()}\n\nEdited in pi-tree.`);
      await dialog.locator('[data-action="summary-commit"]').click();
      const summary = await until(
        async () => {
          const r = await running.entries();
          const e = r.entries.find((x) => x.id === r.leafId);
          return e?.type === 'branch_summary' ? e : undefined;
        },
        20_000,
        "pi's leaf on the summary it wrote",
      );
      assert.equal(summary.parentId, ids.a2);
      assert.equal(summary.fromHook, true, 'pi wrote the reviewed text through its hook');
      assert.match(String(summary.summary), /SUMMARY \d+ by the model of pi\.[\s\S]*Edited in pi-tree\.$/);
      await wv.locator(`svg.scene g.node.leaf[data-entry-id="${summary.id}"]`).waitFor();
      await vs.screenshot('summarized');

      // pi exits: the explorer goes back to file mode, quietly
      await running.stop();
      await badge.waitFor({ state: 'detached' });
      await row.filter({ hasNotText: 'pi connected' }).first().waitFor();
      assert.equal(
        await vs
          .notifications()
          .filter({ hasText: /error|failed/i })
          .count(),
        0,
      );
      await vs.screenshot('disconnected');
    },
    fx.options,
  );
});
