// A variant's check: the user's command line run by the user's shell in the variant's folder. Its exit
// code and the end of its output come back; a check past its time, or cancelled, is stopped with
// everything it started (its own process group), and says so; one whose pi-tree is killed goes too.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCheck } from '../../../src/core/variants/variantCheck.js';
import { until } from '../../../scripts/lib/until.js';
import { tempDir } from '../../support/tmp.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a variant’s check', { skip: process.platform === 'win32' }, () => {
  it('runs the line in the folder with the user’s shell: exit code and output', async () => {
    const dir = tempDir('pi-check-');
    const c = await runCheck({
      command: 'pwd; echo oops >&2; exit 3',
      cwd: dir,
      env: { ...process.env, SHELL: '/bin/sh' },
    });
    assert.equal(c.exitCode, 3);
    assert.equal(c.output, `${dir}\noops\n`);
    assert.ok(c.ms >= 0);
  });

  it('keeps only the end of a long output', async () => {
    const c = await runCheck({ command: 'seq 1 100000', cwd: tempDir('pi-check-'), maxOutput: 1000 });
    assert.equal(c.exitCode, 0);
    assert.ok(c.output.length <= 1000, `${c.output.length}`);
    assert.ok(c.output.endsWith('99999\n100000\n'));
  });

  it('past its time it is stopped with what it started', async () => {
    const dir = tempDir('pi-check-');
    const c = await runCheck({ command: 'sleep 300 & echo $! > child.pid; wait', cwd: dir, timeoutMs: 300 });
    assert.equal(c.exitCode, null);
    assert.equal(c.signal, 'SIGTERM');
    assert.match(c.output, /pi-tree: the check ran past 300 ms and was stopped\n$/);
    const child = Number(readFileSync(join(dir, 'child.pid'), 'utf8'));
    await until(() => !alive(child), 10_000, 'the background sleep gone');
  });

  it('a cancel stops it; one cancelled before it starts never runs', async () => {
    const dir = tempDir('pi-check-');
    const ac = new AbortController();
    const p = runCheck({ command: 'echo started > started.txt; sleep 300', cwd: dir, signal: ac.signal });
    await until(() => existsSync(join(dir, 'started.txt')), 10_000, 'the check started');
    ac.abort();
    const c = await p;
    assert.match(c.output, /pi-tree: the check was cancelled\n$/);
    const never = await runCheck({ command: 'echo x > ran.txt', cwd: dir, signal: ac.signal });
    assert.equal(never.exitCode, null);
    assert.equal(existsSync(join(dir, 'ran.txt')), false);
  });
  it('a kill -9 of the process that runs it stops the check and what it started', async () => {
    const dir = tempDir('pi-check-');
    const host = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(__dirname, '..', '..', 'support', 'checkHost.ts'),
        dir,
        'echo $$ > shell.pid; sleep 300 & echo $! > child.pid; wait',
      ],
      { stdio: 'ignore' },
    );
    await until(
      () => existsSync(join(dir, 'child.pid')) && readFileSync(join(dir, 'child.pid'), 'utf8').endsWith('\n'),
      30_000,
      'the check started',
    );
    const shell = Number(readFileSync(join(dir, 'shell.pid'), 'utf8'));
    const child = Number(readFileSync(join(dir, 'child.pid'), 'utf8'));
    assert.ok(alive(shell) && alive(child), 'the check runs');
    const gone = new Promise((r) => host.once('exit', r));
    host.kill('SIGKILL');
    await gone;
    await until(() => !alive(shell) && !alive(child), 15_000, 'the check and its background sleep gone');
  });
});
