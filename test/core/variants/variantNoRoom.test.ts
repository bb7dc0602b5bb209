// A disk without room while a variant is prepared gives one clear message and keeps nothing: no folder,
// no record, no store, no session file. On a real file system too small for it: a tmpfs mounted over
// the variants root in a user and mount namespace of the test's own (`unshare -rm`; skipped where the
// kernel does not allow one). The room is checked before the first byte (a tmpfs of 1 MB for 3 MB of
// code); a disk that fills up anyway (a tmpfs out of inodes, the code's or the dependency folders'
// files) is cleaned up after.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { variantProject, write } from '../../support/variantProject.js';

const NO_ROOM = join(__dirname, '..', '..', 'support', 'variantNoRoom.ts');
const canUnshare = spawnSync('unshare', ['-rm', 'true']).status === 0;

async function attempt(files: Record<string, string>, tmpfs: string, deps = 0) {
  const p = variantProject(files);
  for (let i = 0; i < deps; i++) p.put(`node_modules/pkg${i}/index.js`, `module.exports = ${i};\n`);
  const node = await p.sim.turn('node', [write('n.txt', 'n\n')], () => p.put('n.txt', 'n\n'));
  const root = join(p.agentDir, 'pi-tree', 'variants');
  mkdirSync(root, { recursive: true });
  const script = 'mount -t tmpfs -o "$1" tmpfs "$2" && shift 2 && exec "$@"';
  const r = spawnSync(
    'unshare',
    [
      '-rm',
      'sh',
      '-c',
      script,
      'sh',
      tmpfs,
      root,
      process.execPath,
      '--import',
      'tsx',
      NO_ROOM,
      p.agentDir,
      p.sim.file,
      node.answer,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as {
    error: string | null;
    name?: string;
    variants: string[];
    storesAdded: number;
    sessionsAdded: number;
  };
}

const big = Object.fromEntries(
  Array.from({ length: 10 }, (_, i) => [`big${i}.txt`, `${'x'.repeat(299)}\n`.repeat(1000)]),
);
const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}.txt`, `${i}\n`]));

describe(
  'a disk without room for a variant',
  { skip: !canUnshare && 'no user and mount namespaces here (unshare -rm)' },
  () => {
    it('is refused before the first byte, in one message; nothing is kept', async () => {
      const r = await attempt(big, 'size=1m');
      assert.equal(r.name, 'NoRoomError', String(r.error));
      assert.match(
        r.error!,
        /^the disk has [\d.]+ MB free where the folder goes .* and the code takes about [\d.]+ MB; nothing was written$/,
      );
      assert.deepEqual(r.variants, []);
      assert.equal(r.storesAdded, 0);
      assert.equal(r.sessionsAdded, 0);
    });

    it('filling up while the code is written: one message, the folder and its store removed', async () => {
      const r = await attempt(many, 'size=50m,nr_inodes=30');
      assert.equal(r.name, 'NoRoomError', String(r.error));
      assert.match(r.error!, /^the disk filled up while the code was written into .*; nothing was kept$/);
      assert.deepEqual(r.variants, []);
      assert.equal(r.storesAdded, 0);
      assert.equal(r.sessionsAdded, 0);
    });

    it('filling up while the dependency folders are copied: the same', async () => {
      const r = await attempt({ 'a.txt': 'a\n', '.gitignore': 'node_modules/\n' }, 'size=50m,nr_inodes=60', 200);
      assert.equal(r.name, 'NoRoomError', String(r.error));
      assert.match(
        r.error!,
        /^the disk filled up while the variant's folder was made \(.*ENOSPC.*\); nothing was kept$/,
      );
      assert.deepEqual(r.variants, []);
      assert.equal(r.storesAdded, 0);
      assert.equal(r.sessionsAdded, 0);
    });
  },
);
