// The folder watcher behind fast snapshots (#32): what it hears (files made, changed, removed; folders
// made, moved, removed; modes), what it does not vouch for (the first take after arming, too many events),
// and the capture on top of it: every snapshot that took the watcher's list is the tree a whole walk gives,
// and a change the watcher cannot hear (a file changed through a hard link from outside the folder) is
// found by the idle check, which drops the watcher for the session.
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  linkSync,
  statSync,
  mkdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Capture } from '../../../../src/core/checkpoints/capture/capture.js';
import { FolderWatch } from '../../../../src/core/checkpoints/capture/folderWatch.js';
import { CheckpointStore } from '../../../../src/core/checkpoints/store/store.js';
import {
  DEFAULT_SETTINGS,
  projectStore,
  readCheckpointSettings,
  settingsFile,
} from '../../../../src/core/checkpoints/store/storePaths.js';
import { tempDir } from '../../../support/tmp.js';

const linux = FolderWatch.supported();

function project(): { root: string; cwd: string } {
  const root = tempDir('pi-cp-watch-');
  const cwd = join(root, 'proj');
  for (const d of ['src/a', 'src/b', 'old', 'node_modules/pkg']) mkdirSync(join(cwd, d), { recursive: true });
  writeFileSync(join(cwd, 'src/a/one.ts'), 'one\n');
  writeFileSync(join(cwd, 'src/b/two.ts'), 'two\n');
  writeFileSync(join(cwd, 'old/three.ts'), 'three\n');
  writeFileSync(join(cwd, 'gone.txt'), 'gone\n');
  writeFileSync(join(cwd, 'node_modules/pkg/index.js'), 'x\n');
  writeFileSync(join(cwd, '.gitignore'), 'build/\n');
  // names whose order in a tree object is git's own (a folder sorts as if its name ended in '/')
  mkdirSync(join(cwd, 'x/a'), { recursive: true });
  for (const n of ['x/a/f.ts', 'x/a.b', 'x/a-b', 'x/a0', 'x/\u00e9 \u00fc.ts']) writeFileSync(join(cwd, n), `${n}\n`);
  return { root, cwd };
}

/** Waits for `cond` (a condition, not a delay). */
async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('folder watcher', { skip: !linux && 'inotify watcher: Linux only' }, () => {
  it('hears files and folders made, changed, moved and removed; folders made later are watched too', async () => {
    const { root, cwd } = project();
    const w = new FolderWatch({
      cwd,
      barrierDir: join(root, 'barrier'),
      ignoredAmong: async (rels) => rels.filter((r) => r === 'build'),
    });
    assert.ok(await w.arm((rel) => rel === 'node_modules'));
    assert.equal(w.watchedDirs, 7, 'the root, src, src/a, src/b, old, x, x/a: node_modules left out');
    writeFileSync(join(cwd, 'src/a/one.ts'), 'one!\n');
    assert.equal(await w.take(), undefined, 'the first take after arming: the capture walks the whole folder');

    writeFileSync(join(cwd, 'src/a/one.ts'), 'one again\n');
    unlinkSync(join(cwd, 'gone.txt'));
    mkdirSync(join(cwd, 'new/deep/er'), { recursive: true });
    writeFileSync(join(cwd, 'new/deep/er/four.ts'), 'four\n');
    renameSync(join(cwd, 'old'), join(cwd, 'moved'));
    chmodSync(join(cwd, 'src/b/two.ts'), 0o755);
    writeFileSync(join(cwd, 'node_modules/pkg/index.js'), 'y\n');
    mkdirSync(join(cwd, 'build'));
    symlinkSync('src/a/one.ts', join(cwd, 'link'));
    const heard = new Set(await w.take());
    for (const p of ['src/a/one.ts', 'gone.txt', 'new', 'old', 'moved', 'src/b/two.ts', 'build', 'link'])
      assert.ok(heard.has(p), `${p} heard: ${[...heard].join(', ')}`);
    assert.ok(![...heard].some((p) => p.startsWith('node_modules')), 'nothing from a folder left out');

    // The folders made and moved are watched under their new names; the ignored new one is not.
    writeFileSync(join(cwd, 'new/deep/er/five.ts'), 'five\n');
    writeFileSync(join(cwd, 'moved/three.ts'), 'three!\n');
    writeFileSync(join(cwd, 'build/out.js'), 'out\n');
    const next = await w.take();
    assert.deepEqual(new Set(next), new Set(['new/deep/er/five.ts', 'moved/three.ts']));
    assert.deepEqual(await w.take(), [], 'nothing changed since');
    rmSync(join(cwd, 'new'), { recursive: true });
    assert.ok((await w.take())!.includes('new'));
    w.close();
  });

  it('past its event budget the list is not vouched for (inotify may have dropped some), then it is again', async () => {
    const { root, cwd } = project();
    const w = new FolderWatch({ cwd, barrierDir: join(root, 'barrier'), maxEvents: 10 });
    assert.ok(await w.arm(() => false));
    await w.take();
    for (let i = 0; i < 20; i++) writeFileSync(join(cwd, `f${i}.txt`), `${i}\n`);
    assert.equal(await w.take(), undefined);
    writeFileSync(join(cwd, 'f1.txt'), 'again\n');
    assert.deepEqual(await w.take(), ['f1.txt']);
    w.close();
  });

  it('gives up, rather than watch part of the folder, past its folder limit', async () => {
    const { root, cwd } = project();
    const w = new FolderWatch({ cwd, barrierDir: join(root, 'barrier'), maxDirs: 2 });
    assert.equal(await w.arm(() => false), false);
    assert.match(w.broken!, /more than 2 folders/);
    assert.equal(await w.take(), undefined);
  });
});

describe('capture with the folder watcher', { skip: !linux && 'inotify watcher: Linux only' }, () => {
  it('every snapshot taken from the list is the tree a whole walk gives', async () => {
    const { root, cwd } = project();
    const agentDir = join(root, 'agent');
    const notified: string[] = [];
    const c = new Capture({
      agentDir,
      cwd,
      sessionId: 's1',
      settings: DEFAULT_SETTINGS,
      notify: (m) => notified.push(m),
    });
    // a barrier folder left by a pi that was killed (no such process) goes when the watcher arms
    const leftover = join(projectStore(agentDir, cwd).root, 'watch-999999999-x');
    mkdirSync(join(leftover, 'b1'), { recursive: true });
    c.start(null);
    await until(() => c.watching, 'the watcher armed');
    assert.equal(existsSync(leftover), false);
    const store = CheckpointStore.existing(agentDir, cwd, DEFAULT_SETTINGS)!;
    const changes: (() => void)[] = [
      () => writeFileSync(join(cwd, 'src/a/one.ts'), 'one, 2\n'),
      () => {
        mkdirSync(join(cwd, 'pkg/lib'), { recursive: true });
        writeFileSync(join(cwd, 'pkg/lib/x.ts'), 'x\n');
        unlinkSync(join(cwd, 'gone.txt'));
      },
      () => renameSync(join(cwd, 'old'), join(cwd, 'renamed')),
      () => {
        writeFileSync(join(cwd, 'renamed/three.ts'), 'three, 2\n');
        chmodSync(join(cwd, 'src/b/two.ts'), 0o755);
        symlinkSync('../src', join(cwd, 'pkg/src-link'));
      },
      () => {
        // in-process: a folder's tree written again among names that sort around it; a folder emptied
        for (const n of ['x/a/f.ts', 'x/a.b', 'x/\u00e9 \u00fc.ts', 'x/a1'])
          writeFileSync(join(cwd, n), `${n} again\n`);
        unlinkSync(join(cwd, 'src/b/two.ts'));
      },
      () => {
        mkdirSync(join(cwd, 'build'));
        writeFileSync(join(cwd, 'build/out.js'), 'ignored\n');
        rmSync(join(cwd, 'pkg'), { recursive: true });
      },
    ];
    let k = 0;
    for (const change of [...changes, ...changes.slice(0, 1)]) {
      await c.beforeTool('bash', { command: 'x' }, { id: `a${k}`, parentId: `u${k}` });
      change();
      await c.turnEnd(`a${k}`, [`r${k}`]);
      await c.flush();
      const last = store.manifest('s1').at(-1)!;
      assert.equal(last.kind, 'after');
      const walked = await store.scratchSnapshot('s1');
      assert.equal(last.tree, walked.tree, `turn ${k}: the snapshot is the whole walk's tree`);
      k++;
    }
    const kinds = c.timings.map((t) => `${t.kind}${t.listed ? '*' : ''}${t.inProcess ? '+' : ''}`);
    // Turn 0's 'before' is the first take after arming (a whole walk); every snapshot after it took the
    // list (*): in-process (+) but where a folder was made or moved in (git looks at the listed paths).
    assert.deepEqual(
      kinds,
      [
        'baseline',
        'before',
        'after*+',
        'before*+',
        'after*',
        'before*+',
        'after*',
        'before*+',
        'after*+',
        'before*+',
        'after*+',
        'before*+',
        'after*',
        'before*+',
        'after*+',
      ],
      kinds.join(' '),
    );
    c.idle();
    await c.flush();
    assert.ok(c.watching, 'the idle check found nothing missed');
    assert.deepEqual(notified, []);
    await c.close();
  });

  it("piTree.checkpoints.watchFolder off (the settings file's checkpoints.watch): no watcher, every snapshot walks", async () => {
    const { root, cwd } = project();
    const agentDir = join(root, 'agent');
    mkdirSync(join(agentDir, 'pi-tree'), { recursive: true });
    writeFileSync(settingsFile(agentDir), JSON.stringify({ checkpoints: { watch: false } }));
    const settings = readCheckpointSettings(agentDir);
    assert.equal(settings.watch, false);
    const c = new Capture({ agentDir, cwd, sessionId: 's3', settings, notify: () => {} });
    c.start(null);
    await c.flush();
    assert.equal(await c.watchArmed(), false);
    await c.beforeTool('bash', {}, { id: 'a0', parentId: 'u0' });
    writeFileSync(join(cwd, 'src/a/one.ts'), 'walked\n');
    await c.turnEnd('a0', ['r0']);
    await c.flush();
    assert.deepEqual(
      c.timings.map((t) => t.listed),
      [false, false, false],
    );
    await c.close();
  });

  it("the folder now, through a copy of the session's index, keeps git's racily-clean check (a file changed in the second its index was written, its size kept)", async () => {
    // git compares times to the second (mtime and ctime) and trusts a matching entry unless it is as new
    // as its index file. The case: the file written, its index written, the file changed again (same
    // size), all within one second, and the copy of the index made in a later one. Tried until the
    // timing gives that case (git may also have marked the entry for a recheck: then it is not the case).
    const sec = (ms: number) => Math.floor(ms / 1000);
    for (let attempt = 1; ; attempt++) {
      const { root, cwd } = project();
      const agentDir = join(root, 'agent');
      const f = join(cwd, 'src/a/one.ts');
      await until(() => Date.now() % 1000 >= 50 && Date.now() % 1000 < 150, 'the start of a second');
      writeFileSync(f, 'one\n');
      const c = new Capture({
        agentDir,
        cwd,
        sessionId: 's4',
        settings: DEFAULT_SETTINGS,
        notify: () => {},
        watch: false,
      });
      c.start(null);
      await c.flush();
      await c.close();
      const store = CheckpointStore.existing(agentDir, cwd, DEFAULT_SETTINGS)!;
      writeFileSync(f, 'ONE\n'); // the same size
      const index = statSync(store.indexFile('s4'));
      const file = statSync(f);
      const entry = (
        await store.run(['ls-files', '--debug', '--', 'src/a/one.ts'], { index: store.indexFile('s4') })
      ).toString();
      const recorded = Number(/mtime: (\d+):/.exec(entry)?.[1]);
      const isCase =
        recorded === sec(file.mtimeMs) &&
        sec(index.mtimeMs) === sec(file.mtimeMs) &&
        sec(file.ctimeMs) === sec(index.mtimeMs) &&
        /size: 4\b/.test(entry);
      if (!isCase) {
        assert.ok(attempt < 10, 'the timing never gave the case in 10 tries');
        continue;
      }
      await until(() => sec(Date.now()) > sec(index.mtimeMs), 'the next second');
      const now = await store.scratchSnapshot('s4');
      const [blob] = await store.writeBlobs([Buffer.from('ONE\n')]);
      assert.equal(
        (await store.listTree(now.tree)).get('src/a/one.ts')?.sha,
        blob,
        `the change seen (attempt ${attempt})`,
      );
      return;
    }
  });

  it('a change the watcher cannot hear is found by the idle check: the watcher is dropped, walks from then on', async () => {
    const { root, cwd } = project();
    const outside = join(root, 'outside.txt');
    writeFileSync(outside, 'v1\n');
    linkSync(outside, join(cwd, 'linked.txt'));
    const agentDir = join(root, 'agent');
    const notified: string[] = [];
    const c = new Capture({
      agentDir,
      cwd,
      sessionId: 's2',
      settings: DEFAULT_SETTINGS,
      notify: (m) => notified.push(m),
    });
    c.start(null);
    await until(() => c.watching, 'the watcher armed');
    for (let k = 0; k < 2; k++) {
      await c.beforeTool('bash', {}, { id: `a${k}`, parentId: `u${k}` });
      // the file in the folder changes through its other name: no event in the folder
      if (k === 1) writeFileSync(outside, 'v2, longer\n');
      writeFileSync(join(cwd, 'src/a/one.ts'), `turn ${k}\n`);
      await c.turnEnd(`a${k}`, [`r${k}`]);
      await c.flush();
    }
    assert.equal(c.timings.at(-1)!.listed, true, 'the last snapshot took the list (and missed the change)');
    c.idle();
    await c.flush();
    assert.equal(c.watching, false, 'the watcher is dropped');
    assert.equal(notified.length, 1);
    assert.match(notified[0], /missed 1 change \(linked\.txt\)/);
    await c.beforeTool('bash', {}, { id: 'a9', parentId: 'u9' });
    assert.equal(c.timings.at(-1)!.listed, false, 'the next snapshot walks the whole folder');
    await c.close();
  });
});
