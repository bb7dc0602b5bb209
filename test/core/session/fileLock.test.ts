// The write lock between pi-tree processes (issue #13 item 3): a lock that cannot be removed is an
// error, not a busy loop; a live holder's lock is never taken over for being old, and two real
// processes never append under the same parent; a future mtime does not make a lock eternal.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Session } from '../../../src/core/session/session.js';
import { JsonlStorage } from '../../../src/core/session/storage.js';
import { assistant, lines, sessionText, tempDir, tempFile, user } from '../../support/tmp.js';
import { until } from '../../../scripts/lib/until.js';

const WRITER = join(__dirname, '..', '..', 'support', 'lockWriter.ts');
const base = () => sessionText([user('u1', null, 'one'), assistant('a1', 'u1', 'r1')]);
const msg = (t: string) => ({ role: 'user', content: t, timestamp: Date.now() }) as never;

function run(args: string[]): { done: Promise<{ code: number | null; err: string }> } {
  const p = spawn(process.execPath, ['--import', 'tsx', WRITER, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  p.stderr.on('data', (d) => (err += d));
  return { done: new Promise((r) => p.on('close', (code) => r({ code, err }))) };
}

/** Every entry's parent is distinct: no two writers appended under the same leaf. */
function assertChain(file: string): void {
  const parents = lines(file)
    .slice(1)
    .map((e) => e.parentId);
  assert.equal(new Set(parents).size, parents.length, `two entries share a parent: ${JSON.stringify(parents)}`);
}

describe('pi-tree write lock', { timeout: 60_000 }, () => {
  it('(a) a lock path that cannot be removed (a directory) fails promptly with a clear message', async () => {
    const text = base();
    const file = tempFile(text);
    mkdirSync(`${file}.pi-tree.lock`);
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(`${file}.pi-tree.lock`, old, old);
    const s = await Session.open(file);
    // (said on the first look at the lock, before any wait: the busy error after a wait reads otherwise)
    await assert.rejects(s.appendMessage(msg('x')), /pi-tree\.lock is a directory, not a pi-tree lock file; remove it/);
    assert.equal(readFileSync(file, 'utf8'), text);
  });

  it('(b) a live holder keeps its lock however long it writes; the waiter appends after it, under its entry (two processes)', async () => {
    const file = tempFile(base());
    const dir = tempDir();
    const marker = join(dir, 'held');
    const release = join(dir, 'release');
    const holder = run(['hold', file, marker, release]);
    await until(() => existsSync(marker), 30_000, 'the holder to take the lock');
    const heldAt = Number(readFileSync(marker, 'utf8'));
    const waiter = run(['append', file, '1', 'waiter']);
    // The old lock was "stale" after 5 s whoever held it: let the holder keep it longer than that.
    await until(() => Date.now() - heldAt > 6500, 30_000, 'the holder to hold the lock past 6.5 s');
    assert.equal(lines(file).length, 3, 'the waiter has not written while the lock was held');
    writeFileSync(release, '');
    const [h, w] = await Promise.all([holder.done, waiter.done]);
    assert.equal(h.code, 0, h.err);
    assert.equal(w.code, 0, w.err);
    const es = lines(file).slice(1);
    assert.deepStrictEqual(
      es.map((e) => e.parentId),
      [null, 'u1', 'a1', 'holder01'],
    );
    assert.equal(existsSync(`${file}.pi-tree.lock`), false);
  });

  it('(b) a lock whose holder is alive is not taken over for its age: the write waits, then fails saying who holds it', async () => {
    const text = base();
    const file = tempFile(text);
    const lock = `${file}.pi-tree.lock`;
    writeFileSync(
      lock,
      `${JSON.stringify({ pid: process.pid, host: require('node:os').hostname(), token: 'someone-else' })}\n`,
    );
    const old = new Date(Date.now() - 8000);
    utimesSync(lock, old, old);
    const s = await Session.fromStorage(new JsonlStorage(file, { waitMs: 1500 }));
    await assert.rejects(
      s.appendMessage(msg('x')),
      new RegExp(`pi-tree process ${process.pid} is writing this session`),
    );
    assert.equal(readFileSync(file, 'utf8'), text);
    assert.ok(existsSync(lock), "the holder's lock is left alone");
  });

  it('(b) a lock whose holder is gone is taken over at once; two processes contending keep one chain', async () => {
    const file = tempFile(base());
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => dead.on('close', r));
    writeFileSync(
      `${file}.pi-tree.lock`,
      `${JSON.stringify({ pid: dead.pid, host: require('node:os').hostname(), token: 't' })}\n`,
    );
    const s = await Session.fromStorage(new JsonlStorage(file, { waitMs: 2000 }));
    await s.appendMessage(msg('after a dead holder'));
    const a = run(['append', file, '15', 'A']);
    const b = run(['append', file, '15', 'B']);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    assert.equal(ra.code, 0, ra.err);
    assert.equal(rb.code, 0, rb.err);
    assert.equal(lines(file).length, 1 + 2 + 1 + 30);
    assertChain(file);
  });

  it('(c) a lock with a future mtime and no readable holder is not eternal', async () => {
    const file = tempFile(base());
    const lock = `${file}.pi-tree.lock`;
    writeFileSync(lock, '');
    const future = new Date(Date.now() + 3_600_000);
    utimesSync(lock, future, future);
    const s = await Session.open(file);
    await s.appendMessage(msg('written'));
    assert.equal(lines(file).pop()!.message && (lines(file).pop()!.message as { content: string }).content, 'written');
    assert.equal(existsSync(lock), false);
  });
});
