// The graph's view transform (webview/graph/viewport.ts) in Node: centring, zooming about a point,
// clamping, fitting a layout and revealing an item.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_ZOOM, MIN_ZOOM, Viewport } from '../../webview/graph/viewport';
import { derive, type Item } from '../../webview/model/derive';
import { layoutTree, NODE_H, NODE_W } from '../../webview/model/layout';
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
  assert.ok(r.x0 <= l.minX - NODE_W / 2 && r.x1 >= l.maxX + NODE_W / 2 && r.y0 <= -NODE_H / 2 && r.y1 >= l.maxY + NODE_H / 2, JSON.stringify({ r, l: [l.minX, l.maxX, l.maxY] }));
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
