// Whether a pi may run, from the process table: a process that calls itself pi (as pi does), or runs
// pi's script, counts; pi-tree's own processes and other programs do not. A real process titled as pi
// makes the answer true; a /proc without one, false; no /proc, unknown.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isPiCommandLine, piMayRun } from '../../../src/core/platform/piProcesses.js';
import { until } from '../../../scripts/lib/until.js';
import { tempDir } from '../../support/tmp.js';

describe('a pi in the process table', () => {
  it('tells pi command lines from others', () => {
    assert.equal(isPiCommandLine('pi\0\0\0\0'), true, "pi's own title");
    assert.equal(isPiCommandLine('pi-rpc\0'), true);
    assert.equal(
      isPiCommandLine(
        '/usr/bin/node\0/usr/lib/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js\0--session\0x',
      ),
      true,
    );
    assert.equal(isPiCommandLine('node\0/home/me/.local/bin/pi\0'), true);
    assert.equal(isPiCommandLine('node\0/usr/lib/node_modules/pi-tree/dist/cli.js\0restore\0'), false);
    assert.equal(isPiCommandLine('/usr/bin/python3\0pipeline.py\0'), false);
    assert.equal(isPiCommandLine('vim\0pi.txt\0'), false);
  });

  it('reads a /proc: false without a pi, true with one, unknown without a /proc', () => {
    const proc = tempDir('pi-proc-');
    for (const [pid, cmd] of [
      ['100', 'bash\0'],
      ['200', 'node\0/x/pi-tree/dist/cli.js\0'],
    ]) {
      mkdirSync(join(proc, pid));
      writeFileSync(join(proc, pid, 'cmdline'), cmd);
    }
    mkdirSync(join(proc, 'self'));
    assert.equal(piMayRun(proc), false);
    mkdirSync(join(proc, '300'));
    writeFileSync(join(proc, '300', 'cmdline'), 'pi\0');
    assert.equal(piMayRun(proc), true);
    assert.equal(piMayRun(join(proc, 'none')), undefined);
  });

  it('finds a real process that names itself pi (Linux)', { skip: process.platform !== 'linux' }, async () => {
    const child = spawn(
      process.execPath,
      ['-e', "process.title = 'pi'; console.log('up'); setInterval(() => {}, 1000)"],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      await until(() => piMayRun() === true, 30_000, 'the process table shows the pi');
    } finally {
      child.kill();
    }
  });
});
