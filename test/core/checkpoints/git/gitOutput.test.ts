// git's outputs parsed on bytes captured from git 2.39 (test/fixtures/git/: a repository with a file
// named with a tab, one with a line break, a link, an executable; a second in SHA-256), and checked
// once more against the git on this machine, so a change in git's format shows here first.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  countConflicts,
  isObjectId,
  lines,
  parseTree,
  readBatch,
  readBatchCheck,
  readCountObjects,
  readDiffTree,
  readId,
  readLsTree,
  readVersion,
  serializeTree,
  zNames,
} from '../../../../src/core/checkpoints/git/gitOutput.js';
import { tempDir } from '../../../support/tmp.js';

const F = join(__dirname, '..', '..', '..', 'fixtures', 'git');
const bin = (n: string) => readFileSync(join(F, n));
const [T1, , BLOB] = bin('ids.txt').toString('utf8').trim().split(' ');
const [S256] = bin('ids-sha256.txt').toString('utf8').trim().split(' ');

describe("git's outputs, parsed in one module", () => {
  it('object ids of 40 and 64 hex; the one id a command prints', () => {
    assert.ok(isObjectId(T1) && isObjectId(S256));
    assert.equal(S256.length, 64);
    for (const bad of ['', 'HEAD', T1.slice(1), T1.toUpperCase(), `${T1}0`, `-${T1.slice(1)}`])
      assert.equal(isObjectId(bad), false, bad);
    assert.equal(readId(Buffer.from(`${T1}\n`)), T1);
    assert.throws(() => readId(Buffer.from('fatal: oops\n')), /where an object id belongs/);
  });

  it('cat-file --batch: a blob, a tree, and a name that is missing, in order', () => {
    const [blob, tree, missing] = readBatch(bin('cat-file-batch.bin'), 3);
    assert.deepEqual(blob, { id: BLOB, type: 'blob', body: Buffer.from('one\n') });
    assert.ok(!('missing' in tree) && tree.type === 'tree' && tree.id === T1);
    assert.deepEqual(missing, { missing: true });
    assert.throws(() => readBatch(bin('cat-file-batch.bin'), 4), /answered 3 of 4/);
    assert.throws(() => readBatch(bin('cat-file-batch.bin').subarray(0, 50), 1), /cut .* short/);
  });

  it('tree objects: names with a tab or a line break, a link, an executable; written back byte for byte', () => {
    const [, tree] = readBatch(bin('cat-file-batch.bin'), 2);
    assert.ok(!('missing' in tree));
    const entries = parseTree(tree.body);
    assert.deepEqual(
      entries.map((e) => [e.mode, e.name]),
      [
        ['100644', 'a.txt'],
        ['40000', 'dir with space'],
        ['120000', 'link'],
        ['100755', 'run.sh'],
        ['40000', 'src'],
      ],
    );
    assert.ok(serializeTree([...entries].reverse()).equals(tree.body), 'sorted as git sorts');
    assert.throws(() => parseTree(tree.body.subarray(0, tree.body.length - 3)), /cut short/);
  });

  it('SHA-256: a tree of 32-byte ids, and ls-tree', () => {
    const [tree] = readBatch(bin('cat-file-batch-sha256.bin'), 1);
    assert.ok(!('missing' in tree) && tree.id === S256);
    const entries = parseTree(tree.body, tree.id.length / 2);
    assert.deepEqual(
      entries.map((e) => [e.mode, e.name, e.sha.length]),
      [
        ['100644', 'a.txt', 64],
        ['40000', 'd', 64],
      ],
    );
    assert.deepEqual(
      readLsTree(bin('ls-tree-r-z-sha256.bin')).map((r) => r.path),
      ['a.txt', 'd/b.txt'],
    );
  });

  it('cat-file --batch-check', () => {
    assert.deepEqual(readBatchCheck(bin('cat-file-batch-check.txt')), [
      { id: T1, type: 'tree', size: 170 },
      { missing: true },
    ]);
  });

  it('ls-tree -r -z: every file with its mode, names as they are', () => {
    const rows = readLsTree(bin('ls-tree-r-z.bin'));
    assert.deepEqual(
      rows.map((r) => [r.path, r.file.mode.toString(8), r.type]),
      [
        ['a.txt', '100644', 'blob'],
        ['dir with space/f\ttab.txt', '100644', 'blob'],
        ['link', '120000', 'blob'],
        ['run.sh', '100755', 'blob'],
        ['src/new\nline.ts', '100644', 'blob'],
      ],
    );
    assert.equal(rows[0].file.sha, BLOB);
  });

  it('diff-tree -r -t -z: added, deleted, changed, a mode change, and the folders above', () => {
    const changes = readDiffTree(bin('diff-tree-r-t-z.bin'));
    const by = Object.fromEntries(
      changes.map((c) => [c.path, [c.a?.mode.toString(8) ?? null, c.b?.mode.toString(8) ?? null]]),
    );
    assert.deepEqual(by, {
      'a.txt': ['100644', '100644'],
      link: ['120000', null],
      'run.sh': ['100755', '100644'],
      src: ['40000', '40000'],
      'src/z.ts': [null, '100644'],
    });
    assert.equal(changes.find((c) => c.path === 'a.txt')!.a!.sha, BLOB);
  });

  it('ls-files -z: a name that is not UTF-8 is set apart', () => {
    const { names, invalid } = zNames(bin('ls-files-others-z.bin'));
    assert.deepEqual(names, ['ok.txt']);
    assert.equal(invalid.length, 1);
    assert.match(invalid[0], /^bad\uFFFD\.txt$/);
  });

  it('count-objects -v, git version, merge-file conflicts, line lists', () => {
    assert.equal(
      readCountObjects(
        Buffer.from(
          'count: 3\nsize: 12\nin-pack: 0\npacks: 1\nsize-pack: 8\nprune-packable: 0\ngarbage: 0\nsize-garbage: 0\n',
        ),
      ),
      20 * 1024,
    );
    assert.equal(readCountObjects(bin('count-objects-v.txt')) % 1024, 0);
    assert.deepEqual(readVersion(bin('git-version.txt')), [2, 39]);
    assert.deepEqual(readVersion(Buffer.from('git version 2.45.1.windows.1\n')), [2, 45]);
    assert.equal(countConflicts(bin('merge-file-conflict.bin'), 'yours'), 1);
    assert.equal(countConflicts(Buffer.from('text <<<<<<< yours\n'), 'yours'), 0, 'a marker only at a line start');
    assert.deepEqual(lines(Buffer.from('a\n\nb\n')), ['a', 'b']);
  });

  it('the git on this machine prints the same shapes', () => {
    const dir = tempDir('pi-git-out-');
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    const git = (args: string[], input?: string) => execFileSync('git', args, { cwd: dir, env, input });
    git(['init', '-q']);
    writeFileSync(join(dir, 'a.txt'), 'one\n');
    writeFileSync(join(dir, 'b\tc.txt'), 'two\n');
    git(['add', '-A']);
    const tree = readId(git(['write-tree']));
    const [o] = readBatch(git(['cat-file', '--batch'], `${tree}\n`), 1);
    assert.ok(!('missing' in o));
    assert.deepEqual(
      parseTree(o.body).map((e) => e.name),
      ['a.txt', 'b\tc.txt'],
    );
    assert.deepEqual(
      readLsTree(git(['ls-tree', '-r', '-z', '--full-tree', tree])).map((r) => r.path),
      ['a.txt', 'b\tc.txt'],
    );
  });
});
