import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Session } from '../../../src/core/session/session.js';
import { openTail } from '../../../src/core/index/tailSession.js';
import { firstScreenNodes } from '../../../src/host/projection/firstScreen.js';
import { projectAll } from '../../../src/host/projection/projection.js';
import { useRun, WorkerMismatch, WorkerRun, type WorkerTask } from '../../../src/host/projection/workerProjection.js';
import { unpackNodes } from '../../../src/packedNodes.js';
import type { NodeView } from '../../../src/protocol.js';
import { generateSession } from '../../support/generate.js';
import { tempFile } from '../../support/tmp.js';

/** A worker run drained as the panel's snapshot source drains it: only when it read what the host read. */
const projectInWorker = (
  script: string,
  task: WorkerTask,
  expect: { count: number; leafId: string | null },
  onPart: Parameters<typeof useRun>[2],
  signal?: AbortSignal,
) => useRun(new WorkerRun(script, task, signal), { ...expect, size: task.until }, onPart);

// The worker is the built bundle (npm test builds first), as the extension runs it.
const SCRIPT = join(__dirname, '..', '..', '..', 'dist', 'projector.js');

describe('projection in a worker thread', () => {
  it("asked for it, first posts the first screen read from the file's end, then projects the whole file", async () => {
    const g = generateSession({ seed: 22, entries: 3000, branchRate: 0.05, labels: 5 });
    const file = tempFile(g.text);
    const s = await Session.open(file);
    const run = new WorkerRun(SCRIPT, { file, part: 1000, firstScreen: true });
    const preview = (await run.firstScreen)!;
    assert.ok(preview, 'a first screen');
    const tail = (await openTail(file))!;
    assert.deepStrictEqual(preview, {
      sessionId: s.header.id,
      cwd: String(s.header.cwd),
      name: tail.name,
      leafId: s.leafId,
      nodes: await firstScreenNodes(tail),
    });
    let n = 0;
    await useRun(run, { count: s.index.size, leafId: s.leafId }, (part) => (n += part.count));
    assert.equal(n, s.index.size, 'then the whole snapshot');
    const plain = new WorkerRun(SCRIPT, { file, part: 1000 });
    assert.equal(await plain.firstScreen, undefined, 'not asked for: none');
    await useRun(plain, { count: s.index.size, leafId: s.leafId }, () => {});
  });

  it('gives the nodes the host would project, packed, in parts and in order, from the bytes the host read', async () => {
    const g = generateSession({
      seed: 21,
      entries: 6000,
      branchRate: 0.03,
      compactions: 1,
      labels: 8,
      largeOutputRate: 0.01,
    });
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
    await projectInWorker(
      SCRIPT,
      { file, until: s.readSize, part: 2000 },
      { count: live.length, leafId: s.leafId },
      (part, from) => {
        const nodes = unpackNodes(part.packed);
        assert.equal(part.count, nodes.length);
        parts.push({ from, n: nodes.length });
        got.push(...nodes);
      },
    );
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
      projectInWorker(
        SCRIPT,
        { file, until: s.readSize, part: 100 },
        { count: s.index.live().length + 1, leafId: s.leafId },
        () => parts++,
      ),
      WorkerMismatch,
    );
    assert.equal(parts, 0);
    await assert.rejects(
      projectInWorker(
        SCRIPT,
        { file: join(file, 'missing'), until: 10, part: 100 },
        { count: 0, leafId: null },
        () => parts++,
      ),
      /ENOENT|ENOTDIR/,
    );
    await assert.rejects(
      projectInWorker(
        join(__dirname, 'nope.js'),
        { file, until: 10, part: 100 },
        { count: 0, leafId: null },
        () => parts++,
      ),
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

  it('started before the host read the file (as a panel opens), keeps its parts until they are taken', async () => {
    const g = generateSession({ seed: 24, entries: 7000, branchRate: 0.03, labels: 4 });
    const file = tempFile(g.text);
    const run = new WorkerRun(SCRIPT, { file, part: 1000 });
    const head = await run.head;
    const s = await Session.open(file);
    const live = s.index.live();
    assert.deepStrictEqual(head, { count: live.length, leafId: s.leafId, size: s.readSize });
    const got: NodeView[] = [];
    const froms: number[] = [];
    await useRun(run, { count: live.length, leafId: s.leafId, size: s.readSize }, (p, from) => {
      froms.push(from);
      got.push(...unpackNodes(p.packed));
    });
    assert.deepStrictEqual(
      froms,
      Array.from({ length: Math.ceil(live.length / 1000) }, (_, i) => i * 1000),
    );
    assert.deepStrictEqual(got, await projectAll(s.index, live, s));
  });

  it('held (as a panel opens a big file), posts its first screen and reads the whole file only when told to go', async () => {
    const g = generateSession({ seed: 26, entries: 3000, branchRate: 0.05 });
    const file = tempFile(g.text);
    const run = new WorkerRun(SCRIPT, { file, part: 1000, firstScreen: true, hold: true });
    let head: unknown;
    void run.head.then((h) => (head = h));
    assert.ok(await run.firstScreen, 'the first screen, before go');
    // A run that does not hold, started only now, reads the whole file: one that had not waited would
    // have read it by then too (it began earlier, with the same work).
    const plain = new WorkerRun(SCRIPT, { file, part: 1000 });
    await plain.head;
    plain.stop();
    assert.equal(head, undefined, 'nothing read of the whole file yet');
    // Appended before go: in what the held run reads.
    appendFileSync(
      file,
      `${JSON.stringify({ type: 'label', id: 'held0001', parentId: g.leafId, timestamp: new Date().toISOString(), targetId: g.leafId, label: 'after' })}\n`,
    );
    run.go();
    run.go(); // a second go changes nothing
    const s = await Session.open(file);
    assert.deepStrictEqual(await run.head, { count: s.index.live().length, leafId: s.leafId, size: s.readSize });
    const got: NodeView[] = [];
    await useRun(run, { count: s.index.live().length, leafId: s.leafId, size: s.readSize }, (p) =>
      got.push(...unpackNodes(p.packed)),
    );
    assert.deepStrictEqual(got, await projectAll(s.index, s.index.live(), s));
    // Stopped while held (the panel closed before its webview was ready): the worker ends, nothing is read.
    const held = new WorkerRun(SCRIPT, { file, part: 1000, firstScreen: true, hold: true });
    await held.firstScreen;
    held.stop();
    await assert.rejects(held.head, /stopped/);
  });

  it('an early run is not used when the file grew before the host read it', async () => {
    const g = generateSession({ seed: 25, entries: 3000 });
    const file = tempFile(g.text);
    const run = new WorkerRun(SCRIPT, { file, part: 500 });
    await run.head;
    // One more whole line after the worker read the file: its size differs from the host's.
    appendFileSync(
      file,
      `${JSON.stringify({ type: 'label', id: 'lab00001', parentId: g.leafId, timestamp: new Date().toISOString(), targetId: g.leafId, label: 'x' })}\n`,
    );
    const s = await Session.open(file);
    let parts = 0;
    await assert.rejects(
      useRun(run, { count: s.index.live().length, leafId: s.leafId, size: s.readSize }, () => parts++),
      WorkerMismatch,
    );
    assert.equal(parts, 0);
  });
});
