// Where capture holds nothing (captureScope.ts): pi's own files inside the working folder (its agent dir
// with pi-tree's store, its session folders) stay out of every snapshot, through git's walk, an index
// seeded before, and the folder watcher's list; the home folder, a drive's root and a folder past the
// file bound are not captured (one message in pi naming the opt-in, a reason pi-tree shows) until the
// folder is opted in.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { captureBlocked, OPT_IN_SETTING } from '../../../../src/core/checkpoints/capture/captureScope.js';
import { privatePrefixes } from '../../../../src/core/checkpoints/store/storeScope.js';
import { FolderWatch } from '../../../../src/core/checkpoints/capture/folderWatch.js';
import { SessionCheckpoints } from '../../../../src/core/checkpoints/store/manifests.js';
import type { SnapshotLine } from '../../../../src/core/checkpoints/store/manifestLines.js';
import { CheckpointStore } from '../../../../src/core/checkpoints/store/store.js';
import { checkpointsRoot, DEFAULT_SETTINGS } from '../../../../src/core/checkpoints/store/storePaths.js';
import { Session } from '../../../../src/core/session/session.js';
import { SimPi } from '../../../support/simPi.js';
import { tempDir } from '../../../support/tmp.js';

function project(): { root: string; cwd: string } {
  const root = tempDir('pi-cp-scope-');
  const cwd = join(root, 'proj');
  mkdirSync(join(cwd, 'src'), { recursive: true });
  writeFileSync(join(cwd, 'src', 'a.ts'), 'a\n');
  return { root, cwd };
}

async function snapshots(file: string, agentDir: string): Promise<{ lines: SnapshotLine[]; cps: SessionCheckpoints }> {
  const cps = SessionCheckpoints.load(await Session.open(file), agentDir);
  return { cps, lines: cps.lines.filter((l): l is SnapshotLine => l.kind !== 'off') };
}

/** Every path of every snapshot of the session. */
async function allPaths(file: string, agentDir: string): Promise<string[]> {
  const { cps, lines } = await snapshots(file, agentDir);
  const out = new Set<string>();
  for (const l of lines) for (const k of (await cps.store!.listTree(l.tree)).keys()) out.add(k);
  return [...out].sort();
}

describe("pi's own files are never the project", () => {
  for (const watch of [false, true]) {
    it(
      `pi's agent dir, pi-tree's store and the session folder inside the working folder stay out (${watch ? "the watcher's list" : "git's walk"})`,
      { skip: watch && !FolderWatch.supported() && 'Linux only' },
      async () => {
        const { cwd } = project();
        const agentDir = join(cwd, '.pi', 'agent');
        const sessions = join(agentDir, 'sessions', '--proj--');
        mkdirSync(sessions, { recursive: true });
        writeFileSync(join(agentDir, 'settings.json'), '{}\n');
        const sim = new SimPi(cwd, agentDir, { sessionDir: sessions, watch: watch ? {} : false });
        await sim.turn('one', [{ name: 'write', args: { path: 'src/b.ts', content: 'b\n' } }], () =>
          writeFileSync(join(cwd, 'src', 'b.ts'), 'b\n'),
        );
        if (watch) assert.equal(await sim.capture!.watchArmed(), true);
        await sim.turn('two', [{ name: 'write', args: { path: 'src/c.ts', content: 'c\n' } }], () => {
          writeFileSync(join(cwd, 'src', 'c.ts'), 'c\n');
          writeFileSync(join(agentDir, 'auth.json'), '{"token":"secret"}\n');
        });
        assert.deepEqual(sim.notified, []);
        assert.deepEqual(await allPaths(sim.file, agentDir), ['src/a.ts', 'src/b.ts', 'src/c.ts']);
        const { lines } = await snapshots(sim.file, agentDir);
        assert.deepEqual(lines.at(-1)!.changed, ['src/c.ts']);
        if (watch)
          assert.ok(
            sim.capture!.timings.slice(-2).some((t) => t.listed),
            "the turn took the watcher's list",
          );
      },
    );
  }

  it("an index seeded before the session folder was known to be pi's lets go of its files", async () => {
    const { root, cwd } = project();
    const agentDir = join(root, 'agent');
    const sessions = join(cwd, '.sessions');
    mkdirSync(sessions);
    writeFileSync(join(sessions, 'old.jsonl'), '{}\n');
    // A store's index from before (an older pi-tree, or pi's sessionDir set since): it holds them.
    const before = await CheckpointStore.open(agentDir, cwd, DEFAULT_SETTINGS);
    const old = await before.snapshot('019b8f3a-0000-7000-8000-0000000000aa', 'baseline');
    assert.ok((await before.listTree(old.tree)).has('.sessions/old.jsonl'));
    const sim = new SimPi(cwd, agentDir, { sessionDir: sessions, privateDirs: [sessions], watch: false });
    await sim.turn('one', [{ name: 'write', args: { path: 'src/b.ts', content: 'b\n' } }], () =>
      writeFileSync(join(cwd, 'src', 'b.ts'), 'b\n'),
    );
    assert.deepEqual(await allPaths(sim.file, agentDir), ['src/a.ts', 'src/b.ts']);
  });

  it('privatePrefixes: the folders of the agent inside the working folder, by their real paths', () => {
    const { root, cwd } = project();
    mkdirSync(join(cwd, 'agent'));
    symlinkSync(join(cwd, 'agent'), join(root, 'agent-link'));
    assert.deepEqual(
      privatePrefixes(join(root, 'agent-link'), cwd, [
        join(cwd, 'agent', 'sessions'),
        join(cwd, 'my sessions'),
        join(root, 'elsewhere'),
      ]),
      ['agent', 'my sessions'],
    );
    assert.deepEqual(privatePrefixes(join(root, 'agent'), cwd), []);
  });
});

describe('folders capture stays out of', () => {
  const on = { ...DEFAULT_SETTINGS };

  it('captureBlocked: pi’s own folder, home, a root and a folder past the bound; the opt-in names the setting', () => {
    const { root, cwd } = project();
    const home = join(root, 'home');
    mkdirSync(home);
    assert.equal(captureBlocked(on, cwd, { home, agentDir: join(root, 'agent'), files: 10 }), undefined);
    assert.match(
      captureBlocked(on, home, { home })!,
      new RegExp(`home folder.*${OPT_IN_SETTING.replace(/\./g, '\\.')}`),
    );
    assert.match(captureBlocked(on, '/', { home })!, /root of a drive.*allowLargeFolder/);
    assert.match(
      captureBlocked({ ...on, maxFiles: 100 }, cwd, { home, files: 100 })!,
      /100 files or more.*allowLargeFolder/,
    );
    assert.match(captureBlocked(on, join(cwd, 'x'), { agentDir: cwd })!, /inside pi's own folder/);
    const allowed = { ...on, maxFiles: 100, allowedFolders: [home, cwd] };
    assert.equal(captureBlocked(allowed, home, { home }), undefined);
    assert.equal(captureBlocked(allowed, cwd, { home, files: 1000 }), undefined);
    assert.match(
      captureBlocked(allowed, join(cwd, 'x'), { agentDir: cwd })!,
      /pi's own folder/,
      'no opt-in into the agent’s own folder',
    );
  });

  it('the home folder: capture off with one message naming the opt-in, no store made; opted in, captured without pi’s folder', async (t) => {
    const root = tempDir('pi-cp-home-');
    const home = join(root, 'home');
    mkdirSync(join(home, 'code'), { recursive: true });
    writeFileSync(join(home, 'notes.txt'), 'mine\n');
    const agentDir = join(home, '.pi', 'agent');
    const sessions = join(agentDir, 'sessions', '--home--');
    mkdirSync(sessions, { recursive: true });
    const was = process.env.HOME;
    process.env.HOME = home;
    t.after(() => {
      process.env.HOME = was;
    });
    const sim = new SimPi(home, agentDir, { sessionDir: sessions, watch: false });
    await sim.turn('one', [{ name: 'write', args: { path: 'code/x.ts', content: 'x\n' } }], () =>
      writeFileSync(join(home, 'code', 'x.ts'), 'x\n'),
    );
    await sim.turn('two', [{ name: 'write', args: { path: 'code/y.ts', content: 'y\n' } }], () =>
      writeFileSync(join(home, 'code', 'y.ts'), 'y\n'),
    );
    assert.equal(sim.notified.length, 1, sim.notified.join('\n'));
    assert.match(sim.notified[0], /home folder.*piTree\.checkpoints\.allowLargeFolder/);
    assert.match(sim.capture!.off!, /home folder/);
    assert.equal(existsSync(checkpointsRoot(agentDir)), false, 'no store for the home folder');

    const opted = new SimPi(home, agentDir, {
      sessionDir: sessions,
      watch: false,
      id: '019b8f3a-0000-7000-8000-0000000051a2',
      settings: { allowedFolders: [home] },
    });
    await opted.turn('three', [{ name: 'write', args: { path: 'code/z.ts', content: 'z\n' } }], () =>
      writeFileSync(join(home, 'code', 'z.ts'), 'z\n'),
    );
    assert.deepEqual(opted.notified, []);
    assert.deepEqual(await allPaths(opted.file, agentDir), ['code/x.ts', 'code/y.ts', 'code/z.ts', 'notes.txt']);
  });

  it('a folder past the file bound: off with one message and a reason pi-tree shows (no store); opted in, captured', async () => {
    const { root, cwd } = project();
    for (let i = 0; i < 60; i++) writeFileSync(join(cwd, `f${i}.txt`), `${i}\n`);
    mkdirSync(join(cwd, 'node_modules', 'dep'), { recursive: true });
    for (let i = 0; i < 100; i++) writeFileSync(join(cwd, 'node_modules', 'dep', `m${i}.js`), `${i}\n`);
    const agentDir = join(root, 'agent');
    const sessions = join(root, 'sessions');
    mkdirSync(sessions);
    const sim = new SimPi(cwd, agentDir, { sessionDir: sessions, watch: false, settings: { maxFiles: 50 } });
    await sim.turn('one', [{ name: 'write', args: { path: 'src/b.ts', content: 'b\n' } }], () =>
      writeFileSync(join(cwd, 'src', 'b.ts'), 'b\n'),
    );
    assert.equal(sim.notified.length, 1);
    assert.match(sim.notified[0], /50 files or more.*allowLargeFolder/);
    assert.equal(CheckpointStore.existing(agentDir, cwd, DEFAULT_SETTINGS), undefined, 'no store made');
    const session = await Session.open(sim.file);
    assert.match(SessionCheckpoints.load(session, agentDir).offReason()!, /50 files or more/, 'pi-tree shows why');
    assert.equal(SessionCheckpoints.load(session, agentDir).offByRule(), true, "said as the folder's rule");

    // Under the bound (node_modules is not counted), and opted in past it: captured.
    const small = new SimPi(cwd, agentDir, {
      sessionDir: sessions,
      watch: false,
      id: '019b8f3a-0000-7000-8000-0000000051a3',
      settings: { maxFiles: 70 },
    });
    await small.capture!.flush();
    assert.deepEqual(small.notified, []);
    sim.resume({ sessionDir: sessions, watch: false, settings: { maxFiles: 50, allowedFolders: [cwd] } });
    await sim.capture!.flush();
    const again = SessionCheckpoints.load(await Session.open(sim.file), agentDir);
    assert.equal(again.offReason(), undefined, 'the session captures again');
    assert.equal(again.latest()?.kind, 'baseline');
    // Off by a failure later (a line without the rule's mark): said as capture turning itself off.
    CheckpointStore.existing(agentDir, cwd, DEFAULT_SETTINGS)!.append(String(sim.b.header.id), {
      v: 1,
      kind: 'off',
      at: new Date().toISOString(),
      reason: 'git failed',
    });
    const failed = SessionCheckpoints.load(await Session.open(sim.file), agentDir);
    assert.equal(failed.offReason(), 'git failed');
    assert.equal(failed.offByRule(), false);
  });
});
