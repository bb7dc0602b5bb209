// Checkpoints at the edges issue #32 names: git missing (capture off with one message, restores from the
// session's record), sessions without snapshots (write/edit restorable where the record tells the
// content; bash-only changes named), nested repositories, files outside the working folder, symlinks,
// ignored files, and a file whose line endings pi's edit keeps (never guessed).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { diffCode, planCode, sessionCode, writeCode } from '../../../../src/core/checkpoints/index.js';
import { SessionCheckpoints } from '../../../../src/core/checkpoints/store/manifests.js';
import { Session } from '../../../../src/core/session/session.js';
import { SimPi } from '../../../support/simPi.js';
import { backdate } from '../../../support/storeAge.js';
import { tempDir } from '../../../support/tmp.js';

function dirs() {
  const root = tempDir('pi-cp-edge-');
  const cwd = join(root, 'proj');
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  for (const d of [cwd, agentDir, sessions]) mkdirSync(d, { recursive: true });
  return { root, cwd, agentDir, sessions };
}

async function plan(file: string, agentDir: string, target: string) {
  const session = await Session.open(file);
  const sc = sessionCode(session, { agentDir });
  const p = await planCode(sc, target);
  return { session, sc, plan: p, actions: Object.fromEntries(p.items.map((i) => [i.key, i.action])) };
}

describe('checkpoints at the edges', () => {
  it('git missing: capture turns itself off with one message; restore falls back on the record', async () => {
    const d = dirs();
    const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, program: join(d.root, 'no-git-here') });
    const t1 = await sim.turn('write', [{ name: 'write', args: { path: 'src/a.ts', content: 'one\n' } }], () => {
      mkdirSync(join(d.cwd, 'src'));
      writeFileSync(join(d.cwd, 'src/a.ts'), 'one\n');
    });
    await sim.turn(
      'edit',
      [{ name: 'edit', args: { path: 'src/a.ts', edits: [{ oldText: 'one', newText: 'two' }] } }],
      () => writeFileSync(join(d.cwd, 'src/a.ts'), 'two\n'),
    );
    assert.equal(sim.notified.length, 1, 'one message in pi');
    assert.match(sim.notified[0], /git was not found/);
    assert.match(sim.capture!.off!, /off for this session/);
    const { sc, plan: p, actions } = await plan(sim.file, d.agentDir, t1.answer);
    assert.deepEqual(actions, { 'src/a.ts': 'modify' });
    assert.equal(p.target.how, 'calls');
    await writeCode(sc, p, {});
    assert.equal(readFileSync(join(d.cwd, 'src/a.ts'), 'utf8'), 'one\n');
  });

  it('without snapshots: a bash-only change is named not restorable; a CRLF file is not guessed', async () => {
    const d = dirs();
    writeFileSync(join(d.cwd, 'win.txt'), 'line one\r\nline two\r\n');
    const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, capture: false });
    const t1 = await sim.turn('read win', [{ name: 'read', args: { path: 'win.txt' } }], () => {});
    // the record has the whole read (the tool result text) of win.txt
    sim.b.entries.find((e) => e.id === t1.results[0])!.message.content[0].text = 'line one\r\nline two\r\n';
    sim.save();
    await sim.turn(
      'edit win and run bash',
      [
        { name: 'edit', args: { path: 'win.txt', edits: [{ oldText: 'two', newText: 'three' }] } },
        { name: 'bash', args: { command: 'echo x > made.txt' } },
      ],
      () => {
        writeFileSync(join(d.cwd, 'win.txt'), 'line one\r\nline three\r\n');
        writeFileSync(join(d.cwd, 'made.txt'), 'x\n');
      },
    );
    const { actions, plan: p } = await plan(sim.file, d.agentDir, t1.answer);
    assert.equal(actions['made.txt'], 'unrestorable');
    assert.match(p.items.find((i) => i.key === 'made.txt')!.reason!, /no checkpoint and no record|bash/);
    assert.equal(actions['win.txt'], 'unrestorable', 'pi keeps CRLF in ways pi-tree will not guess');
    // diff against the folder now names what the plan names (before: nothing, the calls came after t1)
    const changes = await diffCode(
      sessionCode(await Session.open(sim.file), { agentDir: d.agentDir }),
      t1.answer,
      'now',
    );
    assert.deepEqual(changes.map((c) => c.key).sort(), ['made.txt', 'win.txt']);
  });

  it('nested repositories are skipped and named; ignored files are never captured nor touched', async () => {
    const d = dirs();
    mkdirSync(join(d.cwd, 'vendor', 'lib'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: join(d.cwd, 'vendor', 'lib') });
    writeFileSync(join(d.cwd, 'vendor', 'lib', 'x.c'), 'int x;\n');
    writeFileSync(join(d.cwd, '.gitignore'), '.env\n');
    const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions });
    const t1 = await sim.turn('touch env', [{ name: 'write', args: { path: 'app.ts', content: 'app\n' } }], () =>
      writeFileSync(join(d.cwd, 'app.ts'), 'app\n'),
    );
    await sim.turn('write env', [{ name: 'write', args: { path: '.env', content: 'SECRET=1\n' } }], () =>
      writeFileSync(join(d.cwd, '.env'), 'SECRET=1\n'),
    );
    const session = await Session.open(sim.file);
    const cps = SessionCheckpoints.load(session, d.agentDir);
    const after = cps.byEntry.get(t1.call)!;
    assert.deepEqual(after.skipped?.files, [{ path: 'vendor/lib/', why: 'nested-repository' }]);
    const { actions, plan: p } = await plan(sim.file, d.agentDir, t1.answer);
    assert.equal(actions['.env'], 'unrestorable', 'an ignored file is never deleted: its state at the node is unknown');
    assert.match(p.items.find((i) => i.key === '.env')!.reason!, /ignored/);
  });

  it('files outside the folder: captured before and after an edit, restored; symlinks stay links', async () => {
    const d = dirs();
    const outside = join(d.root, 'elsewhere.conf');
    writeFileSync(outside, 'port=1\n');
    symlinkSync('target-a', join(d.cwd, 'link'));
    const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions });
    const t1 = await sim.turn('nothing yet', [{ name: 'write', args: { path: 'x.txt', content: 'x\n' } }], () =>
      writeFileSync(join(d.cwd, 'x.txt'), 'x\n'),
    );
    await sim.turn(
      'edit outside and relink',
      [
        { name: 'edit', args: { path: outside, edits: [{ oldText: 'port=1', newText: 'port=2' }] } },
        { name: 'bash', args: { command: 'ln -sfn target-b link' } },
      ],
      () => {
        writeFileSync(outside, 'port=2\n');
        execFileSync('ln', ['-sfn', 'target-b', join(d.cwd, 'link')]);
      },
    );
    const { sc, plan: p, actions } = await plan(sim.file, d.agentDir, t1.answer);
    assert.deepEqual(actions, { [outside]: 'modify', link: 'modify' });
    // a file outside the folder is written only once confirmed by name
    await assert.rejects(
      writeCode(sc, p, {}),
      /outside the session.s working folder would be written: .*elsewhere\.conf; nothing was written/,
    );
    assert.equal(readFileSync(outside, 'utf8'), 'port=2\n');
    assert.equal(readlinkSync(join(d.cwd, 'link')), 'target-b', 'nothing was written');
    await writeCode(sc, p, { confirmed: new Set([outside]) });
    assert.equal(readFileSync(outside, 'utf8'), 'port=1\n');
    assert.ok(lstatSync(join(d.cwd, 'link')).isSymbolicLink());
    assert.equal(readlinkSync(join(d.cwd, 'link')), 'target-a');
    assert.ok(existsSync(join(d.cwd, 'x.txt')));
  });

  it('a user edit between turns on the way back is a conflict', async () => {
    const d = dirs();
    writeFileSync(join(d.cwd, 'README.md'), 'v1\n');
    const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions });
    const t1 = await sim.turn('one', [{ name: 'write', args: { path: 'a.txt', content: 'a\n' } }], () =>
      writeFileSync(join(d.cwd, 'a.txt'), 'a\n'),
    );
    writeFileSync(join(d.cwd, 'README.md'), 'v1 + my words\n');
    await sim.turn(
      'two',
      [{ name: 'edit', args: { path: 'README.md', edits: [{ oldText: 'v1', newText: 'v2' }] } }],
      () => writeFileSync(join(d.cwd, 'README.md'), 'v2 + my words\n'),
    );
    const { actions, plan: p } = await plan(sim.file, d.agentDir, t1.answer);
    assert.equal(actions['README.md'], 'conflict');
    assert.match(p.items.find((i) => i.key === 'README.md')!.reason!, /between turns/);
    assert.equal(actions['a.txt'], undefined, 'a.txt is already as at the node');
  });
});

describe('checkpoint retention', () => {
  it("the turns' loose objects go into a pack every few turns, and restores read them from there", async () => {
    const d = dirs();
    const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, packEvery: 2 });
    const t1 = await sim.turn('one', [{ name: 'write', args: { path: 'a.txt', content: 'a\n' } }], () =>
      writeFileSync(join(d.cwd, 'a.txt'), 'a\n'),
    );
    await sim.turn('two', [{ name: 'write', args: { path: 'a.txt', content: 'a2\n' } }], () =>
      writeFileSync(join(d.cwd, 'a.txt'), 'a2\n'),
    );
    const { sc, plan: p, actions } = await plan(sim.file, d.agentDir, t1.answer);
    const counts = (await sc.checkpoints.store!.run(['count-objects', '-v'])).toString('utf8');
    assert.match(counts, /^count: 0$/m, 'no loose object left after the second turn');
    assert.match(counts, /^packs: 1$/m);
    assert.deepEqual(actions, { 'a.txt': 'modify' });
    await writeCode(sc, p, {});
    assert.equal(readFileSync(join(d.cwd, 'a.txt'), 'utf8'), 'a\n');
  });

  it('a session over its cap loses its oldest snapshots, never its latest; deleting a session frees its store share', async () => {
    const d = dirs();
    const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions });
    for (let i = 0; i < 4; i++) {
      const big = Buffer.alloc(200_000, i + 1);
      await sim.turn(`turn ${i}`, [{ name: 'write', args: { path: `f${i}.bin`, content: 'x' } }], () =>
        writeFileSync(join(d.cwd, `f${i}.bin`), big),
      );
    }
    const session = await Session.open(sim.file);
    const cps = SessionCheckpoints.load(session, d.agentDir);
    const store = cps.store!;
    const lines = store.manifest(cps.sessionId);
    const sum = lines.reduce((a, l) => a + (l.kind === 'off' ? 0 : (l.bytes ?? 0)), 0);
    assert.ok(sum > 0, 'lines record what they added');
    const { pruneStore } = await import('../../../../src/core/checkpoints/store/retention.js');
    const { DEFAULT_SETTINGS } = await import('../../../../src/core/checkpoints/store/storePaths.js');
    // (pruned as the session's own capture prunes it: another session's manifest written in the last
    // minutes is left alone, its pi may be appending to it)
    const r = await pruneStore(
      store,
      { ...DEFAULT_SETTINGS, maxSessionBytes: Math.floor(sum / 3) },
      { own: cps.sessionId },
    );
    assert.ok(r.dropped > 0 && r.after <= Math.floor(sum / 3) + (lines.at(-1) as { bytes?: number }).bytes!);
    const kept = store.manifest(cps.sessionId);
    assert.deepEqual(kept.at(-1), lines.at(-1), 'the latest snapshot stays');
    const sizeBefore = await store.sizeBytes();
    // A collect keeps objects younger than a minute (a snapshot of another pi may be using them): these
    // are made older than that, as they would be a while after the session.
    backdate(store.where.gitDir, 10 * 60_000);
    const { deleteCheckpoints } = await import('../../../../src/core/checkpoints/index.js');
    assert.equal(await deleteCheckpoints(d.agentDir, d.cwd, cps.sessionId), true);
    assert.deepEqual(store.manifest(cps.sessionId), []);
    assert.ok((await store.sizeBytes()) < sizeBefore, 'the store shrank');
  });
});
