// Pure webview logic in Node: hidden branches leave the derived view (never the current path),
// family links become link nodes under the entry where the sessions part, and a family that lost a
// member drops its node.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FamilyLink } from '../../src/protocol';
import { applyLinks, isLink, linkNode } from '../../webview/family/familyNodes';
import { derive } from '../../webview/model/derive';
import { effectiveHidden, hiddenMask } from '../../webview/model/hiddenBranches';
import { TreeModel } from '../../webview/model/treeModel';
import { smallSession } from './fixtures';

const none = new Set<string>();
const loaded = () => {
  const s = smallSession();
  const m = new TreeModel();
  m.load(s.nodes, s.leafId);
  return m;
};
const visibleIds = (m: TreeModel, hidden?: Uint8Array) => {
  const d = derive({ model: m, mode: 'all', folded: none, expanded: new Set(m.nodes.map((n) => n.id)), hidden });
  return m.nodes.filter((_, i) => d.visible[i]).map((n) => n.id);
};

test('a hidden branch and everything below it leave the view; a mark on the current path hides nothing', () => {
  const m = loaded();
  // u4 starts the dead end: u4 a5 bs x1 go
  const mask = hiddenMask(m, new Set(['u4000000']));
  assert.ok(mask);
  assert.deepEqual(
    visibleIds(m, mask).filter((id) => !visibleIds(m).includes(id)),
    [],
  );
  assert.deepEqual(
    visibleIds(m).filter((id) => !visibleIds(m, mask).includes(id)),
    ['u4000000', 'a5000000', 'bs000000', 'x1000000'],
  );
  // u2 is on the path to the leaf: the mark is kept but does nothing
  assert.equal(hiddenMask(m, new Set(['u2000000'])), undefined);
  assert.deepEqual(effectiveHidden(m, new Set(['u2000000', 'u4000000', 'gone0000'])), ['u4000000']);
  // once the leaf moves onto the hidden branch, it is shown
  m.setLeaf('x1000000');
  assert.equal(hiddenMask(m, new Set(['u4000000'])), undefined);
});

test('family links become link nodes under the entry they part at; a stale one is dropped', () => {
  const m = loaded();
  const link = (token: string, at: string | null, relation: FamilyLink['relation'] = 'child'): FamilyLink => ({
    token,
    relation,
    at,
    title: `session ${token}`,
    fileName: `${token}.jsonl`,
    messages: 4,
    bytes: 2048,
    created: Date.UTC(2026, 10, 21),
  });
  applyLinks(m, [link('aaa111', 'a1000000'), link('bbb222', null, 'parent')]);
  const n = m.nodes[m.index.get('link:aaa111')!];
  assert.ok(isLink(n));
  assert.equal(m.nodes[m.parent[m.index.get('link:aaa111')!]].id, 'a1000000');
  // among the entry's children by time: made after them
  assert.deepEqual(
    m.childrenOf(m.index.get('a1000000')!).map((i) => m.nodes[i].id),
    ['u2000000', 'u4000000', 'link:aaa111'],
  );
  assert.equal(n.link?.facts, 'fork · 4 messages · 2 KB');
  assert.equal(m.parent[m.index.get('link:bbb222')!], -1, 'a parent link before the first entry is a root');
  assert.equal(linkNode(link('ccc', null, 'parent'), m).text, '↰ from: session ccc');
  // links pass the default filter, so they are drawn
  const d = derive({ model: m, mode: 'default', folded: none, expanded: none });
  assert.equal(d.visible[m.index.get('link:aaa111')!], 1);
  // the fork went away: its node goes too, the entries stay
  const size = m.size;
  applyLinks(m, [link('bbb222', null, 'parent')]);
  assert.equal(m.index.has('link:aaa111'), false);
  assert.equal(m.size, size - 1);
  assert.equal(m.leafId, 'a4000000');
});
