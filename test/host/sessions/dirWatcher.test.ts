import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DirWatcher } from '../../../src/host/sessions/dirWatcher.js';
import { tempDir } from '../../support/tmp.js';

const until = async (cond: () => boolean, ms = 5000) => {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

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
      await until(() => seen.includes(f));
      seen.length = 0;
      appendFileSync(f, '{"x":1}\n');
      await until(() => seen.includes(f));
      seen.length = 0;
      writeFileSync(join(dir, 'notes.txt'), 'x');
      unlinkSync(f);
      await until(() => seen.includes(f));
      assert.ok(!seen.some((p) => p.endsWith('.txt')));
    } finally {
      w.dispose();
    }
  });
});
