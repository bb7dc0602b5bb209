// The incremental pass for entries appended under the leaf (webview/model/extendTail.ts) against a full
// derive + layout of the same model: whenever it applies, items, rows, positions, segment members,
// visibility and the layout's levels come out the same; and it does apply in pi's everyday shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { NodeView } from '../../src/protocol';
import { FILTER_MODES, type FilterMode } from '../../src/shared/treeFilter';
import { derive, type Derived } from '../../webview/model/derive';
import { extendTail } from '../../webview/model/extendTail';
import { layoutTree, type Layout } from '../../webview/model/layout';
import { TreeModel } from '../../webview/model/treeModel';
import { genSession } from './helpers/gen';

const KINDS: Omit<NodeView, 'id' | 'parentId' | 'time'>[] = [
  { type: 'message', role: 'user', kind: 'user', text: 'user: more' },
  { type: 'message', role: 'assistant', kind: 'assistant', text: 'assistant: done' },
  { type: 'message', role: 'assistant', kind: 'assistant', text: '', noText: true, tools: ['read'] },
  { type: 'message', role: 'toolResult', kind: 'toolResult', text: '[read: a.ts]' },
  { type: 'compaction', kind: 'compaction', text: '[compaction: 80k tokens]' },
  { type: 'model_change', kind: 'model', text: '[model: x]' },
  { type: 'message', role: 'user', kind: 'user', text: 'user: labelled', label: 'mark' },
];

/** Everything a pass produces that the graph, the outline and the selection read. */
function snapshot(d: Derived, l: Layout, n: number) {
  return {
    items: d.items.map((it) => [
      it.key,
      it.seg,
      it.entry,
      it.members?.join(','),
      it.x,
      it.y,
      it.depth,
      it.onPath,
      it.isLeaf,
      it.row,
      it.level,
      it.posinset,
      it.setsize,
      it.parent?.key,
      it.folded,
      it.hidden,
    ]),
    rows: d.rows.map((it) => it.key),
    itemOf: Array.from({ length: n }, (_, i) => d.itemOf[i]?.key ?? null),
    visible: Array.from(d.visible.subarray(0, n)),
    vparent: Array.from(d.vparent.subarray(0, n)),
    visibleCount: d.visibleCount,
    levels: l.levels.map((row) => row.map((it) => it.key)),
    bounds: [l.minX, l.maxX, l.maxY, l.count],
  };
}

interface Case {
  n: number;
  seed: number;
  mode: FilterMode;
  kinds: number[];
  expandAt: number | undefined;
}

/** Runs one case; returns whether the incremental pass applied. */
function check(c: Case): boolean {
  const s = genSession({ n: c.n, seed: c.seed, branchRate: 0.02 });
  const m = new TreeModel();
  m.load(s.nodes, s.leafId);
  const expanded = new Set<string>();
  if (c.expandAt !== undefined) expanded.add(s.nodes[c.expandAt % s.nodes.length].id);
  const none = new Set<string>();
  const d = derive({ model: m, mode: c.mode, folded: none, expanded });
  const l = layoutTree(d.root);
  const oldLeaf = m.leaf;
  const oldSize = m.size;
  let parent = m.leafId;
  let time = Math.max(...s.nodes.map((x) => x.time)) + 1;
  const added: NodeView[] = c.kinds.map((k, j) => {
    const node = { ...KINDS[k], id: `new${j}`, parentId: parent, time: time++ } as NodeView;
    parent = node.id;
    return node;
  });
  const before = snapshot(d, l, oldSize);
  m.append(added);
  m.setLeaf(parent);
  const applied = extendTail({ model: m, mode: c.mode, folded: none, expanded, oldLeaf, oldSize }, d, l);
  const fresh = derive({ model: m, mode: c.mode, folded: none, expanded });
  const fl = layoutTree(fresh.root);
  if (applied) assert.deepEqual(snapshot(d, l, m.size), snapshot(fresh, fl, m.size));
  else assert.deepEqual(snapshot(d, l, oldSize), before, 'a refused pass leaves the derivation as it was');
  return !!applied;
}

test('extendTail: whenever it applies, the result is what a full pass gives', () => {
  let applied = 0;
  let runs = 0;
  fc.assert(
    fc.property(
      fc.record({
        n: fc.integer({ min: 20, max: 400 }),
        seed: fc.integer({ min: 1, max: 1e6 }),
        mode: fc.constantFrom(...FILTER_MODES),
        kinds: fc.array(fc.integer({ min: 0, max: KINDS.length - 1 }), { minLength: 1, maxLength: 4 }),
        expandAt: fc.option(fc.nat(), { nil: undefined }),
      }),
      (c) => {
        runs++;
        if (check(c)) applied++;
      },
    ),
    { numRuns: 400 },
  );
  // The everyday case is common among random appends too: the pass is exercised, not skipped.
  assert.ok(applied > runs / 5, `applied in ${applied} of ${runs}`);
});

test('extendTail applies to pi turns on a long chain: a tool call, its result, the answer', () => {
  for (const kinds of [[1], [2], [3], [2, 3], [2, 3, 1], [0, 2, 3, 2, 3, 1]]) {
    for (const seed of [3, 7, 11])
      assert.equal(
        check({ n: 300, seed, mode: 'default', kinds, expandAt: undefined }),
        true,
        `kinds ${kinds.join(',')} seed ${seed}`,
      );
  }
});

test('extendTail refuses what changes the shape: a labelled entry, a compaction, a new branch', () => {
  assert.equal(check({ n: 300, seed: 3, mode: 'default', kinds: [0, 6, 1], expandAt: undefined }), false);
  assert.equal(check({ n: 300, seed: 3, mode: 'default', kinds: [1, 4, 1], expandAt: undefined }), false);
  // an entry that is not under the leaf: a new branch point
  const s = genSession({ n: 200, seed: 5 });
  const m = new TreeModel();
  m.load(s.nodes, s.leafId);
  const none = new Set<string>();
  const d = derive({ model: m, mode: 'default', folded: none, expanded: none });
  const l = layoutTree(d.root);
  const oldLeaf = m.leaf;
  const oldSize = m.size;
  m.append([{ ...KINDS[1], id: 'side', parentId: s.nodes[150].id, time: 1e15 } as NodeView]);
  m.setLeaf('side');
  assert.equal(extendTail({ model: m, mode: 'default', folded: none, expanded: none, oldLeaf, oldSize }, d, l), false);
});
