import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { DirWatcher } from '../../../src/host/sessions/dirWatcher.js';
import { entry, sessionText, tempDir, user } from '../../support/tmp.js';
import { until } from '../../../scripts/lib/until.js';

describe('directory watching', () => {
  it('reports new, growing and deleted sessions, including in a directory created later', async () => {
    const root = tempDir();
    const dir = join(root, '--proj--');
    const seen: string[] = [];
    const w = new DirWatcher(
      (p) => seen.push(p),
      () => {},
      { debounceMs: 10, pollMs: 100 },
    );
    try {
      w.setDirs([dir]);
      await w.idle(); // the first look found no directory
      mkdirSync(dir);
      const f = join(dir, 'a.jsonl');
      await w.whenPrimed(dir); // a later poll found it: files from now on are new
      writeFileSync(f, '{"type":"session"}\n');
      await until(() => seen.includes(f), 5000, 'the new session reported');
      seen.length = 0;
      appendFileSync(f, '{"x":1}\n');
      await until(() => seen.includes(f), 5000, 'the grown session reported');
      seen.length = 0;
      writeFileSync(join(dir, 'notes.txt'), 'x');
      unlinkSync(f);
      await until(() => seen.includes(f), 5000, 'the deleted session reported');
      assert.ok(!seen.some((p) => p.endsWith('.txt')));
    } finally {
      w.dispose();
    }
  });

  it('a listing uses the rows of files the watcher saw no change of without a stat, and reads a file it saw change', async () => {
    const root = tempDir();
    const repo = new SessionRepository({ env: { PI_CODING_AGENT_DIR: root } });
    const cwd = '/proj';
    const dir = repo.dirFor(cwd);
    mkdirSync(dir, { recursive: true });
    const header = (id: string) => ({ type: 'session', version: 3, id, timestamp: '2026-01-01T00:00:00.000Z', cwd });
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    writeFileSync(a, sessionText([user('a1', null, 'first of a')], header('a')));
    writeFileSync(b, sessionText([user('b1', null, 'first of b')], header('b')));
    const w = new DirWatcher(
      () => {},
      () => {},
      { debounceMs: 10, pollMs: 100 },
    );
    const vouched = new Set<string>();
    const unchanged = (f: string, at: number) => {
      const yes = w.unchanged(f, at);
      if (yes) vouched.add(f);
      return yes;
    };
    try {
      const before = performance.now();
      assert.equal(w.unchanged(a, before), false, 'no watcher yet');
      w.setDirs([dir]);
      await w.idle();
      assert.equal(w.unchanged(a, before), false, 'checked before the watch began: not vouched for');
      const first = await repo.list(cwd, { unchanged });
      assert.equal(vouched.size, 0, 'rows read before the watch began are checked');
      assert.deepEqual(first.map((i) => i.name ?? i.firstMessage).sort(), ['first of a', 'first of b']);
      await repo.list(cwd, { unchanged });
      assert.deepEqual([...vouched].sort(), [a, b], 'both rows from the cache without a stat');
      const t = performance.now();
      appendFileSync(a, `${JSON.stringify(entry('session_info', 'n1', 'a1', { name: 'renamed a' }))}\n`);
      await until(() => !w.unchanged(a, t), 5000, 'the watcher to see a.jsonl change');
      assert.equal(w.unchanged(b, t), true);
      vouched.clear();
      const after = await repo.list(cwd, { unchanged });
      assert.deepEqual([...vouched], [b], 'the changed file is not vouched for');
      assert.equal(after.find((i) => i.path === a)?.name, 'renamed a', 'and is read again');
      assert.equal(w.unchanged(join(root, 'elsewhere', 'x.jsonl'), performance.now()), false, 'a folder not watched');
    } finally {
      w.dispose();
    }
  });
});
