// Deleting checkpoints never breaks another capture of the project (storeGc.ts): two sessions of one
// folder, one deleted while the other's snapshot is half written (its objects loose, no ref yet) or
// while its index names a file version no snapshot keeps (the idle check's walk); the other goes on
// capturing, a new session of the folder (seeded from that index) captures, and what only the deleted
// session kept is freed. An index that names an object the store lost is made again, not the end of
// capture for every later session. A session's own checkpoints deleted while its pi runs: its next
// snapshots are whole (not built on the tree that went with them); a restore to a node whose tree the
// store lost is refused, never planned as deletes; a delete while another collect's gc runs succeeds.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { deleteCheckpoints, sessionCode } from '../../../../src/core/checkpoints/index.js';
import { planRestore } from '../../../../src/core/checkpoints/restore/restorePlan.js';
import { SessionCheckpoints } from '../../../../src/core/checkpoints/store/manifests.js';
import type { SnapshotLine } from '../../../../src/core/checkpoints/store/manifestLines.js';
import { CheckpointStore } from '../../../../src/core/checkpoints/store/store.js';
import { DEFAULT_SETTINGS } from '../../../../src/core/checkpoints/store/storePaths.js';
import { Session } from '../../../../src/core/session/session.js';
import { until } from '../../../../scripts/lib/until.js';
import { SimPi } from '../../../support/simPi.js';
import { backdate } from '../../../support/storeAge.js';
import { tempDir } from '../../../support/tmp.js';

const A = '019b8f3a-0000-7000-8000-00000000000a';
const B = '019b8f3a-0000-7000-8000-00000000000b';
const C = '019b8f3a-0000-7000-8000-00000000000c';

function setup() {
  const root = tempDir('pi-cp-gc-');
  const cwd = join(root, 'proj');
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  for (const d of [cwd, agentDir, sessions]) mkdirSync(d, { recursive: true });
  writeFileSync(join(cwd, 'README.md'), 'readme\n');
  return { root, cwd, agentDir, sessions };
}

const write = (cwd: string, path: string, text: string) => () => writeFileSync(join(cwd, path), text);

/** The session's snapshot lines and its store (read as pi-tree reads them). */
async function linesOf(
  file: string,
  agentDir: string,
): Promise<{ lines: SnapshotLine[]; store: CheckpointStore; off: string | undefined }> {
  const cps = SessionCheckpoints.load(await Session.open(file), agentDir);
  return {
    lines: cps.lines.filter((l): l is SnapshotLine => l.kind !== 'off'),
    store: cps.store!,
    off: cps.offReason(),
  };
}

/** Session A's two turns: `only-a.txt` holds a version no other session ever sees ('A1'). */
async function sessionA(d: ReturnType<typeof setup>): Promise<SimPi> {
  const a = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, id: A, watch: false });
  await a.turn(
    'a1',
    [{ name: 'write', args: { path: 'only-a.txt', content: 'A1' } }],
    write(d.cwd, 'only-a.txt', 'A1 only session A saw\n'),
  );
  await a.turn(
    'a2',
    [{ name: 'write', args: { path: 'only-a.txt', content: 'A2' } }],
    write(d.cwd, 'only-a.txt', 'A2\n'),
  );
  return a;
}

const blobOf = (text: string) => execFileSync('git', ['hash-object', '--stdin'], { input: text }).toString().trim();
const has = async (store: CheckpointStore, sha: string) =>
  !/missing/.test((await store.run(['cat-file', '--batch-check'], { input: `${sha}\n` })).toString());

/** A new session of the folder captures (its index is seeded from the newest one). */
async function newSessionCaptures(d: ReturnType<typeof setup>): Promise<void> {
  const c = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, id: C, watch: false });
  await c.turn('c1', [{ name: 'write', args: { path: 'c.txt', content: 'c' } }], write(d.cwd, 'c.txt', 'c\n'));
  assert.deepEqual(c.notified, []);
  const { lines, off } = await linesOf(c.file, d.agentDir);
  assert.equal(off, undefined);
  assert.deepEqual(
    lines.map((l) => l.kind),
    ['baseline', 'before', 'after'],
  );
}

describe('collecting the store while another pi captures', () => {
  it('checkpoints deleted while another session’s snapshot is half written: it completes, capture goes on', async () => {
    const d = setup();
    await sessionA(d);
    // Session B's git holds its 'after' snapshot between update-index and write-tree while HOLD exists.
    const hold = join(d.root, 'hold');
    const held = join(d.root, 'held');
    const program = join(d.root, 'git-held');
    writeFileSync(
      program,
      `#!/bin/sh\nfor a in "$@"; do\n  if [ "$a" = write-tree ] && [ -e '${hold}' ]; then\n    : > '${held}'\n    while [ -e '${hold}' ]; do sleep 0.02; done\n  fi\ndone\nexec git "$@"\n`,
    );
    chmodSync(program, 0o755);
    const b = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, id: B, watch: false, program });
    await b.turn('b1', [{ name: 'write', args: { path: 'b.txt', content: 'b1' } }], write(d.cwd, 'b.txt', 'b1\n'));

    writeFileSync(hold, '');
    const turn = b.turn(
      'b2',
      [{ name: 'write', args: { path: 'b.txt', content: 'b2' } }],
      write(d.cwd, 'b.txt', 'b2, written while A is deleted\n'),
    );
    await until(() => existsSync(held), 60_000, "B's snapshot to reach write-tree");
    // Everything old by now (B's new blob too): only what marks it in flight keeps it.
    const store = CheckpointStore.existing(d.agentDir, d.cwd, DEFAULT_SETTINGS)!;
    backdate(store.where.gitDir, 10 * 60_000);
    const b2 = blobOf('b2, written while A is deleted\n');
    assert.equal(await has(store, b2), true, "B's blob is written, and no ref names it yet");
    // The delete's collect runs to its end while B's snapshot is still held half way (it waits a
    // second for B, not the 30 s a pi's collect waits, then prunes nothing): B's blob is still there.
    try {
      await CheckpointStore.existing(d.agentDir, d.cwd, DEFAULT_SETTINGS, { pruneWaitMs: 1000 })!.deleteSession(A);
      assert.equal(existsSync(held), true, 'B was held all along');
      assert.equal(await has(store, b2), true, "the collect left B's blob alone");
    } finally {
      rmSync(hold, { force: true });
      await turn;
    }
    // B done: the next collect frees what only A kept.
    backdate(store.where.gitDir, 10 * 60_000);
    await store.collect();

    assert.deepEqual(b.notified, [], 'B stays on');
    const { lines, off } = await linesOf(b.file, d.agentDir);
    assert.equal(off, undefined);
    const last = lines.at(-1)!;
    assert.equal(last.kind, 'after');
    assert.deepEqual(last.changed, ['b.txt']);
    const file = (await store.lookup(last.tree, ['b.txt'])).get('b.txt')!;
    assert.equal((await store.readBlobs([file.sha])).get(file.sha)!.toString(), 'b2, written while A is deleted\n');
    await store.run(['fsck', '--connectivity-only', '--no-dangling']);
    assert.equal(await has(store, blobOf('A1 only session A saw\n')), false, 'what only A kept is freed');

    await b.turn('b3', [{ name: 'write', args: { path: 'b.txt', content: 'b3' } }], write(d.cwd, 'b.txt', 'b3\n'));
    assert.deepEqual(b.notified, []);
    await newSessionCaptures(d);
  });

  it('checkpoints deleted while another session is between turns, its index naming a version no snapshot keeps', async () => {
    const d = setup();
    await sessionA(d);
    const b = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, id: B, watch: false });
    await b.turn('b1', [{ name: 'write', args: { path: 'b.txt', content: 'b1' } }], write(d.cwd, 'b.txt', 'b1\n'));
    // The user edits a file while pi is idle, and B's idle check walks the folder: B's index now names
    // that version, which no snapshot holds yet.
    writeFileSync(join(d.cwd, 'README.md'), 'readme, edited by the user\n');
    const store = CheckpointStore.existing(d.agentDir, d.cwd, DEFAULT_SETTINGS)!;
    await store.treeNow(B);
    backdate(store.where.gitDir, 10 * 60_000);
    await deleteCheckpoints(d.agentDir, d.cwd, A);
    assert.equal(await has(store, blobOf('readme, edited by the user\n')), true, "the version B's index names is kept");

    await b.turn('b2', [{ name: 'write', args: { path: 'b.txt', content: 'b2' } }], write(d.cwd, 'b.txt', 'b2\n'));
    assert.deepEqual(b.notified, [], 'B stays on');
    const { lines } = await linesOf(b.file, d.agentDir);
    const before = lines.at(-2)!;
    assert.equal(before.kind, 'before');
    assert.deepEqual(before.between, ['README.md'], "the user's edit, as the turn's 'before' found it");
    const readme = (await store.lookup(before.tree, ['README.md'])).get('README.md')!;
    assert.equal((await store.readBlobs([readme.sha])).get(readme.sha)!.toString(), 'readme, edited by the user\n');
    assert.equal(await has(store, blobOf('A1 only session A saw\n')), false, 'what only A kept is freed');
    await newSessionCaptures(d);
  });

  it('the checkpoints of a session deleted while its pi runs: its next snapshots are whole, and no restore deletes on a lost tree', async () => {
    const d = setup();
    mkdirSync(join(d.cwd, 'docs'));
    for (let i = 0; i < 5; i++) writeFileSync(join(d.cwd, 'docs', `d${i}.txt`), `doc ${i}\n`);
    const b = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, id: B, watch: {} });
    await b.turn('b1', [{ name: 'write', args: { path: 'a.txt', content: 'a1' } }], write(d.cwd, 'a.txt', 'a1\n'));
    assert.equal(await b.capture!.watchArmed(), true);
    await b.turn('b2', [{ name: 'write', args: { path: 'a.txt', content: 'a2' } }], write(d.cwd, 'a.txt', 'a2\n'));
    assert.ok(b.capture!.timings.at(-1)!.listed, "the 'after' took the watcher's list");
    // pi is idle for a while, then the user deletes this session's checkpoints (its pi still runs)
    const store = CheckpointStore.existing(d.agentDir, d.cwd, DEFAULT_SETTINGS)!;
    backdate(store.where.gitDir, 10 * 60_000);
    await deleteCheckpoints(d.agentDir, d.cwd, B);

    const t3 = await b.turn(
      'b3',
      [{ name: 'write', args: { path: 'a.txt', content: 'a3' } }],
      write(d.cwd, 'a.txt', 'a3\n'),
    );
    assert.deepEqual(b.notified, [], 'B stays on');
    const { lines } = await linesOf(b.file, d.agentDir);
    assert.deepEqual(
      lines.map((l) => l.kind),
      ['before', 'after'],
    );
    for (const l of lines) {
      const files = await store.listTree(l.tree);
      assert.deepEqual([...files.keys()].sort(), [
        'README.md',
        'a.txt',
        ...[0, 1, 2, 3, 4].map((i) => `docs/d${i}.txt`),
      ]);
    }
    await store.run(['fsck', '--connectivity-only', '--no-dangling']);
    const sc = sessionCode(await Session.open(b.file), { agentDir: d.agentDir, vouched: () => true });
    const plan = await planRestore(sc, t3.user);
    assert.deepEqual(
      plan.items.map((i) => `${i.action} ${i.key}`),
      ['modify a.txt'],
      "the code before b3 holds a.txt ('a2'): changed back, never deleted",
    );
  });

  it('a restore to a node whose tree the store lost is refused in words, never planned as deletes', async () => {
    const d = setup();
    const b = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, id: B, watch: false });
    await b.turn('b1', [{ name: 'write', args: { path: 'a.txt', content: 'a1' } }], write(d.cwd, 'a.txt', 'a1\n'));
    const t2 = await b.turn(
      'b2',
      [{ name: 'write', args: { path: 'a.txt', content: 'a2' } }],
      write(d.cwd, 'a.txt', 'a2\n'),
    );
    const { lines, store } = await linesOf(b.file, d.agentDir);
    const before = lines.find((l) => l.kind === 'before' && l.entries.includes(t2.user))!;
    rmSync(join(store.where.gitDir, 'objects', before.tree.slice(0, 2), before.tree.slice(2)));
    const sc = sessionCode(await Session.open(b.file), { agentDir: d.agentDir, vouched: () => true });
    await assert.rejects(planRestore(sc, t2.user), /lost the tree/);
    assert.equal(readFileSync(join(d.cwd, 'a.txt'), 'utf8'), 'a2\n');
  });

  it("checkpoints deleted while another collect's gc runs: the delete succeeds, that gc prunes", async () => {
    const d = setup();
    await sessionA(d);
    const store = CheckpointStore.existing(d.agentDir, d.cwd, DEFAULT_SETTINGS)!;
    // What git leaves while its gc runs (another pi's collect): this host, a live pid.
    writeFileSync(join(store.where.gitDir, 'gc.pid'), `${process.pid} ${hostname()}`);
    assert.equal(await deleteCheckpoints(d.agentDir, d.cwd, A), true);
    assert.equal(existsSync(store.manifestFile(A)), false, 'the session has no checkpoints');
    rmSync(join(store.where.gitDir, 'gc.pid'));
  });

  it('an index naming an object the store lost is made again from a whole walk; capture stays on, and so do later sessions', async () => {
    const d = setup();
    const b = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, id: B, watch: false });
    await b.turn('b1', [{ name: 'write', args: { path: 'b.txt', content: 'b1' } }], write(d.cwd, 'b.txt', 'b1\n'));
    writeFileSync(join(d.cwd, 'README.md'), 'readme, edited by the user\n');
    const store = CheckpointStore.existing(d.agentDir, d.cwd, DEFAULT_SETTINGS)!;
    await store.treeNow(B);
    // Lost (a collect of an older pi-tree, a disk error): the blob the index names for README.md.
    const sha = blobOf('readme, edited by the user\n');
    rmSync(join(store.where.gitDir, 'objects', sha.slice(0, 2), sha.slice(2)));
    assert.equal(await has(store, sha), false);

    await b.turn('b2', [{ name: 'write', args: { path: 'b.txt', content: 'b2' } }], write(d.cwd, 'b.txt', 'b2\n'));
    assert.deepEqual(b.notified, [], 'B stays on');
    const { lines } = await linesOf(b.file, d.agentDir);
    assert.deepEqual(lines.at(-1)!.changed, ['b.txt']);
    assert.equal(await has(store, sha), true, 'hashed again');
    await store.run(['fsck', '--connectivity-only', '--no-dangling']);
    await newSessionCaptures(d);
  });
});
