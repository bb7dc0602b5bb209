// The commit and ref a snapshot writes in-process (src/core/checkpoints/looseWrites.ts) are git's own:
// git reads them back, fsck finds nothing wrong, the same content gives the id `git commit-tree` gives,
// and a ref name that is not a plain one is left to `git update-ref`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  commitText,
  plainRefName,
  writeLooseObject,
  writeLooseRef,
} from '../../../../src/core/checkpoints/git/looseObjects.js';
import { CheckpointStore } from '../../../../src/core/checkpoints/store/store.js';
import { DEFAULT_SETTINGS } from '../../../../src/core/checkpoints/store/storePaths.js';
import { tempDir } from '../../../support/tmp.js';

const git = (gitDir: string, args: string[], env: Record<string, string> = {}, input?: string) =>
  execFileSync('git', args, {
    input,
    env: { ...process.env, GIT_DIR: gitDir, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ...env },
  })
    .toString('utf8')
    .trim();

test('a commit written in-process is the one git commit-tree writes, and git reads it', () => {
  const gitDir = join(tempDir('pi-loose-'), 'store.git');
  git(gitDir, ['init', '-q', '--bare', gitDir]);
  const tree = git(gitDir, ['mktree'], {});
  const when = new Date('2026-12-03T10:00:00Z');
  const sha = writeLooseObject(gitDir, 'commit', Buffer.from(commitText(tree, 'before 1a2b3c4d', when)));
  const stamp = `${when.getTime() / 1000} +0000`;
  const ident = {
    GIT_AUTHOR_NAME: 'pi-tree',
    GIT_AUTHOR_EMAIL: 'pi-tree@localhost',
    GIT_COMMITTER_NAME: 'pi-tree',
    GIT_COMMITTER_EMAIL: 'pi-tree@localhost',
    GIT_AUTHOR_DATE: stamp,
    GIT_COMMITTER_DATE: stamp,
  };
  assert.equal(git(gitDir, ['commit-tree', tree, '-m', 'before 1a2b3c4d'], ident), sha, 'the same id as git gives');
  assert.equal(git(gitDir, ['cat-file', '-t', sha]), 'commit');
  assert.equal(git(gitDir, ['rev-parse', `${sha}^{tree}`]), tree);
  // Written again: nothing changes (the object is there), the id is the same.
  assert.equal(writeLooseObject(gitDir, 'commit', Buffer.from(commitText(tree, 'before 1a2b3c4d', when))), sha);
  // A NUL in a message (entry ids come from session files) does not make a commit git refuses.
  const odd = writeLooseObject(gitDir, 'commit', Buffer.from(commitText(tree, 'after a\0b', when)));
  assert.equal(git(gitDir, ['cat-file', '-t', odd]), 'commit');
  assert.ok(writeLooseRef(gitDir, 'refs/pi-tree/s1/after-1a2b3c4d', sha));
  assert.ok(writeLooseRef(gitDir, 'refs/pi-tree/s1/odd', odd));
  assert.equal(git(gitDir, ['rev-parse', 'refs/pi-tree/s1/after-1a2b3c4d']), sha);
  git(gitDir, ['fsck', '--strict', '--no-dangling']);
  assert.equal(
    git(gitDir, ['for-each-ref', '--format=%(refname)', 'refs/pi-tree/']),
    'refs/pi-tree/s1/after-1a2b3c4d\nrefs/pi-tree/s1/odd',
  );
});

test('a ref that is not a plain name, or whose lock is held, is not written here (git update-ref decides)', () => {
  const gitDir = join(tempDir('pi-loose-'), 'store.git');
  git(gitDir, ['init', '-q', '--bare', gitDir]);
  const sha = writeLooseObject(gitDir, 'commit', Buffer.from(commitText(git(gitDir, ['mktree']), 'x', new Date())));
  for (const bad of [
    'refs/pi-tree/s1/../../HEAD',
    'refs/pi-tree/s1/a..b',
    'refs/pi-tree/s1/x.lock',
    'refs/pi-tree/s1/.hidden',
    'refs/pi-tree/s1/a b',
    'refs/pi-tree/s1/end.',
    '/etc/passwd',
    'refs/pi-tree//x',
  ]) {
    assert.equal(plainRefName(bad), false, bad);
    assert.equal(writeLooseRef(gitDir, bad, sha), false, bad);
  }
  assert.equal(existsSync(join(gitDir, 'HEAD.lock')), false);
  assert.equal(readFileSync(join(gitDir, 'HEAD'), 'utf8').startsWith('ref:'), true, 'HEAD untouched');
  // Held by another writer: not written, the lock left to its owner.
  mkdirSync(join(gitDir, 'refs/pi-tree/s1'), { recursive: true });
  writeFileSync(join(gitDir, 'refs/pi-tree/s1/held.lock'), '');
  assert.equal(writeLooseRef(gitDir, 'refs/pi-tree/s1/held', sha), false);
  assert.ok(existsSync(join(gitDir, 'refs/pi-tree/s1/held.lock')));
  // A folder where the ref would go: not written (git names the clash).
  mkdirSync(join(gitDir, 'refs/pi-tree/s1/dir/sub'), { recursive: true });
  assert.equal(writeLooseRef(gitDir, 'refs/pi-tree/s1/dir', sha), false);
  assert.equal(existsSync(join(gitDir, 'refs/pi-tree/s1/dir.lock')), false, 'no lock left behind');
});

test('a snapshot with nothing changed gives the same tree without write-tree; a change since gives the new one', async () => {
  const root = tempDir('pi-loose-snap-');
  const cwd = join(root, 'proj');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'a.txt'), 'one\n');
  const store = await CheckpointStore.open(join(root, 'agent'), cwd, DEFAULT_SETTINGS);
  const first = await store.snapshot('s1', 'baseline');
  const again = await store.snapshot('s1', 'before x');
  assert.equal(again.tree, first.tree);
  assert.notEqual(again.commit, first.commit);
  writeFileSync(join(cwd, 'a.txt'), 'two\n');
  const changed = await store.snapshot('s1', 'after x');
  assert.notEqual(changed.tree, first.tree);
  assert.equal(git(store.where.gitDir, ['cat-file', '-p', `${changed.tree}:a.txt`]), 'two');
  assert.equal((await store.snapshot('s1', 'before y')).tree, changed.tree);
  // The index changed by someone else meanwhile (b.txt added to it by git): ls-files then lists
  // nothing new, but the index's stamp differs, so the tree is computed again, not taken from memory.
  writeFileSync(join(cwd, 'b.txt'), 'bee\n');
  git(store.where.gitDir, ['update-index', '--add', 'b.txt'], {
    GIT_INDEX_FILE: join(store.where.indexDir, 's1'),
    GIT_WORK_TREE: cwd,
    GIT_LITERAL_PATHSPECS: '1',
  });
  const other = await store.snapshot('s1', 'before z');
  assert.equal(git(store.where.gitDir, ['cat-file', '-p', `${other.tree}:b.txt`]), 'bee');
  await store.keep('s1', 'after-x', changed.commit);
  assert.equal(git(store.where.gitDir, ['rev-parse', 'refs/pi-tree/s1/after-x']), changed.commit);
  git(store.where.gitDir, ['fsck', '--strict', '--no-dangling']);
  // The bytes the objects take: loose ones by their files, packed ones by git; the same sum git gives.
  const ids = [first.commit, changed.commit, changed.tree, other.tree];
  const byGit = () =>
    git(store.where.gitDir, ['cat-file', '--batch-check=%(objectsize:disk)'], {}, ids.join('\n') + '\n')
      .split('\n')
      .reduce((n, l) => n + Number(l), 0);
  assert.equal(await store.objectBytes(ids), byGit());
  await store.packLoose();
  assert.equal(await store.objectBytes(ids), byGit(), 'packed');
});

test('an object written again is freshened, as git does: a collect running meanwhile keeps it', () => {
  const gitDir = join(tempDir('pi-loose-'), 'store.git');
  git(gitDir, ['init', '-q', '--bare', gitDir]);
  const body = Buffer.from('the same bytes\n');
  const sha = writeLooseObject(gitDir, 'blob', body);
  const file = join(gitDir, 'objects', sha.slice(0, 2), sha.slice(2));
  const old = new Date(Date.now() - 3_600_000);
  utimesSync(file, old, old);
  assert.equal(writeLooseObject(gitDir, 'blob', body), sha);
  assert.ok(Date.now() - statSync(file).mtimeMs < 600_000, 'its time is now');
  git(gitDir, ['fsck', '--strict']);
});
