// Issue #17, finding 2 in the built webview (headless Chromium, scripted host): the view keeps showing the
// selection as the tree changes under it — family link cards that arrive after the first framing, a
// window that turns narrow, and entries appended under the leaf whose cards are wider than the old leaf's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FamilyLink, NodeView } from '../../src/protocol';
import { idle, meta, ScriptedHost, useWebviewBrowser } from './helpers/browser';
import { boxes, close, inside } from './helpers/graphBoxes';
import { smallSession } from './fixtures';

const web = useWebviewBrowser();

/** Screen boxes of the family link cards drawn. */
const linkBoxes = (page: ScriptedHost['page']) =>
  page.evaluate(() =>
    [...document.querySelectorAll('svg.scene g.node.k-link rect.box')].map((e) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    }),
  );

type Hooks = { __piTree: { graph: { view: { x: number; y: number; k: number } } } };

async function open(
  nodes: NodeView[],
  leafId: string | null,
  over: Parameters<typeof meta>[0] = {},
  width = 1280,
): Promise<ScriptedHost> {
  return web.opened({ meta: meta(over), nodes, leafId }, { width, height: 800 });
}

test('family links that arrive after the first framing move the cards: the framed view follows them (a panned one does not move)', async () => {
  const s = smallSession();
  const host = await open(s.nodes, s.leafId);
  const page = host.page;
  const link = (token: string, at: string): FamilyLink => ({
    token,
    relation: 'child',
    at,
    title: 'A fork made from here with a long first message',
    fileName: `${token}.jsonl`,
    messages: 12,
    bytes: 40_960,
    created: Date.UTC(2026, 10, 22),
  });
  // A fork at the branch point: a new card beside the path, which moves the path aside (before, the
  // selected leaf ended up out of view).
  await host.delta({ type: 'family', links: [link('f00d02', 'a1000000')] });
  await idle(page);
  await page.locator('svg.scene g.node.k-link').first().waitFor({ state: 'attached' });
  const ids = [s.leafId, 'u2000000'];
  const b = await boxes(page, ids);
  for (const id of ids) assert.ok(inside(b.nodes[id], b.g), `${id} in view: ${JSON.stringify(b)}`);
  // The link card is not cut at an edge: wholly in view, or (where the path at a readable zoom leaves no
  // room for it) wholly out of it.
  const card = await linkBoxes(page);
  assert.equal(card.length, 1);
  const out = card[0].right <= b.g.left + 0.5 || card[0].left >= b.g.right - 0.5;
  assert.ok(inside(card[0], b.g) || out, `the link card not cut: ${JSON.stringify({ card, g: b.g })}`);
  // Panned by the user: new links leave the view where the user put it.
  await page.evaluate(() =>
    (window as unknown as { __piTree: { graph: { panBy(x: number, y: number): void } } }).__piTree.graph.panBy(-40, 0),
  );
  const before = await page.evaluate(() => ({ ...(window as unknown as Hooks).__piTree.graph.view }));
  await host.delta({ type: 'family', links: [link('f00d01', 'u1000000')] });
  await idle(page);
  assert.deepEqual(await page.evaluate(() => ({ ...(window as unknown as Hooks).__piTree.graph.view })), before);
  await close(host);
});

test('a graph too narrow for the link cards beside the path: none is cut at an edge (wholly in view, or out of it)', async () => {
  const s = smallSession();
  const host = await open(s.nodes, s.leafId, {}, 1000);
  const page = host.page;
  const link = (token: string, at: string): FamilyLink => ({
    token,
    relation: 'child',
    at,
    title: 'A fork made from here with a long first message',
    fileName: `${token}.jsonl`,
    messages: 12,
    bytes: 40_960,
    created: Date.UTC(2026, 10, 22),
  });
  await host.delta({ type: 'family', links: [link('f00d02', 'a1000000')] });
  await idle(page);
  await page.locator('svg.scene g.node.k-link').first().waitFor({ state: 'attached' });
  const b = await boxes(page, [s.leafId]);
  assert.ok(inside(b.nodes[s.leafId], b.g), `the leaf in view: ${JSON.stringify(b)}`);
  const cards = await linkBoxes(page);
  const cut = cards.filter((c) => c.right > b.g.left + 0.5 && c.left < b.g.right - 0.5 && !inside(c, b.g));
  assert.deepEqual(cut, [], `no link card cut at an edge of ${JSON.stringify(b.g)}`);
  await close(host);
});

test('the window turns narrow: the selection is framed in the smaller graph (not left where the centre was)', async () => {
  const s = smallSession();
  const host = await open(s.nodes, s.leafId);
  const page = host.page;
  // Pan so the leaf sits near the graph's right edge (still in view).
  const b0 = await boxes(page, [s.leafId]);
  const dx = b0.g.right - 20 - b0.nodes[s.leafId]!.right;
  await page.evaluate(
    (dx) =>
      (window as unknown as { __piTree: { graph: { panBy(x: number, y: number): void } } }).__piTree.graph.panBy(dx, 0),
    dx,
  );
  await idle(page);
  assert.ok(inside((await boxes(page, [s.leafId])).nodes[s.leafId], b0.g));
  await page.setViewportSize({ width: 560, height: 800 });
  await page.locator('.app.narrow').waitFor({ state: 'attached' });
  await idle(page);
  const b = await boxes(page, [s.leafId]);
  assert.ok(inside(b.nodes[s.leafId], b.g), `the leaf in view after the window narrowed: ${JSON.stringify(b)}`);
  await close(host);
});

test('an entry appended under the leaf with a longer title than the leaf: its card never overlaps the branch beside it', async () => {
  // r ─┬─ s1 ─ s2 ─ s3 ─ s4 (labelled, a long title: a wide card at the leaf's depth)
  //    └─ p1 ─ p2 ─ p3 ─ p4 ─ p5 (leaf, short) ← appended entries
  let t = Date.UTC(2026, 10, 20, 9);
  const m = (
    id: string,
    parentId: string | null,
    user: boolean,
    text: string,
    extra: Partial<NodeView> = {},
  ): NodeView => ({
    id,
    parentId,
    type: 'message',
    role: user ? 'user' : 'assistant',
    kind: user ? 'user' : 'assistant',
    text: `${user ? 'user' : 'assistant'}: ${text}`,
    time: (t += 60_000),
    ...extra,
  });
  const long = 'a title long enough to need the widest card the graph draws for an entry';
  const nodes = [
    m('r0000000', null, true, 'start'),
    m('s1000000', 'r0000000', true, 'side one'),
    m('s2000000', 's1000000', false, 'side two'),
    m('s3000000', 's2000000', true, 'side three'),
    m('s4000000', 's3000000', false, long, { label: 'kept' }),
    m('p1000000', 'r0000000', true, 'path one'),
    m('p2000000', 'p1000000', false, 'path two'),
    m('p3000000', 'p2000000', true, 'path three'),
    m('p4000000', 'p3000000', false, 'path four'),
    m('p5000000', 'p4000000', true, 'ok'),
  ];
  const host = await open(nodes, 'p5000000', {}, 1600);
  const page = host.page;
  type Hooks2 = { __piTree: { timings(): Record<string, number> } };
  // As the host sends them: the entry and the leaf moved onto it, in one message.
  let rev = 100;
  const append = async (n: NodeView): Promise<'incremental' | 'full'> => {
    rev += 2;
    const kind = await page.evaluate(
      ({ n, rev }) =>
        new Promise<'incremental' | 'full'>((resolve) => {
          window.dispatchEvent(
            new MessageEvent('message', { data: { type: 'appended', rev, nodes: [n], leafId: n.id } }),
          );
          // (no named functions in here: the page has no __name helper for them)
          const iv = setInterval(() => {
            const w = window as unknown as Hooks2 & { __piTree: { model: { leafId: string | null } } };
            if (w.__piTree.model.leafId !== n.id) return;
            clearInterval(iv);
            requestAnimationFrame(() => resolve(w.__piTree.timings().tail !== undefined ? 'incremental' : 'full'));
          }, 5);
        }),
      { n, rev },
    );
    await idle(page);
    return kind;
  };
  // A short title fits the old leaf's slot: the incremental pass takes it (the case is exercised).
  assert.equal(await append(m('n1000000', 'p5000000', false, 'fine')), 'incremental');
  // A long one does not fit beside the side branch's wide card: laid out again, no overlap.
  assert.equal(await append(m('n2000000', 'n1000000', true, long)), 'full');
  // No two cards of a depth overlap (the graph draws each item at its x, its card as wide as its w).
  const items = await page.evaluate(() =>
    (
      window as unknown as {
        __piTree: { derived(): { items: { key: string; depth: number; x: number; w: number }[] } };
      }
    ).__piTree
      .derived()
      .items.map((i) => ({ key: i.key, depth: i.depth, x: i.x, w: i.w })),
  );
  const n2 = items.find((i) => i.key === 'n2000000')!;
  const s4 = items.find((i) => i.key === 's4000000')!;
  assert.equal(n2.depth, s4.depth, "the new leaf sits at the side branch card's depth");
  assert.ok(n2.w > 300 && s4.w > 300, 'both cards are wide');
  for (const a of items)
    for (const c of items)
      if (a !== c && a.depth === c.depth)
        assert.ok(a.x + a.w / 2 <= c.x - c.w / 2 || c.x + c.w / 2 <= a.x - a.w / 2, `${a.key} and ${c.key} overlap`);
  await close(host);
});

test('a move with summary: the summary, written under the selected entry and now the leaf, is framed (it stayed below the view)', async () => {
  const s = smallSession();
  const host = await open(s.nodes, s.leafId);
  const page = host.page;
  type Tree = {
    __piTree: { app: { tree: { selectEntry(id: string): void } }; graph: { panBy(x: number, y: number): void } };
  };
  await page.evaluate(() => (window as unknown as Tree).__piTree.app.tree.selectEntry('a1000000'));
  await idle(page);
  // The entry at the bottom edge of the view, as a find or a scroll leaves it.
  const b0 = await boxes(page, ['a1000000']);
  await page.evaluate(
    (dy) => (window as unknown as Tree).__piTree.graph.panBy(0, dy),
    b0.g.bottom - 6 - b0.nodes.a1000000!.bottom,
  );
  await idle(page);
  const summary: NodeView = {
    id: 's9000000',
    parentId: 'a1000000',
    type: 'branch_summary',
    kind: 'branchSummary',
    text: '[branch summary]: the branch left behind',
    time: Date.UTC(2026, 10, 21),
  };
  await host.delta({ type: 'appended', nodes: [summary], leafId: summary.id });
  await idle(page);
  const b = await boxes(page, ['s9000000', 'a1000000']);
  for (const id of ['s9000000', 'a1000000']) assert.ok(inside(b.nodes[id], b.g), `${id} in view: ${JSON.stringify(b)}`);
  await close(host);
});
