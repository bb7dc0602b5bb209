// Issue #17, finding 3 in the built webview (headless Chromium, scripted host): what a move and a step
// cost the page. A move on a session nobody else writes is shown at the click (pi's rule places the
// leaf) while the host's write is still on its way, and goes back if the host refuses it; a live one
// waits for the host. A step or a move draws again only the nodes whose marks changed, and the details
// pane keeps its buttons (each UI-kit button made is a component render).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Replies } from '../../src/protocol';
import { idle, meta, ScriptedHost, selectEntry, useWebviewBrowser } from './helpers/browser';
import { smallSession } from './fixtures';

const web = useWebviewBrowser();

async function open(over: Parameters<typeof meta>[0] = {}): Promise<ScriptedHost> {
  const s = smallSession();
  return web.opened({ meta: meta(over), nodes: s.nodes, leafId: s.leafId });
}

/** The entry the graph marks as the leaf. */
const leafMark = (page: Page) =>
  page.evaluate(() => document.querySelector<SVGGElement>('.graph g.node.leaf')?.dataset.entryId);

/** A reply the test gives when it wants: the request stays in flight until then. */
function held<T>(): { promise: Promise<T>; give(v: T): void; fail(e: Error): void } {
  let give!: (v: T) => void;
  let fail!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    give = res;
    fail = rej;
  });
  return { promise, give, fail };
}

test('a move is shown at the click while the host writes it; a refused one goes back; a live session waits for the host', async () => {
  const host = await open();
  const page = host.page;
  assert.equal(await leafMark(page), 'a4000000');

  // An assistant entry: the leaf goes on it, before the host has answered.
  let reply = held<Replies['moveTo']>();
  host.handlers.moveTo = () => reply.promise;
  await selectEntry(host, 'a1000000');
  let req = host.nextRequest('moveTo');
  await page.keyboard.press('Enter');
  assert.deepEqual(await req, { kind: 'moveTo', id: 'a1000000' });
  await page.waitForFunction(
    () => document.querySelector<SVGGElement>('.graph g.node.leaf')?.dataset.entryId === 'a1000000',
  );
  reply.give({ leafId: 'a1000000', moved: true });
  // The host's own leafMoved confirms it: nothing changes.
  await host.delta({ type: 'leafMoved', leafId: 'a1000000' });
  await idle(page);
  assert.equal(await leafMark(page), 'a1000000');

  // A user message: pi puts the leaf on its parent (the branch summary before it).
  reply = held<Replies['moveTo']>();
  await selectEntry(host, 'x1000000');
  req = host.nextRequest('moveTo');
  await page.keyboard.press('Enter');
  await req;
  await page.waitForFunction(
    () => document.querySelector<SVGGElement>('.graph g.node.leaf')?.dataset.entryId === 'bs000000',
  );
  // The host cannot write it: the leaf goes back to where it was, and the error is shown.
  reply.fail(new Error('The session file changed on disk'));
  await page.waitForFunction(
    () => document.querySelector<SVGGElement>('.graph g.node.leaf')?.dataset.entryId === 'a1000000',
  );
  await page.locator('.toast.error, [role="alert"]').filter({ hasText: 'changed on disk' }).first().waitFor();

  // The user declined the host's question: back as well.
  host.handlers.moveTo = () => ({ leafId: 'a1000000', moved: false, cancelled: true });
  await selectEntry(host, 'a3000000');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() =>
    /Cancelled/.test(document.querySelector('.sr-only[aria-live="polite"]')!.textContent!),
  );
  await idle(page);
  assert.equal(await leafMark(page), 'a1000000');
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();

  // pi is writing this session: the move waits for the host (it may ask, or pi may place the leaf).
  const live = await open({ live: true });
  reply = held<Replies['moveTo']>();
  live.handlers.moveTo = () => reply.promise;
  await selectEntry(live, 'a1000000');
  req = live.nextRequest('moveTo');
  await live.page.keyboard.press('Enter');
  await req;
  assert.equal(await leafMark(live.page), 'a4000000', 'not moved before the host says so');
  reply.give({ leafId: 'a1000000', moved: true });
  await live.delta({ type: 'leafMoved', leafId: 'a1000000' });
  await idle(live.page);
  assert.equal(await leafMark(live.page), 'a1000000');
  await live.page.context().close();
});

test('a step draws again only the two nodes whose selection changed, and the details pane keeps its buttons', async () => {
  const host = await open();
  const page = host.page;
  await selectEntry(host, 'a3000000');
  // Tag every node in the DOM and the details' buttons; a node drawn again comes without the tag.
  const tag = () =>
    page.evaluate(() => {
      for (const g of document.querySelectorAll<SVGGElement>('.graph g.node'))
        (g as unknown as { __kept: boolean }).__kept = true;
      for (const b of document.querySelectorAll<HTMLElement>('.details [data-action]'))
        (b as unknown as { __kept: boolean }).__kept = true;
    });
  const redrawn = () =>
    page.evaluate(() => ({
      nodes: [...document.querySelectorAll<SVGGElement>('.graph g.node')]
        .filter((g) => !(g as unknown as { __kept?: boolean }).__kept)
        .map((g) => g.dataset.entryId ?? g.dataset.key),
      total: document.querySelectorAll('.graph g.node').length,
      buttonsMade: [
        ...document.querySelectorAll<HTMLElement>(
          '.details [data-action="move"], .details [data-action="clone"], .details [data-action="copy"]',
        ),
      ].filter((b) => !(b as unknown as { __kept?: boolean }).__kept).length,
    }));
  await tag();
  await page.keyboard.press('ArrowUp');
  await idle(page);
  const afterStep = await redrawn();
  assert.ok(afterStep.total > 4, `${afterStep.total} nodes drawn`);
  assert.equal(afterStep.nodes.length, 2, `drawn again: ${afterStep.nodes.join(', ')}`);
  assert.ok(afterStep.nodes.includes('a3000000'), 'the node that lost the selection');
  assert.equal(afterStep.buttonsMade, 0, 'the details pane reused its buttons');
  // The buttons still act on the new selection.
  const selectedNow = await page.evaluate(
    () => (window as unknown as { __piTree: { stats(): { selected?: string } } }).__piTree.stats().selected,
  );
  const req = host.nextRequest('copyText');
  await page.locator('.details [data-action="copy"]').click();
  assert.deepEqual(await req, { kind: 'copyText', id: selectedNow });

  // A leaf move draws again the nodes whose path or leaf mark changed, not the others.
  await idle(page);
  await tag();
  await host.delta({ type: 'leafMoved', leafId: 'bs000000' });
  await idle(page);
  const afterMove = await redrawn();
  assert.ok(
    afterMove.nodes.length > 0 && afterMove.nodes.length < afterMove.total,
    `drawn again ${afterMove.nodes.length} of ${afterMove.total}`,
  );
  assert.ok(!afterMove.nodes.includes('m0000000'), 'the root stays on the path: not drawn again');
  assert.equal(await leafMark(page), 'bs000000');
  assert.deepEqual(host.pageErrors, []);
  await page.context().close();
});
