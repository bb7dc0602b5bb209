// codeBetween, Move here's cheap exit: whether a checkpoint or a recorded call that may change files lies
// on the route between where the code is and a node. Where it says no, the plan (which the editor then
// does not make) is checked to be empty: the exit only skips work, never a restore.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { codeBetween, planCode, sessionCode } from '../../../../src/core/checkpoints/index.js';
import { Session } from '../../../../src/core/session/session.js';
import { SimPi } from '../../../support/simPi.js';
import { tempDir } from '../../../support/tmp.js';

function project(capture = true) {
  const root = tempDir('pi-cp-between-');
  const cwd = join(root, 'proj');
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  for (const d of [cwd, agentDir, sessions]) mkdirSync(d, { recursive: true });
  const sim = new SimPi(cwd, agentDir, { sessionDir: sessions, capture });
  const put = (p: string, text: string) => writeFileSync(join(cwd, p), text);
  /** A prompt and an answer with no tool call. */
  const talk = (prompt: string) => {
    const user = sim.b.user(prompt);
    const answer = sim.b.assistant({ text: `about ${prompt}` });
    sim.save();
    return { user, answer };
  };
  /** codeBetween for each node, and for each "no" that the plan is empty too. */
  const between = async (...ids: (string | null)[]) => {
    const out: boolean[] = [];
    for (const id of ids) {
      const sc = sessionCode(await Session.open(sim.file), { agentDir });
      const yes = await codeBetween(sc, id);
      if (!yes)
        assert.deepEqual((await planCode(sc, id)).items, [], `no code between, and the plan for ${id} is empty`);
      out.push(yes);
    }
    return out;
  };
  return { cwd, sim, put, talk, between };
}

const write = (path: string, content: string) => ({ name: 'write', args: { path, content } });

describe("codeBetween: Move here's cheap exit", () => {
  it('with checkpoints: a snapshot or a call that may change files on the way says yes; talk and reads say no', async () => {
    const p = project();
    const t1 = await p.sim.turn('one', [write('a.txt', 'a1\n')], () => p.put('a.txt', 'a1\n'));
    const t2 = await p.sim.turn('two', [write('a.txt', 'a2\n'), write('b.txt', 'b2\n')], () => {
      p.put('a.txt', 'a2\n');
      p.put('b.txt', 'b2\n');
    });
    const chat = p.talk('just talk');
    const look = await p.sim.turn('look', [{ name: 'read', args: { path: 'a.txt' } }], () => undefined);
    assert.deepEqual(
      await p.between(t2.answer, chat.user, chat.answer, look.call, look.answer),
      [false, false, false, false, false],
      'talk and a read after the code: nothing between',
    );
    assert.deepEqual(
      await p.between(t1.answer, t1.user, t2.user, t2.call, null),
      [true, true, true, true, true],
      'the second turn (or the first) lies between',
    );
  });

  it('without checkpoints: the recorded calls alone', async () => {
    const p = project(false);
    const t1 = await p.sim.turn('one', [write('a.txt', 'a1\n')], () => p.put('a.txt', 'a1\n'));
    const chat = p.talk('just talk');
    assert.deepEqual(await p.between(t1.answer, chat.user, t1.call), [false, false, false]);
    assert.deepEqual(await p.between(t1.user, null), [true, true], 'the write call lies between');
  });

  it('a failed call counts (the plan takes its paths); a bash command and an extension tool count', async () => {
    const p = project(false);
    const t0 = p.talk('start');
    await p.sim.turn('fail', [write('a.txt', 'a1\n')], () => undefined, { failed: true });
    assert.deepEqual(await p.between(t0.answer), [true]);
    const p2 = project(false);
    const s0 = p2.talk('start');
    await p2.sim.turn('bash', [{ name: 'bash', args: { command: 'ls' } }], () => undefined);
    assert.deepEqual(await p2.between(s0.answer), [true]);
    const p3 = project(false);
    const u0 = p3.talk('start');
    await p3.sim.turn('tool', [{ name: 'ext_apply', args: { anything: 1 } }], () => undefined);
    assert.deepEqual(await p3.between(u0.answer), [true]);
  });

  it('across branches: both sides of the route count', async () => {
    const p = project();
    const t1 = await p.sim.turn('one', [write('a.txt', 'a1\n')], () => p.put('a.txt', 'a1\n'));
    // a branch of talk under the first answer
    const side = p.talk('aside');
    // back to the first answer: a branch that writes, where the leaf and the code now are
    p.sim.b.at(t1.answer);
    const t2 = await p.sim.turn('two', [write('a.txt', 'a2\n')], () => p.put('a.txt', 'a2\n'));
    assert.deepEqual(
      await p.between(side.answer, side.user),
      [true, true],
      'the second turn is on the way up from the code',
    );
    p.sim.b.at(t2.answer);
    const more = p.talk('more');
    assert.deepEqual(await p.between(t2.answer, more.answer), [false, false]);
  });
});
