import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Session } from '../../../src/core/session.js';
import { projectAll } from '../../../src/host/projection/projection.js';
import { projectInWorker, WorkerMismatch } from '../../../src/host/projection/workerProjection.js';
import type { NodeView } from '../../../src/protocol.js';
import { generateSession } from '../../support/generate.js';
import { tempFile } from '../../support/tmp.js';

// The worker is the built bundle (npm test builds first), as the extension runs it.
const SCRIPT = join(__dirname, '..', '..', '..', 'dist', 'projector.js');

describe('projection in a worker thread', () => {
  it('gives the nodes the host would project, in parts and in order, from the bytes the host read', async () => {
    const g = generateSession({ seed: 21, entries: 6000, branchRate: 0.03, compactions: 1, labels: 8, largeOutputRate: 0.01 });
    const file = tempFile(g.text);
    const s = await Session.open(file);
    const live = s.index.live();
    // Appended after the host read the file: not in the snapshot (it comes as a delta).
    appendFileSync(
      file,
      `${JSON.stringify({ type: 'message', id: 'later001', parentId: s.leafId, timestamp: new Date().toISOString(), message: { role: 'user', content: 'later', timestamp: 1 } })}\n`,
    );
    const parts: { from: number; n: number }[] = [];
    const got: NodeView[] = [];
    await projectInWorker(SCRIPT, { file, until: s.readSize, part: 2000 }, { count: live.length, leafId: s.leafId }, (nodes, from) => {
      parts.push({ from, n: nodes.length });
      got.push(...nodes);
    });
    assert.deepStrictEqual(
      parts.map((p) => p.from),
      Array.from({ length: Math.ceil(live.length / 2000) }, (_, i) => i * 2000),
    );
    assert.deepStrictEqual(got, await projectAll(s.index, live, s));
  });

  it('stops before handing over anything when the file is not what the host read', async () => {
    const g = generateSession({ seed: 22, entries: 300 });
    const file = tempFile(g.text);
    const s = await Session.open(file);
    let parts = 0;
    await assert.rejects(
      projectInWorker(SCRIPT, { file, until: s.readSize, part: 100 }, { count: s.index.live().length + 1, leafId: s.leafId }, () => parts++),
      WorkerMismatch,
    );
    assert.equal(parts, 0);
    await assert.rejects(
      projectInWorker(SCRIPT, { file: join(file, 'missing'), until: 10, part: 100 }, { count: 0, leafId: null }, () => parts++),
      /ENOENT|ENOTDIR/,
    );
    await assert.rejects(
      projectInWorker(join(__dirname, 'nope.js'), { file, until: 10, part: 100 }, { count: 0, leafId: null }, () => parts++),
      /missing/,
    );
  });

  it('stops when cancelled (the panel closed): no part after the abort', async () => {
    const g = generateSession({ seed: 23, entries: 8000 });
    const file = tempFile(g.text);
    const s = await Session.open(file);
    const ac = new AbortController();
    let after = 0;
    const run = projectInWorker(
      SCRIPT,
      { file, until: s.readSize, part: 500 },
      { count: s.index.live().length, leafId: s.leafId },
      () => {
        if (ac.signal.aborted) after++;
        else ac.abort();
      },
      ac.signal,
    );
    await assert.rejects(run, /cancelled/);
    assert.equal(after, 0);
  });
});
