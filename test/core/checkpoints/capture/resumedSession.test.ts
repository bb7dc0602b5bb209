// A session pi runs again starts from its latest snapshot, not from nothing: when that was a turn's
// 'before' with no 'after' (pi killed mid-turn), the baseline says so (`killedTurn`) and names what
// changed since as the agent's (`changed`); otherwise what changed since is the user's, made while no
// pi ran the session (`between`), as a 'before' line names the user's changes between turns.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SessionCheckpoints } from '../../../../src/core/checkpoints/store/manifests.js';
import type { SnapshotLine } from '../../../../src/core/checkpoints/store/manifestLines.js';
import { Session } from '../../../../src/core/session/session.js';
import { SimPi } from '../../../support/simPi.js';
import { tempDir } from '../../../support/tmp.js';

function setup() {
  const root = tempDir('pi-cp-resume-');
  const cwd = join(root, 'proj');
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  for (const d of [cwd, agentDir, sessions]) mkdirSync(d, { recursive: true });
  writeFileSync(join(cwd, 'README.md'), 'readme\n');
  writeFileSync(join(cwd, 'old.txt'), 'old\n');
  return { root, cwd, agentDir, sessions, opts: { sessionDir: sessions, watch: false as const } };
}

async function lines(file: string, agentDir: string): Promise<SnapshotLine[]> {
  const cps = SessionCheckpoints.load(await Session.open(file), agentDir);
  return cps.lines.filter((l): l is SnapshotLine => l.kind !== 'off');
}

describe('a session run again', () => {
  it("after a kill mid-turn: the baseline says the turn was killed and names the agent's changes since its 'before'", async () => {
    const d = setup();
    const sim = new SimPi(d.cwd, d.agentDir, d.opts);
    await sim.turn('one', [{ name: 'write', args: { path: 'a.txt', content: 'a' } }], () =>
      writeFileSync(join(d.cwd, 'a.txt'), 'a\n'),
    );
    // Turn two: its 'before' is taken, the calls change files, and pi is killed before the turn ends.
    const user = sim.b.user('two');
    const call = sim.b.assistant({ calls: [{ name: 'bash', args: { command: 'make' }, id: 'call_two' }] });
    sim.save();
    await sim.capture!.beforeTool('bash', { command: 'make' }, { id: call, parentId: user });
    writeFileSync(join(d.cwd, 'a.txt'), 'a, half made\n');
    rmSync(join(d.cwd, 'old.txt'));
    await sim.capture!.flush();
    assert.equal((await lines(sim.file, d.agentDir)).at(-1)!.kind, 'before');

    sim.resume(d.opts);
    await sim.capture!.flush();
    const baseline = (await lines(sim.file, d.agentDir)).at(-1)!;
    assert.equal(baseline.kind, 'baseline');
    assert.equal(baseline.killedTurn, true);
    assert.deepEqual(baseline.changed, ['a.txt', 'old.txt']);
    assert.equal(baseline.between, undefined);
    assert.deepEqual(sim.notified, []);
  });

  it("after an exit: the user's changes while no pi ran the session are named as theirs", async () => {
    const d = setup();
    const sim = new SimPi(d.cwd, d.agentDir, d.opts);
    await sim.turn('one', [{ name: 'write', args: { path: 'a.txt', content: 'a' } }], () =>
      writeFileSync(join(d.cwd, 'a.txt'), 'a\n'),
    );
    await sim.capture!.close();
    writeFileSync(join(d.cwd, 'README.md'), 'readme, edited while pi was away\n');
    writeFileSync(join(d.cwd, 'mine.txt'), 'mine\n');

    sim.resume(d.opts);
    await sim.capture!.flush();
    let all = await lines(sim.file, d.agentDir);
    const baseline = all.at(-1)!;
    assert.equal(baseline.kind, 'baseline');
    assert.equal(baseline.killedTurn, undefined);
    assert.deepEqual(baseline.between, ['README.md', 'mine.txt']);
    assert.ok((baseline.bytes ?? 0) < 1000, `only what changed is counted: ${baseline.bytes}`);

    // The turn after compares with the baseline as usual.
    await sim.turn('two', [{ name: 'write', args: { path: 'b.txt', content: 'b' } }], () =>
      writeFileSync(join(d.cwd, 'b.txt'), 'b\n'),
    );
    all = await lines(sim.file, d.agentDir);
    assert.equal(all.at(-2)!.between, undefined);
    assert.deepEqual(all.at(-1)!.changed, ['b.txt']);
  });

  it('a session run again with nothing changed: a plain baseline', async () => {
    const d = setup();
    const sim = new SimPi(d.cwd, d.agentDir, d.opts);
    await sim.turn('one', [{ name: 'write', args: { path: 'a.txt', content: 'a' } }], () =>
      writeFileSync(join(d.cwd, 'a.txt'), 'a\n'),
    );
    await sim.capture!.close();
    sim.resume(d.opts);
    await sim.capture!.flush();
    const baseline = (await lines(sim.file, d.agentDir)).at(-1)!;
    assert.equal(baseline.kind, 'baseline');
    assert.equal(baseline.between, undefined);
    assert.equal(baseline.changed, undefined);
    assert.equal(baseline.killedTurn, undefined);
  });
});
