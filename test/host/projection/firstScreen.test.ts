// The first screen of a big session (src/host/projection/firstScreen.ts): the leaf's path, the branches
// leaving it, projected like the whole tree, bounded in size.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { Session } from '../../../src/core/session/session.js';
import { openTail } from '../../../src/core/index/tailSession.js';
import { FIRST_SCREEN_PATH, firstScreenNodes } from '../../../src/host/projection/firstScreen.js';
import { projectAll } from '../../../src/host/projection/projection.js';
import { generateSession } from '../../support/generate.js';

it('holds the last FIRST_SCREEN_PATH entries of the current path, the first entries of each branch leaving it, and nothing past 2,000', async () => {
  const g = generateSession({ seed: 13, entries: 6000, branchRate: 0.15, largeOutputRate: 0 });
  const s = await Session.inMemory(g.text);
  const nodes = await firstScreenNodes(s);
  const ids = new Set(nodes.map((n) => n.id));
  assert.equal(ids.size, nodes.length, 'each entry once');
  assert.ok(nodes.length <= 2000, `${nodes.length} nodes`);
  const path = s.index.branch(s.leafId);
  const tail = path.slice(-FIRST_SCREEN_PATH);
  for (const r of tail) assert.ok(ids.has(r.id), `path entry ${r.id}`);
  assert.ok(
    !ids.has(path[path.length - FIRST_SCREEN_PATH - 1].id),
    'the path above the first screen is left for the whole tree',
  );
  // Every branch leaving the shown path starts on the first screen.
  const onPath = new Set(tail.map((r) => r.id));
  let branches = 0;
  for (const r of tail)
    for (const c of s.index.childrenOf(r.id))
      if (!onPath.has(c.id)) {
        branches++;
        assert.ok(ids.has(c.id), `branch ${c.id} leaving ${r.id}`);
      }
  assert.ok(branches >= 3, `the sample has branches beside the path (${branches})`);
  // Each node hangs under another of the screen, except the top of the path.
  const top = nodes.filter((n) => n.parentId === null || !ids.has(n.parentId));
  assert.deepEqual(
    top.map((n) => n.id),
    [tail[0].id],
  );
  // The same projection as the whole tree's (tool results after their calls: file order).
  const all = new Map((await projectAll(s.index, s.index.live(), s)).map((n) => [n.id, n]));
  let same = 0;
  for (const n of nodes) {
    const w = all.get(n.id)!;
    assert.equal(n.kind, w.kind);
    assert.equal(n.parentId, w.parentId);
    if (n.text === w.text) same++;
  }
  assert.ok(same >= nodes.length * 0.98, `${same} of ${nodes.length} titles as in the whole tree`);
});

it('a session without a leaf has no first screen', async () => {
  const g = generateSession({ seed: 9, entries: 10 });
  const s = await Session.inMemory(`${JSON.stringify(g.header)}\n`);
  assert.deepEqual(await firstScreenNodes(s), []);
});

it("read from the file's end (before the whole file is read), the first screen is the whole file's", async () => {
  const g = generateSession({ seed: 12, entries: 20_000, branchRate: 0.05 });
  const dir = mkdtempSync(join(tmpdir(), 'pi-tree-preview-'));
  try {
    const file = join(dir, 's.jsonl');
    writeFileSync(file, g.text);
    const tail = (await openTail(file))!;
    assert.ok(tail.index.size < 20_000 / 2, `the tail holds ${tail.index.size} entries`);
    const whole = await firstScreenNodes(await Session.open(file));
    assert.ok(whole.length >= FIRST_SCREEN_PATH, `${whole.length} nodes`);
    assert.deepEqual(await firstScreenNodes(tail), whole);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
