// The workspace-state keys: what a key holds reads back; a value of another shape (an older version's,
// or damaged) reads as the default instead of reaching code that trusts its type.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { WorkspaceState } from '../../../src/host/platform/workspaceState.js';
import { Memento } from '../../support/vscode/api.js';

it('values of the right shape read back; others read as the default', async () => {
  const m = new Memento();
  const s = new WorkspaceState(m);
  assert.equal(s.get('scope', 'folder'), 'folder', 'nothing stored');
  await s.update('scope', 'all');
  await s.update('sort', 'name');
  await s.update('panels', { t1: '/a.jsonl' });
  assert.equal(new WorkspaceState(m).get('scope', 'folder'), 'all');
  assert.equal(new WorkspaceState(m).get('sort', 'threaded'), 'name');
  assert.deepEqual(new WorkspaceState(m).get('panels', {}), { t1: '/a.jsonl' });
  assert.deepEqual(
    [...m.keys()].sort(),
    ['piTree.panels', 'piTree.scope', 'piTree.sort'],
    "pi-tree's keys as older versions wrote them",
  );
  await m.update('piTree.scope', 'everything');
  await m.update('piTree.sort', 3);
  await m.update('piTree.filter', { q: 1 });
  await m.update('piTree.panels', { t1: 5 });
  await m.update('piTree.hiddenBranches', { s: ['x'] });
  assert.equal(s.get('scope', 'folder'), 'folder');
  assert.equal(s.get('sort', 'recent'), 'recent');
  assert.equal(s.get('filter', ''), '');
  assert.deepEqual(s.get('panels', {}), {});
  assert.deepEqual(s.get('hiddenBranches', []), []);
});
