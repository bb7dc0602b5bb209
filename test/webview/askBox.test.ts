// Ask from here in the built webview, against a scripted host: the details pane's prompt box (key A
// focuses it; Enter asks, Shift+Enter is a new line; Escape goes back to the tree), the model picker fed
// by listModels, the running state (live region, Cancel, a second ask refused) and its end (the answer
// selected; a failure or a cancel keeps the prompt), the box disabled with its reason on a read-only
// session, its focus and text kept while deltas re-render the pane, the palette's prompt (invoke 'ask'
// with text) and the shortcut sheet's row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeView, Replies, RequestBody } from '../../src/protocol';
import { smallSession } from './fixtures';
import { idle, meta, ScriptedHost, selectEntry, useWebviewBrowser } from './helpers/browser';

const web = useWebviewBrowser();

const PROMPT = '.details textarea[data-field="ask"]';

async function open(over: Parameters<typeof meta>[0] = {}): Promise<ScriptedHost> {
  const s = smallSession();
  return web.opened({ meta: meta(over), nodes: s.nodes, leafId: s.leafId });
}

const selected = (host: ScriptedHost) =>
  host.page.evaluate(
    () => (window as unknown as { __piTree: { stats(): { selected?: string } } }).__piTree.stats().selected,
  );
const focusedField = (host: ScriptedHost) =>
  host.page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.field);
const statusText = (host: ScriptedHost) => host.page.locator('.details .ask-status').textContent();

/** The answer pi "wrote": a user message and an assistant message under `from`. */
function turn(from: string, n: number): NodeView[] {
  const time = Date.UTC(2026, 10, 21, 10, n);
  return [
    {
      id: `q${n}000000`,
      parentId: from,
      type: 'message',
      role: 'user',
      kind: 'user',
      text: `user: question ${n}`,
      time,
    },
    {
      id: `r${n}000000`,
      parentId: `q${n}000000`,
      type: 'message',
      role: 'assistant',
      kind: 'assistant',
      text: `assistant: answer ${n}`,
      time: time + 1,
    },
  ];
}

/** An askFrom the test settles: the host appends pi's entries (deltas first, then the reply, as the host does). */
function heldAsk(host: ScriptedHost) {
  let settle!: (r: Replies['askFrom'] | Error) => void;
  const asked: RequestBody[] = [];
  host.handlers.askFrom = (b) => {
    asked.push(b);
    return new Promise<Replies['askFrom']>(
      (resolve, reject) => (settle = (r) => (r instanceof Error ? reject(r) : resolve(r))),
    );
  };
  return { asked, settle: (r: Replies['askFrom'] | Error) => settle(r) };
}

test('key A focuses the prompt of the selected entry; Shift+Enter is a new line, Enter asks; the answer is selected and the box emptied', async () => {
  const host = await open();
  const page = host.page;
  host.handlers.listModels = () => ({ models: [] });
  await selectEntry(host, 'a3000000');
  await page.keyboard.press('a');
  assert.equal(await focusedField(host), 'ask', 'A focuses the prompt');
  // The box is labelled and says where pi goes on from.
  const box = page.locator('.details [data-part="ask"]');
  assert.equal(
    await page.locator(PROMPT).evaluate((t) => (t as HTMLTextAreaElement).labels?.[0]?.textContent?.trim()),
    'Ask from here',
  );
  assert.match((await box.locator('.ask-hint').textContent())!, /continues the session from this entry/);
  // Keys typed in the box are text, not tree commands (a, f, x would be).
  await page.keyboard.type('fix a bug');
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.type('and explain');
  assert.equal(await page.locator(PROMPT).inputValue(), 'fix a bug\nand explain');
  assert.equal(host.requestsOf('askFrom').length, 0, 'Shift+Enter does not ask');
  host.handlers.askFrom = async (b) => {
    // pi's entries reach the tree before the reply (the host re-reads the session first).
    await host.delta({ type: 'appended', nodes: turn(b.id, 1), leafId: 'r1000000' });
    return { answerId: 'r1000000', leafId: 'r1000000', via: 'headless', pid: 4242 };
  };
  const req = host.nextRequest('askFrom');
  await page.keyboard.press('Enter');
  assert.deepEqual(await req, { kind: 'askFrom', id: 'a3000000', prompt: 'fix a bug\nand explain' });
  await idle(page);
  assert.equal(await selected(host), 'r1000000', 'the answer is selected');
  assert.equal(await page.locator(PROMPT).inputValue(), '', 'the prompt went to pi');
  assert.match((await statusText(host))!, /pi answered: its answer is selected/);
  assert.equal(await focusedField(host), 'ask', 'the prompt keeps the focus, for the next question from the answer');
  // Escape goes back to the tree.
  await page.keyboard.press('Escape');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('role')), 'tree');
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();
});

test("the model picker lists pi's models (asked once per session) and the ask names the one picked", async () => {
  const host = await open();
  const page = host.page;
  host.handlers.listModels = () => ({
    models: [
      { provider: 'anthropic', id: 'claude-sonnet-4-5', name: 'Claude Sonnet 4.5' },
      { provider: 'openrouter', id: 'qwen/qwen3-coder' },
    ],
    defaultModel: { provider: 'anthropic', id: 'claude-sonnet-4-5' },
  });
  await selectEntry(host, 'u3000000');
  assert.equal(host.requestsOf('listModels').length, 0, 'opening a tree starts no pi for the models');
  await page.keyboard.press('a');
  const picker = page.locator('.details select[data-field="ask-model"]');
  await page.waitForFunction(
    () => document.querySelectorAll('.details select[data-field="ask-model"] option').length === 3,
  );
  assert.deepEqual(await picker.locator('option').allTextContents(), [
    'The session’s model',
    'Claude Sonnet 4.5 · anthropic (pi’s default)',
    'qwen/qwen3-coder · openrouter',
  ]);
  assert.equal(await picker.getAttribute('aria-label'), 'Model for the answer');
  // From a user message the prompt goes in beside it: the box says so.
  assert.match((await page.locator('.details .ask-heading').textContent())!, /Ask instead of this message/);
  await picker.selectOption({ label: 'qwen/qwen3-coder · openrouter' });
  // Another entry: the same box, its model kept, the list not asked again (only once the box was used).
  await selectEntry(host, 'a1000000');
  assert.equal(await picker.inputValue(), '1');
  assert.equal(host.requestsOf('listModels').length, 1);
  const req = host.nextRequest('askFrom');
  await page.locator(PROMPT).fill('try qwen');
  await page.locator('.details [data-action="ask-send"]').click();
  assert.deepEqual(await req, {
    kind: 'askFrom',
    id: 'a1000000',
    prompt: 'try qwen',
    model: { provider: 'openrouter', id: 'qwen/qwen3-coder' },
  });
  await idle(page);
  await page.context().close();
});

test("pi's models that cannot be listed leave the session's model, with the reason on the picker", async () => {
  const host = await open();
  const page = host.page;
  host.handlers.listModels = () => {
    throw new Error("pi's models cannot be listed: pi was not found on PATH.");
  };
  await selectEntry(host, 'a3000000');
  await page.keyboard.press('a');
  await idle(page);
  const picker = page.locator('.details select[data-field="ask-model"]');
  assert.match((await picker.getAttribute('title'))!, /pi was not found/);
  assert.equal(await picker.inputValue(), '');
  const req = host.nextRequest('askFrom');
  await page.keyboard.type('hello');
  await page.keyboard.press('Enter');
  assert.deepEqual(await req, { kind: 'askFrom', id: 'a3000000', prompt: 'hello' }, 'asked with the session’s model');
  await idle(page);
  await page.context().close();
});

test('while pi answers: the live region says so, the prompt is read-only, a second ask waits; Cancel asks the host to stop pi and keeps the prompt', async () => {
  const host = await open();
  const page = host.page;
  host.handlers.listModels = () => ({ models: [] });
  const held = heldAsk(host);
  await selectEntry(host, 'a4000000');
  await page.keyboard.press('a');
  await page.keyboard.type('write the docs');
  await page.keyboard.press('Enter');
  const box = page.locator('.details [data-part="ask"]');
  await page.waitForFunction(
    () => document.querySelector('.details [data-part="ask"]')?.getAttribute('aria-busy') === 'true',
  );
  const status = page.locator('.details .ask-status');
  assert.equal(await status.getAttribute('role'), 'status');
  assert.equal(await status.getAttribute('aria-live'), 'polite');
  assert.match((await status.textContent())!, /^pi is answering from Assistant message: Tests added…$/);
  assert.equal(await page.locator(PROMPT).evaluate((t) => (t as HTMLTextAreaElement).readOnly), true);
  assert.equal(await box.locator('[data-action="ask-send"]').isVisible(), false);
  const cancel = box.locator('[data-action="ask-cancel"]');
  assert.equal(await cancel.isVisible(), true);
  // Enter again does not ask twice; another entry shows the same turn running (no idle() while the ask is held).
  await page.keyboard.press('Enter');
  await host.post({ type: 'invoke', action: 'select', id: 'u1000000' });
  await host.waitFor((m) => m.type === 'selected' && m.id === 'u1000000');
  assert.equal(await cancel.isVisible(), true);
  assert.equal(held.asked.length, 1);
  // Cancel: the host is asked to stop pi; its reply to the ask says cancelled.
  const stop = host.nextRequest('cancelAsk');
  host.handlers.cancelAsk = () => {
    setTimeout(() => held.settle({ cancelled: true }));
    return { cancelling: true };
  };
  await cancel.click();
  assert.deepEqual(await stop, { kind: 'cancelAsk' });
  await page.waitForFunction(
    () => document.querySelector('.details [data-part="ask"]')?.getAttribute('aria-busy') === 'false',
  );
  assert.match((await status.textContent())!, /^Cancelled: nothing more is asked/);
  assert.equal(await page.locator(PROMPT).inputValue(), 'write the docs', 'the prompt is kept, to ask again');
  assert.equal(await page.locator(PROMPT).evaluate((t) => (t as HTMLTextAreaElement).readOnly), false);
  assert.equal(await box.locator('[data-action="ask-send"]').isVisible(), true);
  await idle(page);
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();
});

test("pi's failure is shown in the box in words, the prompt kept", async () => {
  const host = await open();
  const page = host.page;
  host.handlers.listModels = () => ({ models: [] });
  host.handlers.askFrom = () => {
    throw new Error('pi refused the prompt: No API key found for anthropic. Nothing was asked.');
  };
  await selectEntry(host, 'a4000000');
  await page.keyboard.press('a');
  await page.keyboard.type('go on');
  await page.keyboard.press('Enter');
  await idle(page);
  const status = page.locator('.details .ask-status');
  assert.equal(
    await status.textContent(),
    'pi could not answer: pi refused the prompt: No API key found for anthropic. Nothing was asked.',
  );
  assert.match((await status.getAttribute('class'))!, /\berror\b/);
  assert.equal(await page.locator(PROMPT).inputValue(), 'go on');
  // An empty prompt asks nothing and says why.
  await page.locator(PROMPT).fill('   ');
  await page.keyboard.press('Enter');
  assert.equal(await status.textContent(), 'Write a prompt first.');
  assert.equal(host.requestsOf('askFrom').length, 1);
  await page.context().close();
});

test('a read-only session: the box is disabled with the reason, A asks nothing, no pi is started for the models', async () => {
  const host = await open({ readOnly: 'untrusted workspace' });
  const page = host.page;
  await selectEntry(host, 'a4000000');
  const prompt = page.locator(PROMPT);
  assert.equal(await prompt.isDisabled(), true);
  assert.equal(await page.locator('.details .ask-hint').textContent(), 'Read-only: untrusted workspace');
  assert.equal(await page.locator('.details [data-action="ask-send"]').getAttribute('disabled'), '');
  assert.equal(await page.locator('.details select[data-field="ask-model"]').isDisabled(), true);
  await page.keyboard.press('a');
  await page.locator('.toast.error', { hasText: 'untrusted workspace' }).waitFor();
  await idle(page);
  assert.equal(host.requestsOf('askFrom').length, 0);
  assert.equal(host.requestsOf('listModels').length, 0, 'nothing starts pi for a session that cannot take a turn');
  await page.context().close();
});

test('deltas that re-render the pane while the user types keep the focus, the caret and the text', async () => {
  const host = await open();
  const page = host.page;
  host.handlers.listModels = () => ({ models: [] });
  await selectEntry(host, 'a4000000');
  await page.keyboard.press('a');
  await page.keyboard.type('first half');
  // pi appends elsewhere, a label changes, the meta changes: each renders the details pane again.
  await host.delta({ type: 'appended', nodes: turn('a5000000', 7) });
  await host.delta({ type: 'labelChanged', targetId: 'a4000000', label: 'here' });
  await host.delta({ type: 'meta', meta: meta({ bridge: { pid: 77, busy: true } }) });
  await idle(page);
  assert.equal(await focusedField(host), 'ask');
  await page.keyboard.type(' second half');
  assert.equal(await page.locator(PROMPT).inputValue(), 'first half second half');
  // A pi with the bridge that is busy: the box says its question waits for pi's turn.
  assert.match(
    (await page.locator('.details .ask-hint').textContent())!,
    /The pi running this session \(pid 77\) answers once its turn is over/,
  );
  await page.context().close();
});

test("the palette's prompt (invoke 'ask' with text) asks at once from the named entry; the node menu's (without) focuses the box", async () => {
  const host = await open();
  const page = host.page;
  host.handlers.listModels = () => ({ models: [] });
  host.handlers.askFrom = async (b) => {
    await host.delta({ type: 'appended', nodes: turn(b.id, 2), leafId: 'r2000000' });
    return { answerId: 'r2000000', leafId: 'r2000000', via: 'running', pid: 99 };
  };
  const req = host.nextRequest('askFrom');
  await host.post({ type: 'invoke', action: 'ask', id: 'a1000000', text: 'from the palette' });
  assert.deepEqual(await req, { kind: 'askFrom', id: 'a1000000', prompt: 'from the palette' });
  await idle(page);
  assert.equal(await selected(host), 'r2000000');
  assert.match((await statusText(host))!, /pi answered \(pid 99\)/);
  await selectEntry(host, 'u2000000');
  await host.post({ type: 'invoke', action: 'ask', id: 'a3000000' });
  await idle(page);
  assert.equal(await selected(host), 'a3000000');
  assert.equal(await focusedField(host), 'ask');
  assert.equal(host.requestsOf('askFrom').length, 1);
  await page.context().close();
});

test('the shortcut sheet lists A', async () => {
  const host = await open();
  const page = host.page;
  await page.locator('[role="tree"]').focus();
  await page.keyboard.press('?');
  const sheet = page.locator('[data-dialog="shortcuts"]');
  await sheet.waitFor();
  assert.deepEqual(await sheet.locator('tr[data-command="act.ask"] kbd').allTextContents(), ['A']);
  assert.match((await sheet.locator('tr[data-command="act.ask"]').textContent())!, /Ask pi from here/);
  await page.keyboard.press('Escape');
  await page.context().close();
});

test('an entry appended in the same task as its selection is selected: the pass the frame would run runs first', async () => {
  // (the ask's reply can arrive before the frame that draws the appended answer: it selected nothing)
  const host = await open();
  const page = host.page;
  await selectEntry(host, 'a3000000');
  const got = await page.evaluate(
    (nodes) => {
      const app = (
        window as unknown as {
          __piTree: {
            app: {
              onAppended(n: unknown[], leaf?: string | null): void;
              tree: { selectEntry(id: string): void; selection: { key?: string } };
            };
          };
        }
      ).__piTree.app;
      app.onAppended(nodes, 'r3000000');
      app.tree.selectEntry('r3000000');
      return app.tree.selection.key;
    },
    turn('a3000000', 3),
  );
  assert.equal(got, 'r3000000');
  await idle(page);
  assert.equal(await selected(host), 'r3000000');
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();
});
