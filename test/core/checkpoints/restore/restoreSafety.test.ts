// A restore never loses the user's work and knows where the code is afterwards: a merge keeps the user's
// lines even when the latest checkpoint already holds them, a file kept at a restore is a conflict the
// next time it would be overwritten, an undo puts the code (and the conversation) back where it was so
// the next plan and `diff` agree, and two restores of one project never interleave.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { diffCode, planCode, undoCode, writeCode } from '../../../../src/core/checkpoints/index.js';
import { PlanChangedError } from '../../../../src/core/checkpoints/restore/restoreErrors.js';
import { Session } from '../../../../src/core/session/session.js';
import { simProject } from '../../../support/simProject.js';

const CLI = join(__dirname, '..', '..', '..', '..', 'dist', 'cli.js');

function project() {
  const { root, cwd, agentDir, sim, put, read, code } = simProject('pi-cp-safe-');
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [CLI, ...args], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, PI_CODING_AGENT_DIR: agentDir },
    });
  return { root, cwd, agentDir, sim, put, read, cli, code };
}

const write = (path: string, content: string) => ({ name: 'write', args: { path, content } });

describe('restores keep the user’s work', () => {
  it('a merge keeps the line the user added, also when the latest checkpoint already holds it', async () => {
    const p = project();
    const t1 = await p.sim.turn('write m', [write('m.txt', 'one\ntwo\nthree\n')], () =>
      p.put('m.txt', 'one\ntwo\nthree\n'),
    );
    await p.sim.turn(
      'edit m',
      [{ name: 'edit', args: { path: 'm.txt', edits: [{ oldText: 'one', newText: 'ONE' }] } }],
      () => p.put('m.txt', 'ONE\ntwo\nthree\n'),
    );
    p.put('m.txt', 'ONE\ntwo\nthree\nmine\n'); // the user's line, saved between turns
    await p.sim.turn('another file', [write('x.txt', 'x\n')], () => p.put('x.txt', 'x\n')); // its 'before' snapshot holds the user's line
    const sc = await p.code();
    const plan = await planCode(sc, t1.answer);
    const m = plan.items.find((i) => i.key === 'm.txt')!;
    assert.equal(m.action, 'conflict', 'the user changed it since the agent last wrote it');
    const r = await writeCode(sc, plan, { resolutions: new Map([['m.txt', 'merge']]) });
    assert.equal(p.read('m.txt'), 'one\ntwo\nthree\nmine\n', "the agent's edit undone, the user's line kept");
    assert.deepEqual(r.merged, []);
  });

  it('a merge where both changed the same line writes conflict markers and names the file', async () => {
    const p = project();
    const t1 = await p.sim.turn('write m', [write('m.txt', 'a\nb\n')], () => p.put('m.txt', 'a\nb\n'));
    await p.sim.turn('edit m', [write('m.txt', 'a\nB\n')], () => p.put('m.txt', 'a\nB\n'));
    p.put('m.txt', 'a\nmy b\n');
    const sc = await p.code();
    const plan = await planCode(sc, t1.answer);
    const r = await writeCode(sc, plan, { resolutions: new Map([['m.txt', 'merge']]) });
    assert.match(p.read('m.txt'), /^a\n<<<<<<< yours\nmy b\n=+\nb\n>>>>>>> the node\n$/);
    assert.deepEqual(
      r.merged.map((x) => [x.path, x.conflicts]),
      [[join(p.cwd, 'm.txt'), 1]],
    );
  });

  it('a file kept at a restore is a conflict the next time a restore would overwrite it (editor and CLI)', async () => {
    const p = project();
    const t1 = await p.sim.turn('one', [write('a.txt', 'a1\n')], () => p.put('a.txt', 'a1\n'));
    const t2 = await p.sim.turn('two', [write('a.txt', 'a2\n'), write('b.txt', 'b2\n')], () => {
      p.put('a.txt', 'a2\n');
      p.put('b.txt', 'b2\n');
    });
    p.put('a.txt', 'a2 and mine\n');
    let sc = await p.code();
    const back = await planCode(sc, t1.answer);
    assert.equal(back.items.find((i) => i.key === 'a.txt')!.action, 'conflict');
    await writeCode(sc, back, { resolutions: new Map([['a.txt', 'mine']]) });
    assert.equal(p.read('a.txt'), 'a2 and mine\n', 'kept');
    sc = await p.code();
    const forward = await planCode(sc, t2.answer);
    const a = forward.items.find((i) => i.key === 'a.txt')!;
    assert.equal(a.action, 'conflict', 'moving forward does not overwrite the kept file');
    assert.match(a.reason!, /kept your version/);
    assert.equal(forward.items.find((i) => i.key === 'b.txt')!.action, 'create');
    const r = p.cli('restore', p.sim.file, t2.answer);
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stderr, /a\.txt; nothing written/);
    assert.equal(p.read('a.txt'), 'a2 and mine\n');
  });

  it('after an undo the code is where it was: the next plan, dry-run and diff agree; the conversation moves back', async () => {
    const p = project();
    const t1 = await p.sim.turn('one', [write('a.txt', 'a1\n')], () => p.put('a.txt', 'a1\n'));
    await p.sim.turn('two', [write('a.txt', 'a2\n'), write('c.txt', 'c\n')], () => {
      p.put('a.txt', 'a2\n');
      p.put('c.txt', 'c\n');
    });
    const leafBefore = (await Session.open(p.sim.file)).leafId;
    const r = p.cli('restore', p.sim.file, t1.answer, '--conversation');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(p.read('a.txt'), 'a1\n');
    assert.equal((await Session.open(p.sim.file)).leafId, t1.answer);
    const u = p.cli('restore', p.sim.file, '--undo');
    assert.equal(u.status, 0, u.stderr);
    assert.match(u.stdout, /Put back 2 file\(s\), and moved the conversation back/);
    assert.equal(p.read('a.txt'), 'a2\n');
    assert.equal((await Session.open(p.sim.file)).leafId, leafBefore, 'the conversation is back where it was');
    const dry = p.cli('restore', p.sim.file, t1.answer, '--dry-run', '--json');
    assert.equal(dry.status, 0, dry.stderr);
    const plan = JSON.parse(dry.stdout);
    assert.deepEqual(plan.items.map((i: { key: string; action: string }) => [i.key, i.action]).sort(), [
      ['a.txt', 'modify'],
      ['c.txt', 'delete'],
    ]);
    const diff = await diffCode(await p.code(), t1.answer, 'now');
    assert.deepEqual(diff.map((c) => c.key).sort(), ['a.txt', 'c.txt'], 'diff names the same files');
    // and the restore works again
    assert.equal(p.cli('restore', p.sim.file, t1.answer).status, 0);
    assert.equal(p.read('a.txt'), 'a1\n');
  });

  it('an undo that gives the user their file back makes it theirs again: the next restore asks', async () => {
    const p = project();
    const t1 = await p.sim.turn('one', [write('a.txt', 'a1\n')], () => p.put('a.txt', 'a1\n'));
    await p.sim.turn('two', [write('a.txt', 'a2\n')], () => p.put('a.txt', 'a2\n'));
    p.put('a.txt', 'a2 mine\n');
    let sc = await p.code();
    await writeCode(sc, await planCode(sc, t1.answer), { force: true });
    assert.equal(p.read('a.txt'), 'a1\n');
    sc = await p.code();
    const u = await undoCode(sc);
    assert.deepEqual(u.conflicts, []);
    assert.equal(p.read('a.txt'), 'a2 mine\n');
    sc = await p.code();
    const again = await planCode(sc, t1.answer);
    assert.equal(again.items.find((i) => i.key === 'a.txt')?.action, 'conflict', 'the file is the user’s again');
    assert.match(
      again.items.find((i) => i.key === 'a.txt')!.reason!,
      /changed since the latest checkpoint|undo gave your version back/,
    );
  });

  it('two restores of one project never interleave: the second plan is stale once the first wrote', async () => {
    const p = project();
    const t1 = await p.sim.turn('one', [write('a.txt', 'a1\n'), write('b.txt', 'b1\n')], () => {
      p.put('a.txt', 'a1\n');
      p.put('b.txt', 'b1\n');
    });
    const t2 = await p.sim.turn('two', [write('a.txt', 'a2\n'), write('b.txt', 'b2\n')], () => {
      p.put('a.txt', 'a2\n');
      p.put('b.txt', 'b2\n');
    });
    await p.sim.turn('three', [write('a.txt', 'a3\n'), write('b.txt', 'b3\n')], () => {
      p.put('a.txt', 'a3\n');
      p.put('b.txt', 'b3\n');
    });
    const [sc1, sc2] = [await p.code(), await p.code()];
    const [plan1, plan2] = [await planCode(sc1, t1.answer), await planCode(sc2, t2.answer)];
    const results = await Promise.allSettled([writeCode(sc1, plan1, {}), writeCode(sc2, plan2, {})]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'one restore wrote');
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.ok(failed.reason instanceof PlanChangedError, String(failed.reason));
    const both = [p.read('a.txt'), p.read('b.txt')].join('');
    assert.ok(
      both === 'a1\nb1\n' || both === 'a2\nb2\n',
      `the files are at one node, not half at each: ${JSON.stringify(both)}`,
    );
  });

  it('two CLI restores at once leave the files at one node', async () => {
    const p = project();
    const t1 = await p.sim.turn('one', [write('a.txt', 'a1\n'), write('b.txt', 'b1\n')], () => {
      p.put('a.txt', 'a1\n');
      p.put('b.txt', 'b1\n');
    });
    const t2 = await p.sim.turn('two', [write('a.txt', 'a2\n'), write('b.txt', 'b2\n')], () => {
      p.put('a.txt', 'a2\n');
      p.put('b.txt', 'b2\n');
    });
    await p.sim.turn('three', [write('a.txt', 'a3\n'), write('b.txt', 'b3\n')], () => {
      p.put('a.txt', 'a3\n');
      p.put('b.txt', 'b3\n');
    });
    const { spawn } = await import('node:child_process');
    const run = (target: string) =>
      new Promise<{ code: number | null; err: string }>((resolve) => {
        const c = spawn(process.execPath, [CLI, 'restore', p.sim.file, target], {
          cwd: p.cwd,
          env: { ...process.env, PI_CODING_AGENT_DIR: p.agentDir },
        });
        let err = '';
        c.stderr.on('data', (d: Buffer) => (err += d.toString()));
        c.on('close', (code) => resolve({ code, err }));
      });
    const [r1, r2] = await Promise.all([run(t1.answer), run(t2.answer)]);
    for (const r of [r1, r2])
      if (r.code !== 0)
        assert.match(
          r.err,
          /moved since the preview|another restore|changed since the preview|changed outside the agent since the latest checkpoint/,
        );
    const both = [p.read('a.txt'), p.read('b.txt')].join('');
    assert.ok(both === 'a1\nb1\n' || both === 'a2\nb2\n', `the files are at one node: ${JSON.stringify(both)}`);
  });

  it('a restore whose recording fails still wrote its files, and says so as a warning', async () => {
    const p = project();
    const t1 = await p.sim.turn('one', [write('a.txt', 'a1\n')], () => p.put('a.txt', 'a1\n'));
    await p.sim.turn('two', [write('a.txt', 'a2\n')], () => p.put('a.txt', 'a2\n'));
    const sc = await p.code();
    const plan = await planCode(sc, t1.answer);
    const { onRestoreStep } = await import('../../../../src/core/checkpoints/restore/journalFiles.js');
    const { rmSync } = await import('node:fs');
    const manifest = sc.checkpoints.store!.manifestFile(sc.checkpoints.sessionId);
    onRestoreStep((step) => {
      if (step !== 'done') return;
      rmSync(manifest);
      mkdirSync(manifest); // the manifest cannot take the line now
    });
    try {
      const r = await writeCode(sc, plan, {});
      assert.equal(p.read('a.txt'), 'a1\n');
      assert.equal(r.warnings.length, 1);
      assert.match(r.warnings[0], /files were written, but where the code is now could not be recorded/);
    } finally {
      onRestoreStep(undefined);
    }
  });
});
