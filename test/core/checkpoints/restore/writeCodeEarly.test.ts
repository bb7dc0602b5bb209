// writeCodeEarly answers once the files are written and records where the code is after, holding the
// project's restore lock until then: what comes next (an undo, another restore) waits for the record,
// and a refusal before any file is written is still its answer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  codeBetween,
  PlanChangedError,
  planCode,
  undoCode,
  writeCode,
  writeCodeEarly,
  type SessionCode,
} from '../../../../src/core/checkpoints/index.js';
import { simProject } from '../../../support/simProject.js';

async function twoTurns() {
  const p = simProject('pi-cp-early-');
  const t1 = await p.sim.turn('one', [{ name: 'write', args: { path: 'a.txt', content: 'a1\n' } }], () =>
    p.put('a.txt', 'a1\n'),
  );
  await p.sim.turn('two', [{ name: 'write', args: { path: 'a.txt', content: 'a2\n' } }], () => p.put('a.txt', 'a2\n'));
  await p.sim.capture?.close();
  return { t1, code: p.code, read: p.read };
}

const lastLine = (sc: SessionCode) => sc.checkpoints.store!.manifest(sc.checkpoints.sessionId!).at(-1);

describe('writeCodeEarly', () => {
  it('answers with the files written, then records where the code is; an undo meanwhile waits for it', async () => {
    const p = await twoTurns();
    const sc = await p.code();
    const before = lastLine(sc);
    const { recorded, ...r } = await writeCodeEarly(sc, await planCode(sc, p.t1.answer), {});
    assert.deepEqual(
      r.written.map((f) => f.replace(/.*\//, '')),
      ['a.txt'],
    );
    assert.equal(p.read('a.txt'), 'a1\n', 'the files are written when it answers');
    assert.deepEqual(lastLine(sc), before, 'the record is not yet written when it answers');
    // Asked for at once: the undo takes the lock only after the record.
    const undone = undoCode(sc);
    const after = await recorded;
    assert.deepEqual(after.warnings, []);
    assert.ok(after.ms >= 0);
    const u = await undone;
    assert.deepEqual(u.conflicts ?? [], []);
    assert.equal(p.read('a.txt'), 'a2\n');
    const lines = sc.checkpoints.store!.manifest(sc.checkpoints.sessionId!);
    assert.deepEqual(
      lines.slice(-2).map((l) => (l.kind === 'restore' ? l.step : l.kind)),
      ['restore', 'undo'],
      'the restore is recorded before the undo',
    );
  });

  it('a plan or Move here asked while the record is under way waits for it (a restore through pi answers first)', async () => {
    const p = await twoTurns();
    const sc = await p.code();
    const t2 = sc.session.leafId!;
    const { recorded } = await writeCodeEarly(sc, await planCode(sc, p.t1.answer), {});
    // Another reader of the same project (the editor after a restore pi wrote, another CLI): it has
    // only the manifest, which does not yet say where the code is.
    const [between, back] = await Promise.all([
      p.code().then((other) => codeBetween(other, t2)),
      p.code().then((other) => planCode(other, t2)),
    ]);
    await recorded;
    assert.equal(between, true, 'the code at the node the restore left differs: Move here asks');
    assert.deepEqual(
      back.items.map((i) => [i.key, i.action]),
      [['a.txt', 'modify']],
      'the plan back starts where the restore put the code',
    );
  });

  it('a plan the code moved away from is refused before any file is written, as writeCode refuses it', async () => {
    const p = await twoTurns();
    const sc = await p.code();
    const plan = await planCode(sc, p.t1.answer);
    await writeCode(sc, plan, {});
    await undoCode(sc);
    await assert.rejects(writeCodeEarly(sc, plan, {}), PlanChangedError);
    assert.equal(p.read('a.txt'), 'a2\n');
  });
});
