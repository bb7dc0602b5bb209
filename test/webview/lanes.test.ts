// The lanes of the row layout (webview/model/lanes.ts) in Node: each row's lane, the lines through it and
// the forks out of it, checked on a hand-made tree and against the tree's own edges on generated ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeView } from '../../src/protocol';
import { derive, type Item } from '../../webview/model/derive';
import { computeLanes } from '../../webview/model/lanes';
import { TreeModel } from '../../webview/model/treeModel';
import { smallSession } from './fixtures';
import { genSession } from './helpers/gen';

function rowsOf(nodes: NodeView[], leafId: string, expand: string[] = []): Item[] {
  const m = new TreeModel();
  m.load(nodes, leafId);
  return derive({ model: m, mode: 'default', folded: new Set(), expanded: new Set(expand) }).rows;
}

test('lanes: the path to the leaf runs down lane 0, a side branch gets lane 1 from its branch point to its rows', () => {
  const s = smallSession();
  const rows = rowsOf(s.nodes, s.leafId);
  const { rows: lanes, width } = computeLanes(rows);
  const at = (key: string) => {
    const r = rows.findIndex((it) => it.key === key);
    return { r, l: lanes[r] };
  };
  // u1 ─ a1 ─┬─ u2 ─ [r2..u3] ─ a4 (leaf, rows first)
  //           └─ [u4, a5] ─ bs ─ x1
  const a1 = at('a1000000');
  assert.deepEqual({ lane: a1.l.lane, forks: a1.l.forks, down: a1.l.down }, { lane: 0, forks: [1], down: true });
  const leaf = at('a4000000');
  assert.deepEqual(
    { lane: leaf.l.lane, up: leaf.l.up, down: leaf.l.down, pass: leaf.l.pass },
    { lane: 0, up: true, down: false, pass: [1] },
    'the side branch passes the leaf row in lane 1',
  );
  const side = at('seg:u4000000');
  assert.equal(side.r, leaf.r + 1, 'the side branch comes after the path (pi order)');
  assert.deepEqual(
    { lane: side.l.lane, up: side.l.up, pass: side.l.pass },
    { lane: 1, up: true, pass: [] },
    'lane 0 is free again',
  );
  assert.equal(at('x1000000').l.lane, 1);
  assert.equal(width, 2);
  // The root comes in from nowhere.
  assert.equal(lanes[0].up, false);
});

test('lanes agree with the tree on generated sessions: every item with a parent has a line to it, no lane is shared', () => {
  for (const seed of [1, 2, 3]) {
    const s = genSession({ n: 3000, branchRate: 0.03, seed });
    const rows = rowsOf(s.nodes, s.leafId);
    const { rows: lanes, width } = computeLanes(rows);
    // Replay: a lane opened for a child (a fork or the parent's own lane) must be where the child is.
    const expect = new Map<Item, number>();
    for (let r = 0; r < rows.length; r++) {
      const it = rows[r];
      const l = lanes[r];
      if (it.parent && it.parent.depth > 0) {
        assert.equal(l.up, true, 'a child is reached by a line');
        assert.equal(expect.get(it), l.lane, 'in the lane its parent opened');
      } else assert.equal(l.up, false);
      assert.ok(!l.pass.includes(l.lane), 'no line passes through its own dot');
      assert.equal(
        new Set([...l.pass, ...l.forks]).size,
        l.pass.length + l.forks.length,
        'a lane carries one branch at a time',
      );
      const kids = [...(it.children ?? [])].sort((a, b) => a.row - b.row);
      if (kids.length) expect.set(kids[0], l.lane);
      kids.slice(1).forEach((c, i) => expect.set(c, l.forks[i]));
    }
    assert.ok(width >= 1 && width < 200, `width ${width}`);
  }
});
