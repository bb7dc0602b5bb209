// Ask from here in a real VS Code with the real pi 1.6.0 and a loopback model: a prompt typed into the
// details pane's box (Enter asks) grows a new turn from the selected node, and the tree shows it. Once
// through the pi that runs the session (the bridge: pi's own leaf moves there and its turn is in pi's
// entries), once with no pi running (pi-tree starts the user's pi, `piTree.piCommand`, for the turn),
// reached from the node's context menu ("Ask from Here…" focuses the box) and then from the palette
// ("pi Tree: Ask from Here…" asks for the prompt in VS Code's input box, from the selected node).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe } from 'node:test';
import type { VSCode } from './harness.js';
import { lastUserText } from '../support/askPi.js';
import { completionSse, startLoopback, type Loopback } from '../support/loopbackOpenAI.js';
import { scenario } from './harness.js';
import { headlessAskScene } from './headlessAskScene.js';
import { parserWithPi } from './parserWithPi.js';
import * as sel from './selectors.js';
import { contextMenuItem, openTree, selectByFind, until } from './uxHelpers.js';

/** `id` and its ancestors (pi may put bookkeeping entries, a model change, between the node and the prompt). */
function ancestorsOf(byId: Map<string, { parentId?: string | null }>, id: string | null | undefined): string[] {
  const out: string[] = [];
  for (let p = id; p; p = byId.get(p)?.parentId ?? null) out.push(p);
  return out;
}

type Line = { id?: string; parentId?: string; message?: { role?: string; content?: unknown } };

/** The answer to `prompt` in the session file once pi wrote it, the prompt a child of `from` or below it. */
function answerIn(file: string, prompt: string, from: string): string | undefined {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
  const asked = lines.find((e) => e.message?.role === 'user' && JSON.stringify(e.message.content).includes(prompt));
  const answer =
    asked &&
    lines.find(
      (e) =>
        e.parentId === asked.id &&
        e.message?.role === 'assistant' &&
        JSON.stringify(e.message.content).includes(`answer: ${prompt}`),
    );
  if (asked)
    assert.ok(
      ancestorsOf(new Map(lines.map((e) => [e.id as string, e])), asked.parentId!).includes(from),
      'the prompt grows from the selected node',
    );
  return answer?.id;
}

/** The quick input titled `title` (VS Code's input box of a command). */
async function inputBox(vs: VSCode, title: RegExp): Promise<import('playwright-core').Locator> {
  const widget = vs.page.locator(sel.quickInput.widget).filter({ hasText: title });
  await widget.first().waitFor({ timeout: 60_000 });
  return vs.page.locator(sel.quickInput.input);
}

/** Types `prompt` into the box of the selected entry and asks (Enter). */
async function askInBox(wv: import('playwright-core').FrameLocator, prompt: string): Promise<void> {
  const box = wv.locator('.details textarea[data-field="ask"]');
  await box.waitFor();
  await box.fill(prompt);
  await box.press('Enter');
}

describe('Ask from here through a running pi', () => {
  const fx = parserWithPi('019b8f3a-0000-7000-8000-00000000e2a1');
  const ids = fx.ids;
  scenario(
    'a prompt in the details pane: the running pi answers from the node, and the new turn shows in the tree',
    async (vs) => {
      const running = fx.pi!;
      const wv = await openTree(vs, 'Plan the parser');
      await wv
        .locator('.badges .badge.bridge')
        .filter({ hasText: `connected to pi ${running.pid}` })
        .waitFor();
      await selectByFind(wv, 'Tokenize first', ids.a1);
      await askInBox(wv, 'Use a regex instead');
      // pi's own entries: the prompt under the node, then its answer, pi's leaf on it.
      const asked = await until(
        async () => {
          const r = await running.entries();
          const prompt = r.entries.find(
            (e) =>
              e.type === 'message' &&
              e.message?.role === 'user' &&
              JSON.stringify(e.message.content).includes('Use a regex instead'),
          );
          const answer = prompt && r.entries.find((e) => e.parentId === prompt.id && e.message?.role === 'assistant');
          return answer && r.leafId === answer.id ? { prompt, answer } : undefined;
        },
        120_000,
        "pi's turn from the node",
      );
      const byId = new Map((await running.entries()).entries.map((e) => [e.id as string, e]));
      assert.ok(
        ancestorsOf(byId, asked.prompt.parentId as string).includes(ids.a1),
        'the prompt grows from the selected node',
      );
      // The tree shows the turn, its answer selected once pi is done.
      await wv
        .locator(`[role="treeitem"][data-entry-id="${asked.answer.id}"][aria-selected="true"]`)
        .waitFor({ timeout: 120_000 });
      await wv
        .locator('.details .ask-status')
        .filter({ hasText: `pi answered (pid ${running.pid})` })
        .waitFor();
      await vs.screenshot('asked-through-pi');
    },
    { ...fx.options, timeout: 300_000 },
  );
});

describe('Ask from here with no pi running', () => {
  let lb: Loopback | undefined;
  const scene = headlessAskScene(() => lb!, '019b8f3a-0000-7000-8000-00000000e2a2');
  const { made } = scene;
  before(async () => {
    lb = await startLoopback((req) => completionSse(`answer: ${lastUserText(req)}`));
  });
  after(async () => lb?.close());
  scenario(
    "from the node's menu (its prompt box) and the palette (an input box): pi-tree starts the user's pi for each turn; the answers show in the tree",
    async (vs) => {
      const wv = await openTree(vs, 'Read the config');
      await selectByFind(wv, 'settings.json', made.answer);
      // The node's context menu: "Ask from Here…" puts the focus in its prompt box.
      const row = wv.locator(`[role="treeitem"][data-entry-id="${made.answer}"]`);
      const item = await contextMenuItem(vs, row, /^Ask from Here…$/, 'the node menu with Ask from Here…');
      await vs.screenshot('ask-menu');
      await item.click();
      await until(
        () => wv.locator('.details textarea[data-field="ask"]').evaluate((el) => el === document.activeElement),
        30_000,
        'the prompt box focused',
      );
      await vs.screenshot('ask-box-focused');
      // Typed where the focus is: the box.
      await vs.page.keyboard.type('Now use port 9090');
      await vs.page.keyboard.press('Enter');
      const answerId = await until(
        () => answerIn(made.file, 'Now use port 9090', made.answer),
        120_000,
        "the headless pi's turn",
      );
      await wv
        .locator(`[role="treeitem"][data-entry-id="${answerId}"][aria-selected="true"]`)
        .waitFor({ timeout: 120_000 });
      await wv.locator('.details .ask-status').filter({ hasText: 'pi answered' }).waitFor();
      await vs.screenshot('asked-headless');
      // The palette: "pi Tree: Ask from Here…" asks from the selected node (the answer) in VS Code's input box.
      await vs.runCommand('pi Tree: Ask from Here…', { thenInput: true });
      const input = await inputBox(vs, /Ask pi from the answer “answer: Now use port 9090”/);
      await vs.screenshot('ask-palette');
      await input.fill('And 9191 for tests');
      await input.press('Enter');
      const second = await until(
        () => answerIn(made.file, 'And 9191 for tests', answerId),
        120_000,
        'the turn asked from the palette',
      );
      await wv
        .locator(`[role="treeitem"][data-entry-id="${second}"][aria-selected="true"]`)
        .waitFor({ timeout: 120_000 });
    },
    scene.options,
  );
});
