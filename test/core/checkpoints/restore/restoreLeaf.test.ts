// The conversation's move around a restore is the caller's: writeCode with a leaf writes the files and
// leaves the journal done with the move due; the caller records where the leaf landed, or has the files
// put back; finishPending hands back a move a kill left due; undo and redo say which move is due. The
// core calls nothing of the caller's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  finishPending,
  pendingJournals,
  planCode,
  putCodeBack,
  recordLeafMoved,
  redoCode,
  undoCode,
  writeCode,
} from '../../../../src/core/checkpoints/index.js';
import { journals } from '../../../../src/core/checkpoints/restore/restoreJournal.js';
import { Session } from '../../../../src/core/session/session.js';
import { simProject } from '../../../support/simProject.js';

async function project() {
  const { sim, put, read, code } = simProject('pi-cp-leaf-');
  const t1 = await sim.turn('one', [{ name: 'write', args: { path: 'a.txt', content: 'a1\n' } }], () =>
    put('a.txt', 'a1\n'),
  );
  const t2 = await sim.turn('two', [{ name: 'write', args: { path: 'a.txt', content: 'a2\n' } }], () =>
    put('a.txt', 'a2\n'),
  );
  const journal = (sc: { restoresDir: string }) => journals(sc.restoresDir)[0];
  return { sim, read, t1, t2, code, journal };
}

describe("the conversation's move around a restore is the caller's", () => {
  it('the files first, the move due; recorded where the leaf landed; undo and redo say which move is due', async () => {
    const p = await project();
    const sc = await p.code();
    const r = await writeCode(sc, await planCode(sc, p.t1.answer), {
      leaf: { targetId: p.t1.user, fromId: p.t2.answer },
    });
    assert.equal(p.read('a.txt'), 'a1\n', 'the files are written');
    assert.equal(r.journal.state, 'done');
    assert.deepEqual(r.journal.leaf, { targetId: p.t1.user, moved: false, fromId: p.t2.answer }, 'the move is due');
    assert.deepEqual(
      pendingJournals(sc).map((j) => j.id),
      [r.journal.id],
      'a kill now leaves it for the next restore of this session',
    );
    // (the caller moved the leaf; pi's rule put it elsewhere than asked)
    assert.deepEqual(await recordLeafMoved(sc, r.journal, 'landed01'), { warnings: [] });
    assert.deepEqual(p.journal(sc).leaf, { targetId: 'landed01', moved: true, fromId: p.t2.answer });
    assert.deepEqual(pendingJournals(sc), []);
    const again = await recordLeafMoved(sc, r.journal, 'landed01');
    assert.match(again.warnings.join(), /no longer waits/, 'recorded once');
    const u = await undoCode(sc);
    assert.equal(p.read('a.txt'), 'a2\n');
    assert.deepEqual(
      u.leaf,
      { to: p.t2.answer, expect: 'landed01' },
      'undo: back where it was, only from where it landed',
    );
    const rd = await redoCode(sc);
    assert.equal(p.read('a.txt'), 'a1\n');
    assert.deepEqual(rd.leaf, { to: 'landed01', expect: p.t2.answer });
  });

  it('a restore without the conversation says no move is due, then or on undo', async () => {
    const p = await project();
    const sc = await p.code();
    const r = await writeCode(sc, await planCode(sc, p.t1.answer), {});
    assert.equal(r.journal.leaf, undefined);
    assert.deepEqual(pendingJournals(sc), []);
    assert.equal((await undoCode(sc)).leaf, undefined);
  });

  it('a move that could not be made: the files go back, the journal says undone, and the code is recorded back where it was', async () => {
    const p = await project();
    let sc = await p.code();
    const plan = await planCode(sc, p.t1.answer);
    const r = await writeCode(sc, plan, { leaf: { targetId: p.t1.answer, fromId: p.t2.answer } });
    assert.equal(p.read('a.txt'), 'a1\n');
    const back = await putCodeBack(sc, r.journal);
    assert.deepEqual(back, { written: [plan.items[0].path], skipped: [], warnings: [] });
    assert.equal(p.read('a.txt'), 'a2\n');
    assert.equal(p.journal(sc).state, 'undone');
    assert.deepEqual(pendingJournals(sc), []);
    sc = await p.code();
    const latest = sc.checkpoints.latest();
    assert.equal(latest?.kind === 'restore' && latest.step, 'undo', 'the manifest says the code went back');
    const again = await planCode(sc, p.t1.answer);
    assert.deepEqual(
      again.items.map((i) => [i.key, i.action]),
      plan.items.map((i) => [i.key, i.action]),
      'the same move plans the same files',
    );
    await assert.rejects(putCodeBack(sc, r.journal), /no longer waits/, 'put back once');
  });

  it("finishPending hands back this session's moves a kill left due, and moves nothing itself", async () => {
    const p = await project();
    const sc = await p.code();
    const r = await writeCode(sc, await planCode(sc, p.t1.answer), {
      leaf: { targetId: p.t1.answer, fromId: p.t2.answer },
    });
    const leafLines = () =>
      readFileSync(p.sim.file, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"type":"leaf"')).length;
    const f = await finishPending(await p.code());
    assert.deepEqual(
      f.leafDue.map((j) => [j.id, j.leaf?.targetId]),
      [[r.journal.id, p.t1.answer]],
    );
    assert.deepEqual(f.finished, [], 'its files were written and recorded: none is finished now');
    assert.equal(leafLines(), 0, 'the session file is the caller’s');
    assert.equal((await Session.open(p.sim.file)).leafId, p.t2.answer);
  });
});
