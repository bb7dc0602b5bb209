import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findPi, PiNotFoundError } from '../../../src/core/platform/piProgram.js';
import { tempDir } from '../../support/tmp.js';

function exe(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, name);
  writeFileSync(p, '#!/bin/sh\n');
  chmodSync(p, 0o755);
  return p;
}

describe('finding pi to start it without a shell', () => {
  it('finds an executable on PATH, not a plain file or a directory', async () => {
    const d = tempDir();
    const pi = exe(d, 'pi');
    writeFileSync(join(d, 'notexec'), '');
    mkdirSync(join(d, 'adir'));
    assert.deepEqual(await findPi('pi', { env: { PATH: `/nope:${d}` }, platform: 'linux' }), { program: pi, args: [] });
    await assert.rejects(findPi('notexec', { env: { PATH: d }, platform: 'linux' }), PiNotFoundError);
    await assert.rejects(findPi('adir', { env: { PATH: d }, platform: 'linux' }), PiNotFoundError);
    await assert.rejects(
      findPi('pi', { env: { PATH: '' }, platform: 'linux' }),
      /npm install -g @earendil-works\/pi-coding-agent/,
    );
  });

  it('ignores relative PATH entries ("", ".", "bin") where a planted pi in the current folder would be found', async () => {
    const cwd = tempDir();
    exe(cwd, 'pi');
    exe(join(cwd, 'bin'), 'pi');
    const prev = process.cwd();
    process.chdir(cwd);
    try {
      await assert.rejects(findPi('pi', { env: { PATH: `.::bin` }, platform: 'linux' }), PiNotFoundError);
    } finally {
      process.chdir(prev);
    }
  });

  it("never picks a pi in the session's folder or its cwd, even when PATH names them", async () => {
    const sessionDir = tempDir();
    const planted = exe(sessionDir, 'pi');
    const good = exe(tempDir(), 'pi');
    assert.deepEqual(
      await findPi('pi', {
        env: { PATH: `${sessionDir}:${join(good, '..')}` },
        platform: 'linux',
        avoid: [sessionDir],
      }),
      { program: good, args: [] },
    );
    await assert.rejects(findPi(planted, { platform: 'linux', avoid: [sessionDir] }), /inside the session's folder/);
    // a subfolder of the cwd is fine (pi under ~/.local/bin while the session ran in ~)
    const home = tempDir();
    const local = exe(join(home, '.local', 'bin'), 'pi');
    assert.equal(
      (await findPi('pi', { env: { PATH: join(home, '.local', 'bin') }, platform: 'linux', avoid: [home] })).program,
      local,
    );
  });

  it('takes an absolute path or ~, refuses a relative one', async () => {
    const d = tempDir();
    const pi = exe(d, 'my-pi');
    assert.equal((await findPi(pi, { platform: 'linux' })).program, pi);
    await assert.rejects(findPi('./my-pi', { platform: 'linux' }), /absolute path/);
  });

  it("on Windows runs npm's pi.cmd shim as node + pi's script (a batch file re-parses its arguments)", async () => {
    const npmDir = tempDir();
    writeFileSync(
      join(npmDir, 'pi.cmd'),
      '@node "%~dp0\\node_modules\\@earendil-works\\pi-coding-agent\\dist\\cli.js" %*\r\n',
    );
    const pkg = join(npmDir, 'node_modules', '@earendil-works', 'pi-coding-agent');
    mkdirSync(join(pkg, 'dist'), { recursive: true });
    writeFileSync(
      join(pkg, 'package.json'),
      JSON.stringify({ name: '@earendil-works/pi-coding-agent', bin: { pi: 'dist/cli.js' } }),
    );
    writeFileSync(join(npmDir, 'node.exe'), '');
    const r = await findPi('pi', { env: { PATH: npmDir }, platform: 'win32' });
    assert.deepEqual(r, { program: join(npmDir, 'node.exe'), args: [join(pkg, 'dist/cli.js')] });
    // a batch file that is not npm's shim is refused, not run through cmd.exe
    const other = tempDir();
    writeFileSync(join(other, 'pi.bat'), '@echo off\r\n');
    await assert.rejects(findPi('pi', { env: { PATH: other }, platform: 'win32' }), /batch file/);
  });
});
