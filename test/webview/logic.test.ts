// Pure webview logic in Node: model, segment compression, layout and culling queries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeView } from '../../src/protocol';
import { TreeModel } from '../../webview/model/treeModel';
import { derive, type Item } from '../../webview/model/derive';
import { layoutTree, queryItems, queryBars, NODE_W, NODE_H, DX } from '../../webview/model/layout';
import { neighbourhoodItems } from '../../webview/model/neighbourhood';
import { genSession } from './helpers/gen';

let clock = 1000;
function nv(id: string, parentId: string | null, extra: Partial<NodeView> = {}): NodeView {
  return { id, parentId, type: 'message', role: 'user', kind: 'user', text: `user: ${id}`, time: clock++, ...extra };
}
const asst = (id: string, p: string | null, extra: Partial<NodeView> = {}) =>
  nv(id, p, { role: 'assistant', kind: 'assistant', text: `assistant: ${id}`, ...extra });
function chain(n: number, prefix = 'c', parent: string | null = null): NodeView[] {
  const out: NodeView[] = [];
  for (let i = 0; i < n; i++) out.push(nv(`${prefix}${i}`, i ? `${prefix}${i - 1}` : parent));
  return out;
}
function model(nodes: NodeView[], leaf: string | null = null): TreeModel {
  const m = new TreeModel();
  m.load(nodes, leaf ?? nodes[nodes.length - 1]?.id ?? null);
  return m;
}
const none = new Set<string>();
function d(m: TreeModel, opts: Partial<Parameters<typeof derive>[0]> = {}) {
  return derive({ model: m, mode: 'default', folded: none, expanded: none, ...opts });
}
function keys(items: Item[]): string[] {
  return items.map((i) => i.key);
}

test('model: children sorted by time, orphans re-attached when their parent arrives, labels and leaf', () => {
  const m = new TreeModel();
  m.load([nv('a', null, { time: 1 }), nv('c', 'a', { time: 5 }), nv('b', 'a', { time: 3 })], 'c');
  assert.deepEqual(
    m.childrenOf(0).map((i) => m.nodes[i].id),
    ['b', 'c'],
  );
  m.append([nv('x', 'late', { time: 9 })]);
  assert.deepEqual(
    m.roots.map((i) => m.nodes[i].id),
    ['a', 'x'],
  );
  m.append([nv('late', 'c', { time: 8 })]);
  assert.deepEqual(
    m.roots.map((i) => m.nodes[i].id),
    ['a'],
  );
  assert.equal(m.nodes[m.parent[m.index.get('x')!]].id, 'late');
  assert.equal(m.setLabel('b', 'hello'), true);
  assert.equal(m.nodes[m.index.get('b')!].label, 'hello');
  m.setLabel('b', undefined);
  assert.equal('label' in m.nodes[m.index.get('b')!], false);
  m.setLeaf('x');
  const mask = m.pathMask();
  assert.deepEqual(
    ['a', 'c', 'late', 'x', 'b'].map((id) => mask[m.index.get(id)!]),
    [1, 1, 1, 1, 0],
  );
  m.setLeaf(null);
  assert.equal(m.leafId, null);
});

test('model: a self-parented node is a root and a parent loop is broken instead of hiding nodes', () => {
  const m = model([nv('a', 'a'), nv('b', 'c'), nv('c', 'b')]);
  assert.equal(m.preorder().length, 3);
  assert.equal(new Set(m.preorder()).size, 3);
});

test('model: out-of-order times sort siblings like pi; pre-order visits every node once', () => {
  const m = model([
    nv('r', null, { time: 10 }),
    nv('c3', 'r', { time: 30 }),
    nv('c1', 'r', { time: 10 }),
    nv('c2', 'r', { time: 20 }),
    nv('c1b', 'r', { time: 10 }),
    nv('g', 'c1', { time: 40 }),
    nv('r0', null, { time: 5 }),
  ]);
  assert.deepEqual(
    m.childrenOf(0).map((i) => m.nodes[i].id),
    ['c1', 'c1b', 'c2', 'c3'],
  );
  assert.deepEqual(
    [...m.preorder()].map((i) => m.nodes[i].id),
    ['r0', 'r', 'c1', 'g', 'c1b', 'c2', 'c3'],
  );
  assert.deepEqual(
    [...m.preorder(m.index.get('c1'))].map((i) => m.nodes[i].id),
    ['c1', 'g'],
  );
});

test('compression: a chain becomes root, one segment and the leaf', () => {
  const m = model(chain(10));
  const r = d(m);
  assert.deepEqual(keys(r.items), ['c0', 'seg:c1', 'c9']);
  const seg = r.items[1];
  assert.equal(seg.members!.length, 8);
  assert.equal(r.itemOf[m.index.get('c5')!], seg);
  assert.equal(seg.onPath, true);
  assert.equal(r.items[2].isLeaf, true);
});

test('compression keeps branch points, labels, tips, compactions and summaries as their own items', () => {
  const nodes = [
    ...chain(6, 'a'),
    nv('b0', 'a2'),
    nv('b1', 'b0'),
    nv('b2', 'b1'),
    nv('b3', 'b2'),
    { ...nv('s', 'a5'), type: 'branch_summary', kind: 'branchSummary' as const, role: undefined },
    nv('t0', 's'),
    nv('t1', 't0', { label: 'here' }),
    nv('t2', 't1'),
    nv('t3', 't2'),
    nv('t4', 't3'),
  ];
  const m = model(nodes, 'b1');
  const r = d(m);
  // a1 is a run of one (no segment); a3..a5 run into the summary; t0 stops at the labelled t1; t2..t3
  // stop at the tip t4 (tips are kept); b0 stops at the leaf b1; b2 is alone before the tip b3.
  assert.deepEqual(keys(r.items), [
    'a0',
    'a1',
    'a2',
    'seg:a3',
    's',
    't0',
    't1',
    'seg:t2',
    't4',
    'b0',
    'b1',
    'b2',
    'b3',
  ]);
  const a2 = r.itemOf[m.index.get('a2')!]!;
  assert.deepEqual(keys(a2.children!), ['seg:a3', 'b0']);
  assert.equal(r.itemOf[m.index.get('a4')!]!.key, 'seg:a3');
});

test('hidden entries attach their visible descendants to the nearest visible ancestor', () => {
  const nodes: NodeView[] = [
    nv('u1', null),
    { id: 'm', parentId: 'u1', type: 'model_change', kind: 'model', text: '[model: x]', time: clock++ },
    asst('t', 'm', { noText: true, text: '' }),
    nv('r', 't', { role: 'toolResult', kind: 'toolResult' }),
    asst('a', 'r'),
    nv('u2', 'a'),
  ];
  const m = model(nodes, 'u2');
  const def = d(m);
  assert.equal(def.vparent[m.index.get('r')!], m.index.get('u1'));
  assert.equal(def.visible[m.index.get('m')!], 0);
  const users = d(m, { mode: 'user-only' });
  assert.deepEqual(keys(users.items), ['u1', 'u2']);
  assert.equal(users.itemOf[m.index.get('u2')!]!.parent!.key, 'u1');
  const all = d(m, { mode: 'all' });
  assert.equal(all.visible[m.index.get('t')!], 0, 'text-less assistant stays hidden even in all');
});

test('expanded runs show entry by entry and remember their run; folds hide descendants', () => {
  const m = model(chain(8));
  const r = d(m, { expanded: new Set(['c4']) });
  assert.deepEqual(keys(r.items), ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7']);
  assert.deepEqual(
    r.items[3].run!.members.map((i) => m.nodes[i].id),
    ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'],
  );
  const nodes = [...chain(4, 'a'), ...chain(3, 'b', 'a1'), ...chain(3, 'x', 'a1')];
  const m2 = model(nodes, 'a3');
  const f = d(m2, { folded: new Set(['a1']) });
  assert.deepEqual(keys(f.items), ['a0', 'a1']);
  assert.equal(f.items[1].folded, true);
  assert.equal(f.items[1].hidden, 8);
});

test('forced entries (find hits, selection) split segments', () => {
  const m = model(chain(10));
  const forced = new Uint8Array(m.size);
  forced[m.index.get('c5')!] = 1;
  assert.deepEqual(keys(d(m, { forced }).items), ['c0', 'seg:c1', 'c5', 'seg:c6', 'c9']);
});

test('entries that change files stay their own nodes in a straight run (#34 item 10); their tool results may join it', () => {
  const nodes = chain(10);
  nodes[4] = asst('c4', 'c3', { tools: ['edit'], changed: ['src/a.ts'] });
  nodes[5] = nv('c5', 'c4', { role: 'toolResult', kind: 'toolResult', text: 'edited', changed: ['src/a.ts'] });
  const r = d(model(nodes));
  assert.deepEqual(keys(r.items), ['c0', 'seg:c1', 'c4', 'seg:c5', 'c9']);
  // A call without text is hidden by the default filter: its result, with the mark, stands alone.
  nodes[4] = { ...nodes[4], noText: true };
  assert.deepEqual(keys(d(model(nodes)).items), ['c0', 'seg:c1', 'c5', 'seg:c6', 'c9']);
});

test('outline rows follow pi order (current path first) with APG positions', () => {
  const nodes = [...chain(3, 'a'), nv('x0', 'a2'), nv('x1', 'x0'), nv('y0', 'a2'), nv('y1', 'y0')];
  const m = model(nodes, 'y1');
  const r = d(m, { mode: 'all' });
  const rows = r.rows.map((it) => [it.key, it.level, it.posinset, it.setsize]);
  assert.deepEqual(rows, [
    ['a0', 1, 1, 3],
    ['a1', 1, 2, 3],
    ['a2', 1, 3, 3],
    ['y0', 2, 1, 4],
    ['y1', 2, 2, 4],
    ['x0', 2, 3, 4],
    ['x1', 2, 4, 4],
  ]);
});

test('a 100k-deep chain derives and lays out without recursion', () => {
  const nodes = chain(100_000, 'n');
  const m = model(nodes);
  const r = d(m);
  assert.equal(r.items.length, 3);
  const all = d(m, { expanded: new Set(['n5']) });
  assert.equal(all.items.length, 100_000);
  const l = layoutTree(all.root);
  assert.equal(l.count, 100_000);
  assert.equal(all.items[99_999].y, 99_999 * (l.levels.length > 2 ? l.levels[2][0].y : 0));
});

test('layout: no two items of a depth overlap, parents sit above children, queries match brute force', () => {
  const s = genSession({ n: 5000, branchRate: 0.05, seed: 3 });
  const m = model(s.nodes, s.leafId);
  const r = d(m);
  const l = layoutTree(r.root);
  assert.equal(l.count, r.items.length);
  for (const row of l.levels)
    for (let k = 1; k < row.length; k++) assert.ok(row[k].x - row[k - 1].x >= DX - 1e-6, 'siblings keep their slot');
  for (const it of r.items) if (it.parent && it.parent !== r.root) assert.ok(it.parent.y < it.y);
  for (const rect of [
    { x0: -500, y0: 0, x1: 700, y1: 900 },
    { x0: l.minX, y0: 300, x1: l.minX + 2000, y1: 1200 },
    { x0: 0, y0: -100, x1: 10, y1: 10 },
  ]) {
    const got = new Set(queryItems(l, rect).map((i) => i.key));
    const want = r.items
      .filter(
        (i) =>
          i.x + NODE_W / 2 >= rect.x0 &&
          i.x - NODE_W / 2 <= rect.x1 &&
          i.y + NODE_H / 2 >= rect.y0 &&
          i.y - NODE_H / 2 <= rect.y1,
      )
      .map((i) => i.key);
    assert.deepEqual([...got].sort(), want.sort());
    for (const b of queryBars(l, rect)) assert.ok(b.x0 <= rect.x1 && b.x1 >= rect.x0);
  }
});

test('generated sessions have the requested shape', () => {
  const s = genSession({ n: 20_000, branchRate: 0.02, seed: 11 });
  const m = model(s.nodes, s.leafId);
  let branches = 0;
  for (let i = 0; i < m.size; i++) if (m.childCount(i) > 1) branches++;
  assert.equal(s.nodes.length, 20_000);
  assert.ok(branches > 20_000 * 0.005 && branches < 20_000 * 0.04, `branch points: ${branches}`);
  assert.ok(s.nodes.some((n) => n.kind === 'compaction') && s.nodes.some((n) => n.label));
  assert.equal(new Set(s.nodes.map((n) => n.id)).size, s.nodes.length);
});

test('layout: a family link card goes outermost and never takes the main line; the side branch stays beside the path', () => {
  // p ─┬─ a (side branch, older)
  //    ├─ link:f (a fork, newer; it would sit between the two)
  //    └─ q ─ r (the path)
  const nodes = [
    nv('p', null),
    asst('a', 'p'),
    nv('q', 'p'),
    asst('r', 'q'),
    { ...nv('link:f', 'p'), type: 'session_link', kind: 'link' as const, role: undefined },
  ];
  const m = model(nodes, 'r');
  const r = d(m);
  layoutTree(r.root);
  const x = (id: string) => r.items.find((i) => !i.seg && m.nodes[i.entry].id === id)!.x;
  const pathX = x('q');
  assert.equal(x('p'), pathX, 'the main line runs straight down');
  assert.ok(x('link:f') < x('a') && x('a') < pathX, `link ${x('link:f')} | side branch ${x('a')} | path ${pathX}`);
  // Not a branch of this session: framing leaves it out (the side branch is in).
  const near = neighbourhoodItems(
    r.items.find((i) => m.nodes[i.entry].id === 'r')!,
    { up: 3, down: 1 },
  ).map((i) => m.nodes[i.entry].id);
  assert.ok(near.includes('a') && !near.includes('link:f'), near.join());
  // A link taller than the path (it never is: it has no children) or later still never takes the main line.
  const leafFork = model(
    [
      nv('p', null),
      nv('q', 'p'),
      { ...nv('link:g', 'p'), type: 'session_link', kind: 'link' as const, role: undefined },
    ],
    'q',
  );
  const lf = d(leafFork);
  layoutTree(lf.root);
  const lx = (id: string) => lf.items.find((i) => !i.seg && leafFork.nodes[i.entry].id === id)!.x;
  assert.equal(lx('p'), lx('q'));
  assert.ok(lx('link:g') < lx('q'));
});

test('framing reaches up to the nearest branch point a few entries past its reach, and no further', () => {
  // p ─┬─ a (side branch)
  //    └─ q1 ─ q2 ─ … ─ qN (the path, each entry its own card: labelled)
  const chain = (n: number) => {
    const nodes = [nv('p', null), asst('a', 'p')];
    for (let i = 1; i <= n; i++) nodes.push({ ...nv(`q${i}`, i === 1 ? 'p' : `q${i - 1}`), label: `l${i}` });
    const m = model(nodes, `q${n}`);
    const r = d(m);
    const ids = (reach: Parameters<typeof neighbourhoodItems>[1]) =>
      neighbourhoodItems(
        r.items.find((i) => m.nodes[i.entry].id === `q${n}`)!,
        reach,
      ).map((i) => m.nodes[i.entry].id);
    return ids;
  };
  // The branch point is 7 cards above the leaf: beyond up 5, within 5 + 4.
  const near7 = chain(7);
  assert.ok(!near7({ up: 5, down: 3 }).includes('a'), 'without toBranch the side branch is out of reach');
  const reached = near7({ up: 5, down: 3, toBranch: 4 });
  assert.ok(reached.includes('a') && reached.includes('p'), reached.join());
  // Ten cards above: too far, the reach stays as it was.
  assert.deepEqual(chain(10)({ up: 5, down: 3, toBranch: 4 }).sort(), chain(10)({ up: 5, down: 3 }).sort());
  // Within the reach already: nothing more is taken.
  assert.deepEqual(chain(3)({ up: 5, down: 3, toBranch: 4 }).sort(), chain(3)({ up: 5, down: 3 }).sort());
});
