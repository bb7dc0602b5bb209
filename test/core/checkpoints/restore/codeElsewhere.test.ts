// Where the code is when another session of the project moved the folder last (a second pi in the same
// folder, or the session a fork came from running on): a restore plans from that session's snapshot,
// so the dry-run names the files a diff with the folder lists, the restore writes them, Move here asks;
// where the other session changed nothing, nothing is planned.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import {
  codeBetween,
  diffCode,
  planCode,
  sessionCode,
  undoCode,
  writeCode,
} from '../../../../src/core/checkpoints/index.js';
import { Session } from '../../../../src/core/session/session.js';
import { SimPi } from '../../../support/simPi.js';
import { simProject } from '../../../support/simProject.js';

const write = (path: string, content: string) => ({ name: 'write', args: { path, content } });
const OTHER = '019b8f3a-0000-7000-8000-0000000052b2';
const FILES = ['f1.txt', 'f2.txt', 'f3.txt'];

/** A turn writing every file of FILES with `v`. */
function writesAll(p: ReturnType<typeof simProject>, sim: SimPi, prompt: string, v: string) {
  return sim.turn(
    prompt,
    FILES.map((f) => write(f, `${v}\n`)),
    () => FILES.forEach((f) => p.put(f, `${v}\n`)),
  );
}

describe('restore when another session of the project moved the folder', () => {
  it('a second session ran a turn: dry-run, diff and restore agree; Move here asks', async () => {
    const p = simProject('pi-cp-elsewhere-');
    const t1 = await writesAll(p, p.sim, 'one', 'v1');
    const other = new SimPi(p.cwd, p.agentDir, { sessionDir: p.sessions, id: OTHER });
    await writesAll(p, other, 'two', 'v2');
    p.put('f3.txt', 'v2 and mine\n'); // the user's, since the other session's turn
    const sc = await p.code();
    const diff = await diffCode(sc, t1.answer, 'now');
    assert.deepEqual(
      diff.map((c) => c.key),
      FILES,
    );
    const plan = await planCode(sc, t1.answer);
    assert.deepEqual(
      plan.items.map((i) => [i.key, i.action]),
      [
        ['f1.txt', 'modify'],
        ['f2.txt', 'modify'],
        ['f3.txt', 'conflict'],
      ],
      'the files the diff lists: the agent’s written, the user’s asked about',
    );
    assert.equal(await codeBetween(await p.code(), t1.answer), true, 'Move here asks');
    await writeCode(sc, plan, { resolutions: new Map([['f3.txt', 'theirs']]) });
    assert.deepEqual(
      FILES.map((f) => p.read(f)),
      ['v1\n', 'v1\n', 'v1\n'],
    );
    const again = await p.code();
    assert.deepEqual(await diffCode(again, t1.answer, 'now'), [], 'the folder is at the node');
    assert.deepEqual((await planCode(again, t1.answer)).items, [], 'and the next plan knows it');
  });

  it('a second session that changed nothing: nothing planned, Move here does not ask', async () => {
    const p = simProject('pi-cp-elsewhere-same-');
    const t1 = await writesAll(p, p.sim, 'one', 'v1');
    const other = new SimPi(p.cwd, p.agentDir, { sessionDir: p.sessions, id: OTHER });
    await other.turn('look', [{ name: 'read', args: { path: 'f1.txt' } }], () => undefined);
    const sc = await p.code();
    assert.deepEqual((await planCode(sc, t1.answer)).items, []);
    assert.equal(await codeBetween(sc, t1.answer), false);
  });

  it('a fork whose parent ran on: the fork’s restore writes what the parent changed', async () => {
    const p = simProject('pi-cp-elsewhere-fork-');
    const t1 = await writesAll(p, p.sim, 'one', 'v1');
    const t2 = await writesAll(p, p.sim, 'two', 'v2');
    // The fork at the second user message, as pi writes it: the entries above it, a header naming the parent.
    const lines = readFileSync(p.sim.file, 'utf8').split('\n').filter(Boolean);
    const header = { ...JSON.parse(lines[0]), id: OTHER, parentSession: p.sim.file };
    const kept = lines.slice(1).filter((l) => {
      const e = JSON.parse(l) as { id: string };
      return p.sim.b.entries.findIndex((x) => x.id === e.id) < p.sim.b.entries.findIndex((x) => x.id === t2.user);
    });
    const fork = join(dirname(p.sim.file), `2026-01-05T11-00-00-000Z_${OTHER}.jsonl`);
    writeFileSync(fork, [JSON.stringify(header), ...kept].map((l) => `${l}\n`).join(''));
    // The parent runs on after the fork.
    await writesAll(p, p.sim, 'three', 'v3');
    const sc = sessionCode(await Session.open(fork), { agentDir: p.agentDir });
    assert.deepEqual(
      (await diffCode(sc, t1.answer, 'now')).map((c) => c.key),
      FILES,
    );
    const plan = await planCode(sc, t1.answer);
    assert.deepEqual(
      plan.items.map((i) => [i.key, i.action]),
      FILES.map((f) => [f, 'modify']),
    );
    assert.equal(await codeBetween(sc, t1.answer), true);
    const r = await writeCode(sc, plan, {});
    assert.equal(r.written.length, 3);
    assert.deepEqual(
      FILES.map((f) => p.read(f)),
      ['v1\n', 'v1\n', 'v1\n'],
    );
    // Undone: the files are the parent's again, and the fork's next plan knows it.
    await undoCode(await sessionCode(await Session.open(fork), { agentDir: p.agentDir }));
    assert.deepEqual(
      FILES.map((f) => p.read(f)),
      ['v3\n', 'v3\n', 'v3\n'],
    );
    const afterUndo = sessionCode(await Session.open(fork), { agentDir: p.agentDir });
    assert.deepEqual(
      (await planCode(afterUndo, t1.answer)).items.map((i) => [i.key, i.action]),
      FILES.map((f) => [f, 'modify']),
      'after the undo',
    );
    assert.equal(await codeBetween(afterUndo, t1.answer), true);
    await writeCode(afterUndo, await planCode(afterUndo, t1.answer), {});
    // The parent, whose own latest line is older now, sees the fork's restore.
    const parent = await p.code();
    assert.deepEqual(
      (await planCode(parent, t2.answer)).items.map((i) => [i.key, i.action]),
      FILES.map((f) => [f, 'modify']),
    );
  });

  it('this session runs on after another moved the folder: what the other agent wrote stays the agent’s', async () => {
    const p = simProject('pi-cp-elsewhere-runs-on-');
    const t1 = await writesAll(p, p.sim, 'one', 'v1');
    const other = new SimPi(p.cwd, p.agentDir, { sessionDir: p.sessions, id: OTHER });
    await writesAll(p, other, 'two', 'v2');
    p.put('mine.txt', 'the user’s\n');
    await p.sim.turn('three', [write('g.txt', 'g\n')], () => p.put('g.txt', 'g\n'));
    const sc = await p.code();
    const before = sc.checkpoints.lines.findLast((l) => l.kind === 'before');
    assert.deepEqual(before?.kind === 'before' && [before.elsewhere, before.between], [FILES, ['mine.txt']]);
    const plan = await planCode(sc, t1.answer);
    assert.deepEqual(
      plan.items.map((i) => [i.key, i.action]),
      [...FILES.map((f) => [f, 'modify']), ['g.txt', 'delete']],
      'the other agent’s files are written back, not asked about as the user’s; the user’s own file is left out',
    );
    await writeCode(sc, plan, {});
    assert.deepEqual(
      (await diffCode(await p.code(), t1.answer, 'now')).map((c) => c.key),
      ['mine.txt'],
      'the folder is at the node but for the user’s own file',
    );
  });
});
