// Which pi pi-tree starts: an absolute executable from PATH, never from a relative PATH entry or the
// session's (or workspace's) folder.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PiNotFoundError, resolvePiCommand } from '../../../src/core/bridge/piCommand.js';
import { tempDir } from '../../support/tmp.js';

function exe(dir: string, name = 'pi'): string {
  mkdirSync(dir, { recursive: true });
  const f = join(dir, name);
  writeFileSync(f, '#!/bin/sh\n');
  chmodSync(f, 0o755);
  return f;
}

describe('resolvePiCommand', { skip: process.platform === 'win32' }, () => {
  const root = tempDir('pi-tree-picmd-');
  const good = exe(join(root, 'bin'));
  const sessions = join(root, 'sessions');
  const planted = exe(sessions);

  it('finds pi in PATH and returns its absolute path', () => {
    assert.deepEqual(resolvePiCommand('pi', { env: { PATH: `/nonexistent:${join(root, 'bin')}` } }), { command: good, args: [] });
  });

  it('skips relative PATH entries and excluded folders', () => {
    const cwd = process.cwd();
    process.chdir(sessions);
    try {
      // "." and "" would find the planted pi in the current (session) folder.
      assert.throws(() => resolvePiCommand('pi', { env: { PATH: `.::${'sessions'}` } }), PiNotFoundError);
      assert.equal(resolvePiCommand('pi', { env: { PATH: `.:${sessions}:${join(root, 'bin')}` }, exclude: [sessions] }).command, good);
    } finally {
      process.chdir(cwd);
    }
    assert.throws(() => resolvePiCommand(planted, { exclude: [sessions] }), /inside the session's or workspace's folder/);
  });

  it('refuses relative paths, non-executables and missing commands with a clear message', () => {
    assert.throws(() => resolvePiCommand('./pi'), /relative path/);
    const plain = join(root, 'plain');
    writeFileSync(plain, 'x');
    chmodSync(plain, 0o644);
    assert.throws(() => resolvePiCommand(plain), /not an executable/);
    assert.throws(() => resolvePiCommand('pi', { env: { PATH: '/nonexistent' } }), /was not found in PATH/);
    assert.throws(() => resolvePiCommand('  '), /no pi command/);
  });
});
