// After a restore that left some files of its plan as they were (not restorable: a folder on the way is a
// link now; or kept as the user's), where the code is is the node with those files not at it: the next
// plan, to the same node or another, names them again (not restorable with its reason, or a conflict),
// so the plan and `diff` agree, and the same holds after an undo and a redo.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  codeBetween,
  diffCode,
  planCode,
  redoCode,
  undoCode,
  writeCode,
} from '../../../../src/core/checkpoints/index.js';
import { Session } from '../../../../src/core/session/session.js';
import { simProject } from '../../../support/simProject.js';

const write = (path: string, content: string) => ({ name: 'write', args: { path, content } });

/** A project whose conf/ the agent wrote twice, then the user made conf a link to a folder outside. */
async function linkedConf() {
  const p = simProject('pi-cp-notat-');
  const t1 = await p.sim.turn('conf', [write('conf/app.txt', 'v1\n')], () => p.put('conf/app.txt', 'v1\n'));
  const t2 = await p.sim.turn('conf 2', [write('conf/app.txt', 'v2\n')], () => p.put('conf/app.txt', 'v2\n'));
  const outside = join(p.root, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'app.txt'), 'not the project\n');
  rmSync(join(p.cwd, 'conf'), { recursive: true });
  symlinkSync(outside, join(p.cwd, 'conf'));
  return { ...p, t1: t1.answer, t2: t2.answer, outside };
}

const actionOf = (plan: Awaited<ReturnType<typeof planCode>>, key: string) =>
  plan.items.find((i) => i.key === key)?.action;

describe('files a restore did not bring to its node are named again', () => {
  it('a file refused beyond a link at a restore: the next plan to that node names it, as diff does', async () => {
    const p = await linkedConf();
    let sc = await p.code();
    const first = await planCode(sc, p.t1);
    assert.equal(actionOf(first, 'conf/app.txt'), 'unrestorable');
    await writeCode(sc, first, { force: true });
    sc = await p.code();
    const diff = await diffCode(sc, p.t1, 'now');
    assert.ok(
      diff.some((c) => c.key === 'conf/app.txt'),
      `diff names it: ${diff.map((c) => c.key)}`,
    );
    const again = await planCode(sc, p.t1);
    const item = again.items.find((i) => i.key === 'conf/app.txt');
    assert.equal(item?.action, 'unrestorable', 'the plan names it again, as diff does');
    assert.match(item!.reason!, /conf is a symbolic link now/);
    // and a restore to the same node again still leaves it named
    await writeCode(sc, again, { force: true });
    sc = await p.code();
    assert.equal(actionOf(await planCode(sc, p.t1), 'conf/app.txt'), 'unrestorable');
    assert.equal(readFileSync(join(p.outside, 'app.txt'), 'utf8'), 'not the project\n', 'nothing written through');
  });

  it('once the link is gone, the file a restore could not write is a conflict, not taken for the agent’s', async () => {
    const p = await linkedConf();
    let sc = await p.code();
    await writeCode(sc, await planCode(sc, p.t1), { force: true });
    rmSync(join(p.cwd, 'conf'));
    p.put('conf/app.txt', 'the user’s own\n');
    sc = await p.code();
    const plan = await planCode(sc, p.t1);
    const item = plan.items.find((i) => i.key === 'conf/app.txt');
    assert.equal(item?.action, 'conflict', 'pi-tree cannot tell it is the agent’s at the node');
  });

  it('after an undo and a redo of that restore, the plan still names the file', async () => {
    const p = await linkedConf();
    let sc = await p.code();
    await writeCode(sc, await planCode(sc, p.t1), { force: true });
    sc = await p.code();
    await undoCode(sc);
    sc = await p.code();
    assert.equal(actionOf(await planCode(sc, p.t1), 'conf/app.txt'), 'unrestorable', 'after the undo');
    await redoCode(sc);
    sc = await p.code();
    const plan = await planCode(sc, p.t1);
    assert.equal(actionOf(plan, 'conf/app.txt'), 'unrestorable', 'after the redo');
    assert.ok((await diffCode(sc, p.t1, 'now')).some((c) => c.key === 'conf/app.txt'));
  });

  it('a file kept at a restore to a node is a conflict when a restore to that node comes again', async () => {
    const p = simProject('pi-cp-notat-');
    const t1 = await p.sim.turn('one', [write('a.txt', 'a1\n')], () => p.put('a.txt', 'a1\n'));
    await p.sim.turn('two', [write('a.txt', 'a2\n'), write('b.txt', 'b2\n')], () => {
      p.put('a.txt', 'a2\n');
      p.put('b.txt', 'b2\n');
    });
    p.put('a.txt', 'a2 and mine\n');
    let sc = await p.code();
    const back = await planCode(sc, t1.answer);
    assert.equal(actionOf(back, 'a.txt'), 'conflict');
    await writeCode(sc, back, { resolutions: new Map([['a.txt', 'mine']]) });
    assert.equal(p.read('a.txt'), 'a2 and mine\n', 'kept');
    await (await Session.open(p.sim.file)).moveTo(t1.answer); // the conversation moved with the code
    sc = await p.code();
    const diff = await diffCode(sc, t1.answer, 'now');
    assert.deepEqual(
      diff.map((c) => c.key),
      ['a.txt'],
    );
    assert.equal(await codeBetween(sc, t1.answer), true, 'Move here plans rather than moving the conversation alone');
    const again = await planCode(sc, t1.answer);
    const a = again.items.find((i) => i.key === 'a.txt');
    assert.equal(a?.action, 'conflict', 'the plan names the kept file, as diff does');
    assert.match(a!.reason!, /kept your version/);
    assert.equal(actionOf(again, 'b.txt'), undefined, 'b.txt is at the node already');
  });
});
