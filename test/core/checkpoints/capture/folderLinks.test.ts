// Links in the working folder: a folder replaced by a link to another (`rm -rf cfg && ln -s shared cfg`,
// cfg's files tracked) is captured as the link from then on, through git's walk and the watcher's list
// alike, and capture stays on for the session and the sessions after; an edit or write through a link
// that leads outside the folder is named as not captured.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FolderWatch } from '../../../../src/core/checkpoints/capture/folderWatch.js';
import { SessionCheckpoints } from '../../../../src/core/checkpoints/store/manifests.js';
import type { SnapshotLine } from '../../../../src/core/checkpoints/store/manifestLines.js';
import { Session } from '../../../../src/core/session/session.js';
import { SimPi } from '../../../support/simPi.js';
import { tempDir } from '../../../support/tmp.js';

function setup() {
  const root = tempDir('pi-cp-links-');
  const cwd = join(root, 'proj');
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  for (const d of [join(cwd, 'cfg'), join(cwd, 'shared'), agentDir, sessions]) mkdirSync(d, { recursive: true });
  writeFileSync(join(cwd, 'cfg', 'a.conf'), 'a in cfg\n');
  writeFileSync(join(cwd, 'cfg', 'b.conf'), 'b in cfg\n');
  writeFileSync(join(cwd, 'shared', 'a.conf'), 'a shared\n');
  writeFileSync(join(cwd, 'shared', 'c.conf'), 'c shared\n');
  return { root, cwd, agentDir, sessions };
}

async function loaded(file: string, agentDir: string) {
  const cps = SessionCheckpoints.load(await Session.open(file), agentDir);
  return {
    store: cps.store!,
    lines: cps.lines.filter((l): l is SnapshotLine => l.kind !== 'off'),
    off: cps.offReason(),
  };
}

describe('a folder replaced by a link', () => {
  for (const watch of [false, true]) {
    it(
      `is captured as the link from then on, capture on (${watch ? "the watcher's list, then the idle check's walk" : "git's walk"})`,
      { skip: watch && !FolderWatch.supported() && 'Linux only' },
      async () => {
        const d = setup();
        const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, watch: watch ? {} : false });
        await sim.turn('touch', [{ name: 'write', args: { path: 'x.txt', content: 'x' } }], () =>
          writeFileSync(join(d.cwd, 'x.txt'), 'x\n'),
        );
        if (watch) assert.equal(await sim.capture!.watchArmed(), true);
        await sim.turn('relink', [{ name: 'bash', args: { command: 'rm -rf cfg && ln -s shared cfg' } }], () => {
          rmSync(join(d.cwd, 'cfg'), { recursive: true });
          symlinkSync('shared', join(d.cwd, 'cfg'));
        });
        if (watch) {
          assert.ok(sim.capture!.timings.at(-1)!.listed, "the 'after' took the watcher's list");
          sim.capture!.idle(); // the list checked against git's walk, which must take the link too
          await sim.capture!.flush();
        }
        // Through the link: the file that changes is shared's.
        await sim.turn(
          'edit via link',
          [{ name: 'edit', args: { path: 'cfg/c.conf', edits: [{ oldText: 'c', newText: 'C' }] } }],
          () => writeFileSync(join(d.cwd, 'shared', 'c.conf'), 'C shared\n'),
        );
        assert.deepEqual(sim.notified, []);
        if (watch) assert.equal(sim.capture!.watching, true, 'the idle check found the list right');
        const { store, lines, off } = await loaded(sim.file, d.agentDir);
        assert.equal(off, undefined);
        const afters = lines.filter((l) => l.kind === 'after');
        assert.deepEqual(afters[1].changed, ['cfg', 'cfg/a.conf', 'cfg/b.conf']);
        assert.deepEqual(afters[2].changed, ['shared/c.conf']);
        const files = await store.listTree(afters[2].tree);
        assert.equal(files.get('cfg')?.mode, 0o120000);
        assert.equal((await store.readBlobs([files.get('cfg')!.sha])).get(files.get('cfg')!.sha)!.toString(), 'shared');
        assert.deepEqual([...files.keys()].sort(), ['cfg', 'shared/a.conf', 'shared/c.conf', 'x.txt']);

        // A new session (its index seeded from this one's) captures too.
        const next = new SimPi(d.cwd, d.agentDir, {
          sessionDir: d.sessions,
          watch: false,
          id: '019b8f3a-0000-7000-8000-0000000051b2',
        });
        await next.turn('more', [{ name: 'write', args: { path: 'y.txt', content: 'y' } }], () =>
          writeFileSync(join(d.cwd, 'y.txt'), 'y\n'),
        );
        assert.deepEqual(next.notified, []);
        assert.deepEqual((await loaded(next.file, d.agentDir)).lines.at(-1)!.changed, ['y.txt']);
      },
    );
  }

  it('and back: a link replaced by a folder is captured as the folder', async () => {
    const d = setup();
    symlinkSync('shared', join(d.cwd, 'ln'));
    const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, watch: false });
    await sim.turn('unlink', [{ name: 'bash', args: { command: 'rm ln && mkdir ln && echo z > ln/z' } }], () => {
      rmSync(join(d.cwd, 'ln'));
      mkdirSync(join(d.cwd, 'ln'));
      writeFileSync(join(d.cwd, 'ln', 'z'), 'z\n');
    });
    assert.deepEqual(sim.notified, []);
    const after = (await loaded(sim.file, d.agentDir)).lines.at(-1)!;
    assert.deepEqual(after.changed, ['ln', 'ln/z']);
    assert.equal(after.skipped, undefined, 'a folder is not a special file');
  });
});

describe('writes through links', () => {
  it('an edit or write through a link to outside the folder is named as not captured; one to inside is not', async () => {
    const d = setup();
    const outside = join(d.root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'conf.txt'), 'port=1\n');
    writeFileSync(join(outside, 'file.txt'), 'one\n');
    symlinkSync(outside, join(d.cwd, 'ext'));
    symlinkSync(join(outside, 'file.txt'), join(d.cwd, 'file.lnk'));
    symlinkSync('shared', join(d.cwd, 'in'));
    const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, watch: false });
    await sim.turn(
      'through links',
      [
        { name: 'edit', args: { path: 'ext/conf.txt', edits: [{ oldText: '1', newText: '2' }] } },
        { name: 'write', args: { path: join(d.cwd, 'file.lnk'), content: 'two' } },
        { name: 'write', args: { path: 'ext/new.txt', content: 'new' } },
        { name: 'edit', args: { path: 'in/a.conf', edits: [{ oldText: 'a', newText: 'A' }] } },
      ],
      () => {
        writeFileSync(join(outside, 'conf.txt'), 'port=2\n');
        writeFileSync(join(outside, 'file.txt'), 'two\n');
        writeFileSync(join(outside, 'new.txt'), 'new\n');
        writeFileSync(join(d.cwd, 'shared', 'a.conf'), 'A shared\n');
      },
    );
    assert.deepEqual(sim.notified, []);
    const after = (await loaded(sim.file, d.agentDir)).lines.at(-1)!;
    assert.deepEqual(after.skipped?.files, [
      { path: 'ext/conf.txt', why: 'link-outside' },
      { path: 'file.lnk', why: 'link-outside' },
      { path: 'ext/new.txt', why: 'link-outside' },
    ]);
    assert.equal(after.skipped?.count, 3);
    assert.deepEqual(after.changed, ['shared/a.conf']);
    assert.equal(after.external, undefined, 'not taken for files outside the folder');
  });
});
