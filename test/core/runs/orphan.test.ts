// What a kill -9 of pi-tree leaves while a headless pi runs a turn: pi-tree cannot stop pi then, but the
// pipe to pi's stdin closes with it, and pi 1.6.0 takes that EOF as its orderly shutdown: it aborts the
// turn (the answer so far is written as one whole line, stopReason "aborted") and exits. No orphan pi,
// no torn line.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pidAlive } from '../../../src/core/piClient/discovery.js';
import { until } from '../../../scripts/lib/until.js';
import { fileEntries, writeTwoTurns } from '../../piExtension/helpers.js';
import { PI_PROGRAM, startAskLoop, type AskLoop } from '../../support/askPi.js';
import { PI_REPLY_MS, PI_START_MS } from '../../support/piRpc.js';

describe('a kill -9 of pi-tree during a headless turn', () => {
  let loop: AskLoop;
  before(async () => {
    loop = await startAskLoop();
  });
  after(async () => {
    loop.newHold().open();
    await loop.lb.close();
  });

  it("leaves no pi running and no torn line: pi's stdin closes, pi aborts the turn and exits", async () => {
    const { file } = writeTwoTurns(loop.pe.workDir, 'orphan.jsonl');
    const hold = loop.newHold();
    const p = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join('test', 'support', 'writers', 'turn-once.ts'),
        file,
        loop.pe.workDir,
        'a slow one',
        JSON.stringify(PI_PROGRAM),
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: loop.pe.env,
      },
    );
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    const exited = new Promise<void>((r) => p.once('exit', () => r()));
    const line = await until(
      () =>
        /^stopped turn (\d+)$/m.exec(out) ??
        (p.exitCode !== null ? assert.fail(`the writer exited: ${err}`) : undefined),
      PI_START_MS,
      () => `the turn to stream (stderr ${err})`,
    );
    const piPid = Number(line[1]);
    assert.ok(pidAlive(piPid), 'pi runs the turn');
    p.kill('SIGKILL');
    await exited;
    await until(() => !pidAlive(piPid), PI_REPLY_MS, `pi ${piPid} to exit after its parent was killed`);
    hold.open();
    const text = readFileSync(file, 'utf8');
    assert.ok(text.endsWith('\n'), 'no torn last line');
    for (const l of text.split('\n').filter(Boolean)) JSON.parse(l);
    const last = fileEntries(file).at(-1)!;
    assert.equal(last.message?.role, 'assistant');
    assert.equal(last.message?.stopReason, 'aborted', 'pi wrote the answer so far as aborted');
  });
});
