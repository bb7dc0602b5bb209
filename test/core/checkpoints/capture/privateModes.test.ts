// Permission bits git does not keep: every file a snapshot looks at that no one but its owner may read
// (a 0600 secret) is in its line's `modes`; the baseline covers the files an index seeded before did not
// look at again (the walk at session start), and none that the snapshot leaves out. Modes are git's
// rule (the owner's exec bit) wherever capture derives them, files outside the folder included.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FolderWatch } from '../../../../src/core/checkpoints/capture/folderWatch.js';
import { SessionCheckpoints } from '../../../../src/core/checkpoints/store/manifests.js';
import type { SnapshotLine } from '../../../../src/core/checkpoints/store/manifestLines.js';
import { Session } from '../../../../src/core/session/session.js';
import { SimPi } from '../../../support/simPi.js';
import { tempDir } from '../../../support/tmp.js';

function setup() {
  const root = tempDir('pi-cp-modes-');
  const cwd = join(root, 'proj');
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  for (const d of [join(cwd, 'keys'), join(cwd, 'logs'), agentDir, sessions]) mkdirSync(d, { recursive: true });
  writeFileSync(join(cwd, '.gitignore'), 'logs/\n');
  writeFileSync(join(cwd, 'README.md'), 'readme\n');
  writeFileSync(join(cwd, 'secret.env'), 'TOKEN=1\n', { mode: 0o600 });
  writeFileSync(join(cwd, 'keys', 'id_ed25519'), 'key\n', { mode: 0o400 });
  writeFileSync(join(cwd, 'logs', 'private.log'), 'ignored\n', { mode: 0o600 });
  return { root, cwd, agentDir, sessions };
}

async function lines(file: string, agentDir: string): Promise<SnapshotLine[]> {
  const cps = SessionCheckpoints.load(await Session.open(file), agentDir);
  return cps.lines.filter((l): l is SnapshotLine => l.kind !== 'off');
}

describe('private permission bits', () => {
  for (const watch of [false, true]) {
    it(
      `the baseline (fresh and seeded) and a turn's snapshot record them (${watch ? "the watcher's list" : "git's walk"})`,
      { skip: watch && !FolderWatch.supported() && 'Linux only' },
      async () => {
        const d = setup();
        const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, watch: watch ? {} : false });
        if (watch) {
          await sim.capture!.flush();
          assert.equal(await sim.capture!.watchArmed(), true);
          await sim.turn('warm', [{ name: 'write', args: { path: 'x.txt', content: 'x' } }], () =>
            writeFileSync(join(d.cwd, 'x.txt'), 'x\n'),
          );
        }
        await sim.turn(
          'lock it',
          [{ name: 'bash', args: { command: 'chmod 600 README.md; echo 1 >> README.md' } }],
          () => {
            writeFileSync(join(d.cwd, 'README.md'), 'readme 1\n');
            chmodSync(join(d.cwd, 'README.md'), 0o600);
          },
        );
        assert.deepEqual(sim.notified, []);
        const all = await lines(sim.file, d.agentDir);
        assert.deepEqual(
          all[0].modes,
          { 'secret.env': 0o600, 'keys/id_ed25519': 0o400 },
          'the fresh baseline; the ignored log left out',
        );
        assert.deepEqual(all.at(-1)!.modes, { 'README.md': 0o600 });
        if (watch) assert.ok(sim.capture!.timings.at(-1)!.listed, "the turn took the watcher's list");

        // A second session, its index seeded from the first: the unchanged files are not looked at by
        // git's walk, the walk at start finds their bits.
        const next = new SimPi(d.cwd, d.agentDir, {
          sessionDir: d.sessions,
          watch: false,
          id: '019b8f3a-0000-7000-8000-0000000051c2',
        });
        await next.capture!.flush();
        assert.deepEqual((await lines(next.file, d.agentDir))[0].modes, {
          'README.md': 0o600,
          'keys/id_ed25519': 0o400,
          'secret.env': 0o600,
        });
      },
    );
  }

  it("a file outside the folder gets git's mode (the owner's exec bit, not the group's)", async () => {
    const d = setup();
    const outside = join(d.root, 'tool.sh');
    writeFileSync(outside, 'echo 1\n');
    chmodSync(outside, 0o654);
    const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, watch: false });
    await sim.turn(
      'edit outside',
      [{ name: 'edit', args: { path: outside, edits: [{ oldText: '1', newText: '2' }] } }],
      () => writeFileSync(outside, 'echo 2\n'),
    );
    const ext = (await lines(sim.file, d.agentDir)).at(-1)!.external!;
    assert.deepEqual(
      ext.map((x) => [x.mode, x.before?.mode]),
      [[0o100644, 0o100644]],
    );
  });
});
