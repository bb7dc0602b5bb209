import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ensurePrivateDir, isPrivateDir } from '../../../src/core/platform/privateDir.js';
import { tempDir } from '../../support/tmp.js';

const posix = process.platform !== 'win32';
const asRoot = process.getuid?.() === 0;

describe('private folders (bridges, checkpoint store, journals)', () => {
  it('creates the folder and its parents, only this user may enter it', () => {
    const dir = join(tempDir(), 'a', 'b');
    assert.equal(isPrivateDir(dir), false, 'not there yet');
    ensurePrivateDir(dir);
    assert.ok(statSync(dir).isDirectory());
    if (posix) assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(isPrivateDir(dir), true);
  });

  it(
    'takes group and other bits off a folder of ours that has them, and is not private until then',
    { skip: !posix },
    () => {
      const dir = join(tempDir(), 'open');
      mkdirSync(dir, { mode: 0o755 });
      chmodSync(dir, 0o755);
      assert.equal(isPrivateDir(dir), false);
      ensurePrivateDir(dir);
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      assert.equal(isPrivateDir(dir), true);
    },
  );

  it('refuses a symlink or a file in its place, and does not follow the link', { skip: !posix }, () => {
    const root = tempDir();
    const target = join(root, 'elsewhere');
    mkdirSync(target, { mode: 0o755 });
    chmodSync(target, 0o755);
    const link = join(root, 'link');
    symlinkSync(target, link);
    assert.throws(() => ensurePrivateDir(link), /is not a directory/);
    assert.equal(statSync(target).mode & 0o777, 0o755, "the link's target is left as it was");
    assert.equal(isPrivateDir(link), false);
    const file = join(root, 'file');
    writeFileSync(file, '');
    assert.throws(() => ensurePrivateDir(file));
    assert.equal(isPrivateDir(file), false);
  });

  // .ci/run runs as root and sets PI_TREE_CI: there this case fails rather than skip.
  it(
    "refuses another user's folder and leaves its mode alone",
    { skip: !asRoot && !process.env.PI_TREE_CI ? 'acting as another user needs root (.ci/run runs as root)' : false },
    () => {
      assert.ok(asRoot, 'PI_TREE_CI is set: the other-user case must run, and needs root');
      const dir = join(tempDir(), 'theirs');
      mkdirSync(dir, { mode: 0o700 });
      chownSync(dir, 65534, 65534);
      assert.throws(() => ensurePrivateDir(dir), /belongs to another user/);
      assert.equal(isPrivateDir(dir), false);
      assert.equal(statSync(dir).mode & 0o777, 0o700);
    },
  );
});
