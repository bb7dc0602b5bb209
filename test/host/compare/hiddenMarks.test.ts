// Hidden-branch marks live in the workspace state (a Memento), per session id, never in pi's file; odd
// session ids (a hostile header) stay keys; old or broken state is read as no marks.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { HiddenMarks } from '../../../src/host/compare/hiddenMarks.js';
import { WorkspaceState } from '../../../src/host/platform/workspaceState.js';

class Memento {
  data = new Map<string, unknown>();
  keys(): readonly string[] {
    return [...this.data.keys()];
  }
  get<T>(key: string, fallback?: T): T | undefined {
    return this.data.has(key) ? (structuredClone(this.data.get(key)) as T) : fallback;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.data.set(key, structuredClone(value));
  }
}

it('marks per session, unmarking, odd ids, broken state', async () => {
  const m = new Memento();
  const marks = new HiddenMarks(new WorkspaceState(m));
  assert.deepEqual(await marks.set('sess-1', 'a1', true), ['a1']);
  assert.deepEqual(await marks.set('sess-1', 'b2', true), ['a1', 'b2']);
  assert.deepEqual(await marks.set('__proto__', 'c3', true), ['c3']);
  assert.deepEqual(marks.get('sess-1'), ['a1', 'b2']);
  assert.deepEqual(marks.get('__proto__'), ['c3']);
  assert.deepEqual(marks.get('constructor'), []);
  assert.deepEqual(await marks.set('sess-1', 'a1', false), ['b2']);
  assert.deepEqual(new HiddenMarks(new WorkspaceState(m)).get('sess-1'), ['b2'], 'kept in the state');
  m.data.set('piTree.hiddenBranches', { 'sess-1': ['x'] });
  assert.deepEqual(new HiddenMarks(new WorkspaceState(m)).get('sess-1'), [], 'an old shape is no marks');
  m.data.set('piTree.hiddenBranches', [['sess-1', ['x', 5, null]], 'junk', [7, []]]);
  assert.deepEqual(new HiddenMarks(new WorkspaceState(m)).get('sess-1'), ['x']);
});
