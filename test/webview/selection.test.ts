// Selection, back/forward history and keyboard navigation targets (webview/app/selection.ts,
// navigation.ts) on the derived tree of a known session, in Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandedState, isBranchPoint, seekRow, structuralTarget } from '../../webview/app/navigation';
import { resolveSelection, Selection } from '../../webview/app/selection';
import { derive, type Item } from '../../webview/model/derive';
import { TreeModel } from '../../webview/model/treeModel';
import { smallSession } from './fixtures';

function tree(mode: 'default' | 'user-only' = 'default', folded: string[] = []) {
  const s = smallSession();
  const model = new TreeModel();
  model.load(s.nodes, s.leafId);
  const d = derive({ model, mode, folded: new Set(folded), expanded: new Set() });
  const keyIndex = new Map(d.items.map((it) => [it.key, it] as const));
  const item = (key: string) => keyIndex.get(key)!;
  return { model, d, keyIndex, item };
}

test('history: visits go back and forward; entries that are gone are skipped', () => {
  const s = new Selection();
  for (const k of ['a', 'b', 'c', 'd']) {
    s.remember(k);
    s.set(k);
  }
  const all = (_key: string) => true;
  const go = (dir: 'back' | 'forward', exists = all) => {
    const k = s.travel(dir, exists);
    if (k) s.set(k);
    return k;
  };
  assert.equal(go('back'), 'c');
  assert.equal(
    go('back', (k) => k !== 'b'),
    'a',
    'b no longer exists',
  );
  assert.equal(go('back'), undefined, 'nothing earlier');
  assert.equal(go('forward'), 'c');
  assert.equal(go('forward'), 'd');
  assert.equal(go('forward'), undefined);
  s.remember('d');
  assert.equal(go('back'), 'c', 'revisiting the same key adds no step');
  s.remember('x');
  s.set('x');
  assert.equal(go('forward'), undefined, 'a new visit drops the forward history');
});

test('a selection lands on its item, the segment holding its entry, its nearest visible ancestor, or the leaf', () => {
  const { model, d, keyIndex } = tree();
  const at = (key: string, entryId = key) => resolveSelection({ key, entryId }, d, model, keyIndex)?.key;
  assert.equal(at('u2000000'), 'u2000000');
  assert.equal(at('a3000000'), 'seg:r2000000', 'inside a segment');
  assert.equal(at('a2000000'), 'u2000000', 'hidden by the filter: its visible parent');
  assert.equal(at('gone0000'), 'a4000000', 'unknown: the leaf');
  assert.equal(resolveSelection(undefined, d, model, keyIndex)?.key, 'a4000000');
  const users = tree('user-only');
  assert.equal(
    resolveSelection(undefined, users.d, users.model, users.keyIndex)?.key,
    'u3000000',
    'a hidden leaf: its nearest visible ancestor',
  );
});

test('structural moves, seeking rows and expanded state follow the derived tree', () => {
  const { d, item } = tree();
  const a1 = item('a1000000');
  assert.equal(isBranchPoint(a1), true);
  assert.equal(expandedState(a1), true);
  assert.equal(expandedState(item('seg:r2000000')), false);
  assert.equal(expandedState(item('u2000000')), undefined);
  const to = (move: Parameters<typeof structuralTarget>[0], from: Item) => structuralTarget(move, from, d)?.key;
  assert.equal(to('nav.child', a1), 'u2000000', 'the child towards the leaf first');
  assert.equal(to('nav.parent', a1), 'u1000000');
  assert.equal(to('nav.parent', item('u1000000')), undefined, 'a root has no parent item');
  assert.equal(to('nav.nextSibling', item('u2000000')), 'seg:u4000000');
  assert.equal(to('nav.prevSibling', item('u2000000')), undefined);
  assert.equal(to('nav.collapseOrParent', item('a4000000')), 'a1000000', 'the branch point owning the run');
  assert.equal(to('nav.expandOrChild', a1), 'u2000000');
  assert.equal(to('nav.expandOrChild', item('u2000000')), undefined, 'not a branch point');
  assert.equal(seekRow(d.rows, item('a4000000'), isBranchPoint, 1)?.key, 'a1000000', 'wraps around');
  assert.equal(seekRow(d.rows, undefined, (it) => it.seg, -1)?.key, 'seg:u4000000');
  const folded = tree('default', ['a1000000']);
  assert.equal(expandedState(folded.item('a1000000')), false);
});
