// What a snapshot cannot hold is named, not dropped in silence: a file whose name is not UTF-8 (git
// lists its bytes; pi-tree cannot give them back as text) and FIFOs and sockets (git's walk never lists
// them: the walk at session start finds them for the baseline, the watcher's list for a turn).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FolderWatch } from '../../../../src/core/checkpoints/capture/folderWatch.js';
import { SessionCheckpoints } from '../../../../src/core/checkpoints/store/manifests.js';
import type { SnapshotLine } from '../../../../src/core/checkpoints/store/manifestLines.js';
import { Session } from '../../../../src/core/session/session.js';
import { SimPi } from '../../../support/simPi.js';
import { tempDir } from '../../../support/tmp.js';

function setup() {
  const root = tempDir('pi-cp-skip-');
  const cwd = join(root, 'proj');
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  for (const d of [cwd, agentDir, sessions]) mkdirSync(d, { recursive: true });
  writeFileSync(join(cwd, 'README.md'), 'readme\n');
  return { root, cwd, agentDir, sessions };
}

async function lines(file: string, agentDir: string): Promise<SnapshotLine[]> {
  const cps = SessionCheckpoints.load(await Session.open(file), agentDir);
  return cps.lines.filter((l): l is SnapshotLine => l.kind !== 'off');
}

describe('named, not silent', () => {
  it('a name that is not UTF-8 is skipped and named; capture goes on', async () => {
    const d = setup();
    writeFileSync(Buffer.concat([Buffer.from(`${d.cwd}/bad`), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]), 'x\n');
    const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, watch: false });
    await sim.turn('one', [{ name: 'write', args: { path: 'ok.txt', content: 'ok' } }], () =>
      writeFileSync(join(d.cwd, 'ok.txt'), 'ok\n'),
    );
    assert.deepEqual(sim.notified, []);
    const [baseline, , after] = await lines(sim.file, d.agentDir);
    for (const l of [baseline, after])
      assert.deepEqual(l.skipped?.files, [{ path: 'bad\uFFFD\uFFFD.txt', why: 'name-not-utf8' }]);
    assert.deepEqual(after.changed, ['ok.txt']);
  });

  it('FIFOs and sockets: named in the baseline (git never lists them) and in a turn the watcher heard', async (t) => {
    const d = setup();
    mkdirSync(join(d.cwd, 'run'));
    execFileSync('mkfifo', [join(d.cwd, 'run', 'pipe')]);
    const server = createServer();
    await new Promise<void>((r) => server.listen(join(d.cwd, 'run', 'app.sock'), r));
    t.after(() => server.close());
    mkdirSync(join(d.cwd, 'logs'));
    writeFileSync(join(d.cwd, '.gitignore'), 'logs/\n');
    execFileSync('mkfifo', [join(d.cwd, 'logs', 'ignored-pipe')]);
    const watch = FolderWatch.supported();
    const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, watch: watch ? {} : false });
    await sim.turn('one', [{ name: 'write', args: { path: 'ok.txt', content: 'ok' } }], () =>
      writeFileSync(join(d.cwd, 'ok.txt'), 'ok\n'),
    );
    if (watch) {
      assert.equal(await sim.capture!.watchArmed(), true);
      await sim.turn('two', [{ name: 'bash', args: { command: 'mkfifo run/later' } }], () =>
        execFileSync('mkfifo', [join(d.cwd, 'run', 'later')]),
      );
    }
    assert.deepEqual(sim.notified, []);
    const all = await lines(sim.file, d.agentDir);
    assert.deepEqual(
      all[0].skipped?.files.map((f) => `${f.path} ${f.why}`).sort(),
      ['run/app.sock special', 'run/pipe special'],
      'the ignored one is not named',
    );
    if (watch) assert.deepEqual(all.at(-1)!.skipped?.files, [{ path: 'run/later', why: 'special' }]);
  });
});
