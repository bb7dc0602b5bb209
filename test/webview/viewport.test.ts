// The graph's view transform (webview/graph/viewport.ts) in Node: centring, zooming about a point,
// clamping, fitting a layout and revealing an item; framing a neighbourhood at a readable zoom (on open,
// after a move, Fit) and the whole tree (overview); card widths and a layout that spaces them; the
// minimap's rectangle of the visible area.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeView } from '../../src/protocol';
import { FIT_REACH, NEAR } from '../../webview/graph/graphView';
import { miniScale, pressTarget, viewRect } from '../../webview/graph/minimap';
import { FIT_MIN_ZOOM, FRAME_PAD, MAX_ZOOM, MIN_ZOOM, READABLE_ZOOM, Viewport } from '../../webview/graph/viewport';
import { derive, type Item } from '../../webview/model/derive';
import { layoutTree, NODE_H, NODE_W, type Layout } from '../../webview/model/layout';
import { layoutBox, neighbourhood, neighbourhoodItems } from '../../webview/model/neighbourhood';
import { itemWidth, MAX_NODE_W, MIN_NODE_W, sizeItems, titleChars } from '../../webview/model/nodeSize';
import { TreeModel } from '../../webview/model/treeModel';
import { genSession } from './helpers/gen';

const close = (a: number, b: number, msg?: string) => assert.ok(Math.abs(a - b) < 1e-9, `${msg ?? ''} ${a} ≈ ${b}`);

test('centring, zooming about a point and clamping', () => {
  const p = new Viewport();
  p.width = 800;
  p.height = 600;
  p.view = p.centered(1000, -200, 0.5);
  close(p.center().x, 1000);
  close(p.center().y, -200);
  const r = p.worldRect();
  close(r.x1 - r.x0, 1600, 'world width at k 0.5');
  // The world point under the cursor stays under it.
  const sx = 120;
  const sy = 450;
  const before = { x: (sx - p.view.x) / p.view.k, y: (sy - p.view.y) / p.view.k };
  p.view = p.zoomedAt(1.7, sx, sy);
  close(p.view.k, 0.85);
  close((sx - p.view.x) / p.view.k, before.x);
  close((sy - p.view.y) / p.view.k, before.y);
  assert.equal(p.zoomedAt(1e6).k, MAX_ZOOM);
  assert.equal(p.centered(0, 0, 0).k, MIN_ZOOM);
});

test('fit shows the whole layout; reveal moves only when an item is out of view', () => {
  const s = genSession({ n: 600, branchRate: 0.05, seed: 4 });
  const model = new TreeModel();
  model.load(s.nodes, s.leafId);
  const d = derive({ model, mode: 'default', folded: new Set(), expanded: new Set() });
  const l = layoutTree(d.root);
  const p = new Viewport();
  assert.equal(p.fitted(l), undefined, 'no size yet');
  p.width = 1000;
  p.height = 700;
  p.view = p.fitted(l)!;
  const r = p.worldRect();
  assert.ok(
    r.x0 <= l.minX - NODE_W / 2 && r.x1 >= l.maxX + NODE_W / 2 && r.y0 <= -NODE_H / 2 && r.y1 >= l.maxY + NODE_H / 2,
    JSON.stringify({ r, l: [l.minX, l.maxX, l.maxY] }),
  );
  p.view = p.centered(0, 0, 1);
  const root = d.root.children![0];
  assert.equal(p.revealing(root), undefined, 'in view already');
  const far = d.items.reduce((a: Item, b: Item) => (b.y > a.y ? b : a));
  const v = p.revealing(far)!;
  p.view = v;
  close(p.center().x, far.x);
  close(p.center().y, far.y);
  assert.equal(v.k, 1, 'the zoom is kept');
});

test('reveal: a card near the view pans only as far as it takes (a framed branch beside stays in view), a far one is centred', () => {
  const p = new Viewport();
  p.width = 565;
  p.height = 863;
  // framed as on open: the path's column at x = -60, right of the middle, a branch at x = -300 on the left
  const framed = { x: 450, y: 300, k: 1 };
  p.view = framed;
  const card = (x: number, y: number) => ({ x, y, w: 254 }) as unknown as Item;
  const branch = card(-300, 0);
  const inView = (it: Item) => {
    const r = p.worldRect();
    return it.x - 127 >= r.x0 && it.x + 127 <= r.x1 && it.y - NODE_H / 2 >= r.y0 && it.y + NODE_H / 2 <= r.y1;
  };
  assert.ok(inView(branch));
  // the next row up on the path, in view off the middle: nothing moves (it used to be centred, the branch cut off)
  assert.equal(p.revealing(card(-60, 100)), undefined);
  // the next row down, just past the bottom: the view pans up by that and the margin, no more
  const near = card(-60, 560);
  const v = p.revealing(near)!;
  assert.deepEqual([v.x, v.k], [framed.x, 1], 'no sideways move, the zoom kept');
  close(p.worldRect().y1 - FRAME_PAD - (near.y + NODE_H / 2), (v.y - framed.y) / 1);
  p.view = v;
  assert.ok(inView(near) && inView(branch), 'the card and the branch beside it both in view');
  // a card a screen away: centred
  p.view = framed;
  const far = card(0, 3000);
  p.view = p.revealing(far)!;
  close(p.center().x, far.x);
  close(p.center().y, far.y);
  // zoomed far out: centred at a readable zoom
  p.view = { x: 420, y: 300, k: 0.1 };
  assert.equal(p.revealing(card(6000, 100))!.k, 0.6);
});

/** A derived and laid-out session with cards sized as the app sizes them. */
function laidOut(n: number, seed: number, branchRate = 0.05) {
  const s = genSession({ n, branchRate, seed });
  const model = new TreeModel();
  model.load(s.nodes, s.leafId);
  const d = derive({ model, mode: 'default', folded: new Set(), expanded: new Set() });
  sizeItems(d.items, model.nodes);
  const l = layoutTree(d.root);
  const leaf = d.items.find((it) => it.isLeaf)!;
  return { model, d, l, leaf };
}

const port = (w: number, h: number) => {
  const p = new Viewport();
  p.width = w;
  p.height = h;
  return p;
};

test('framing a box: the largest zoom in range that fits it, centred; cut off, the focus stays in view', () => {
  const p = port(800, 600);
  const box = { x0: 100, y0: 0, x1: 500, y1: 300 };
  let v = p.framed(box, { minK: 0.5, maxK: 1 });
  assert.equal(v.k, 1, 'a small box is shown at 1:1, not blown up');
  p.view = v;
  close(p.center().x, 300);
  close(p.center().y, 150);
  // A box too big for 1:1 but fine at 0.5: zoomed to fit, every corner inside the viewport.
  const big = { x0: 0, y0: 0, x1: 1400, y1: 900 };
  v = p.framed(big, { minK: 0.3, maxK: 1 });
  close(v.k, Math.min((800 - 2 * FRAME_PAD) / 1400, (600 - 2 * FRAME_PAD) / 900));
  p.view = v;
  const r = p.worldRect();
  assert.ok(r.x0 <= 0 && r.x1 >= 1400 && r.y0 <= 0 && r.y1 >= 900);
  // Too big even at the floor: the floor holds, and the focus (far in a corner) stays inside.
  const huge = { x0: 0, y0: 0, x1: 20_000, y1: 40_000 };
  const focus = { x: 19_800, y: 39_900, w: 200 };
  v = p.framed(huge, { minK: READABLE_ZOOM, maxK: 1, focus });
  assert.equal(v.k, READABLE_ZOOM);
  p.view = v;
  const q = p.worldRect();
  assert.ok(
    focus.x - 100 >= q.x0 && focus.x + 100 <= q.x1 && focus.y >= q.y0 && focus.y <= q.y1,
    JSON.stringify({ q, focus }),
  );
});

test('on open the leaf is framed with its path and the branches leaving it, at a readable zoom, all in view', () => {
  const { leaf } = laidOut(3000, 3, 0.03);
  const items = neighbourhoodItems(leaf, NEAR);
  // The path above the leaf is in it, up to NEAR.up entries.
  let a: Item | null = leaf;
  for (let k = 0; k <= NEAR.up && a && a.depth > 0; k++, a = a.parent) assert.ok(items.includes(a), `ancestor ${k}`);
  // Every branch leaving those ancestors shows at least its first entry.
  a = leaf.parent;
  for (let k = 0; k < NEAR.up && a && a.depth > 0; k++, a = a.parent)
    for (const c of a.children ?? []) assert.ok(items.includes(c), 'side branch head');
  // Nothing from far away.
  assert.ok(items.every((it) => Math.abs(it.depth - leaf.depth) <= NEAR.up + 3));
  const p = port(900, 700);
  p.view = p.framed(neighbourhood(leaf, NEAR), { minK: READABLE_ZOOM, maxK: 1, focus: leaf });
  assert.ok(p.view.k >= READABLE_ZOOM && p.view.k <= 1);
  const r = p.worldRect();
  const inside = (it: Item) =>
    it.x - it.w / 2 >= r.x0 - 1e-6 &&
    it.x + it.w / 2 <= r.x1 + 1e-6 &&
    it.y - NODE_H / 2 >= r.y0 &&
    it.y + NODE_H / 2 <= r.y1;
  const shown = items.filter(inside).length;
  // A neighbourhood that fits is wholly inside; one that does not keeps the leaf and most of it.
  assert.ok(inside(leaf), 'the leaf is in view');
  assert.ok(shown >= items.length * 0.6, `${shown} of ${items.length} neighbours in view`);
  // The selection is not pinned to an edge: the tree's middle is near the view's.
  const box = neighbourhood(leaf, NEAR);
  if (p.zoomToFit(box) >= READABLE_ZOOM) close(p.center().x, (box.x0 + box.x1) / 2, 'centred on the neighbourhood');
});

test('Fit on a big tree stays readable; the whole-tree overview shows everything', () => {
  const { l, leaf } = laidOut(20_000, 9, 0.02);
  const p = port(1000, 700);
  const whole = layoutBox(l);
  assert.ok(p.zoomToFit(whole) < FIT_MIN_ZOOM, 'a 20k session is too big to read whole');
  p.view = p.framed(neighbourhood(leaf, FIT_REACH), { minK: FIT_MIN_ZOOM, maxK: 1, focus: leaf });
  assert.ok(p.view.k >= FIT_MIN_ZOOM, `Fit k ${p.view.k} is not a 1-px strip`);
  p.view = p.framed(whole, { minK: MIN_ZOOM, maxK: 1 });
  const r = p.worldRect();
  assert.ok(r.x0 <= whole.x0 + 1e-6 && r.x1 >= whole.x1 - 1e-6 && r.y0 <= whole.y0 + 1e-6 && r.y1 >= whole.y1 - 1e-6);
});

test('cards are as wide as their titles need (within bounds) and the layout never overlaps them', () => {
  const { d, l } = laidOut(5000, 5, 0.05);
  const widths = d.items.map((it) => it.w);
  assert.ok(widths.every((w) => w >= MIN_NODE_W && w <= MAX_NODE_W));
  assert.ok(new Set(widths).size > 5, 'widths differ with the text');
  for (const row of l.levels)
    for (let k = 1; k < row.length; k++)
      assert.ok(row[k].x - row[k].w / 2 >= row[k - 1].x + row[k - 1].w / 2 + 8 - 1e-6, 'neighbouring cards keep a gap');
  const short: NodeView = {
    id: 'a',
    parentId: null,
    type: 'message',
    role: 'user',
    kind: 'user',
    text: 'user: ok',
    time: 0,
  };
  const long = { ...short, text: `user: ${'a fairly long request about the parser '.repeat(5)}` };
  const it = { entry: 0, seg: false, children: undefined } as unknown as Item;
  assert.equal(itemWidth(it, [short]), MIN_NODE_W);
  assert.equal(itemWidth(it, [long]), MAX_NODE_W);
  assert.ok(titleChars(MAX_NODE_W) >= 38, 'a wide card shows a readable line');
});

test("minimap: the visible area's rectangle stays inside the strip, at least 2 px each way", () => {
  const m = { sx: 0.1, sy: 0.1, ox: 10, oy: 0 };
  // inside: as it is
  assert.deepEqual(viewRect({ x0: 100, y0: 100, x1: 300, y1: 500 }, m, 72, 240), { x: 20, y: 10, w: 20, h: 40 });
  // a view wider and taller than the tree (a small session): all four sides on the strip, not two stray lines
  const wide = viewRect({ x0: -2000, y0: -500, x1: 3000, y1: 5000 }, m, 72, 240);
  assert.deepEqual(wide, { x: 0.5, y: 0.5, w: 71, h: 239 });
  // off the strip to the right and below: a sliver at its edge, still drawn
  const off = viewRect({ x0: 5000, y0: 9000, x1: 6000, y1: 9500 }, m, 72, 240);
  assert.deepEqual(off, { x: 69.5, y: 237.5, w: 2, h: 2 });
  // a tiny view: 2 px
  assert.deepEqual(viewRect({ x0: 100, y0: 100, x1: 101, y1: 101 }, m, 72, 240), { x: 20, y: 10, w: 2, h: 2 });
});

test('minimap: a deep tree fills the strip each way (not a 1-px line); a press away from every card keeps the nearest one in view', () => {
  // 3 columns, 5,000 rows deep: scaled as a whole it was 0.07 px wide on a 56 × 750 strip.
  const deep = { minX: -212, maxX: 212, maxY: 5000 * 64 };
  const m = miniScale(deep, 56, 750);
  assert.ok(Math.abs((deep.maxX - deep.minX + 188) * m.sx - 56) < 1e-6, 'as wide as the strip');
  assert.ok(Math.abs((deep.maxY + 40) * m.sy - 750) < 1e-6, 'as tall as the strip');
  // A short tree is not stretched into blocks: at most 8 times its width's scale.
  const short = miniScale({ minX: 0, maxX: 424, maxY: 128 }, 56, 750);
  assert.ok(short.sy <= short.sx * 8 + 1e-9);
  // One card at the origin, one far down-left: a press at the far right of the first card's row stays with it.
  const a = { x: 0, y: 0, w: 188 } as Item;
  const b = { x: -5000, y: 60_000, w: 188 } as Item;
  const l = { levels: [[], [a], [b]], minX: -5000, maxX: 0, maxY: 60_000 } as unknown as Layout;
  const mm = miniScale(l, 56, 750);
  const t = pressTarget(l, mm, 40_000, 0, 800, 600);
  assert.ok(Math.abs(t.x - a.x) + 188 / 2 <= 800 / 2, 'the nearest card is in the view');
  assert.equal(t.y, 0);
  // Near a card, the press goes where it was made.
  assert.deepEqual(pressTarget(l, mm, 100, 20, 800, 600), { x: 100, y: 20 });
});
