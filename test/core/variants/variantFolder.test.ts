// A variant's folder holds the code at its node: the node's snapshot byte for byte (modes, links,
// private bits), what the calls recorded after it wrote, files whose content is not known left out and
// named; a node with no checkpoint is refused; and nothing is written outside the folder, whatever the
// store's tree names (`../x`, `.git/…`) or its links point to. The user's folder and its .git stay as
// they were.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CodeUnknownError, codeAt, sessionCode } from '../../../src/core/checkpoints/index.js';
import { SessionCheckpoints } from '../../../src/core/checkpoints/store/manifests.js';
import { writeLooseObject } from '../../../src/core/checkpoints/git/looseObjects.js';
import { serializeTree } from '../../../src/core/checkpoints/git/gitOutput.js';
import { Session } from '../../../src/core/session/session.js';
import { listVariants, makeVariant } from '../../../src/core/variants/index.js';
import { treeBytes } from '../../support/codingPi.js';
import { variantProject, write } from '../../support/variantProject.js';

/** Every path under `dir` with its kind, mode and content (links: their target). */
function folderState(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const n of readdirSync(join(dir, rel))) {
      const p = rel ? `${rel}/${n}` : n;
      const st = lstatSync(join(dir, p));
      if (st.isSymbolicLink()) out.set(p, `link:${readlinkSync(join(dir, p))}`);
      else if (st.isDirectory()) walk(p);
      else out.set(p, `${(st.mode & 0o777).toString(8)}:${readFileSync(join(dir, p)).toString('base64')}`);
    }
  };
  walk('');
  return out;
}

describe('a variant’s folder', () => {
  it('holds the code at the node: bytes, exec bits, private modes, links, nested folders; not the .git, not what came after', async () => {
    const p = variantProject({ 'README.md': '# proj\n', 'src/deep/a/b/c.ts': 'export const c = 1;\n' });
    p.put('run.sh', '#!/bin/sh\necho hi\n', 0o755);
    p.put('secret.env', 'TOKEN=x\n', 0o600);
    p.put('bin.dat', Buffer.from([0, 1, 2, 255, 13, 10, 0]));
    symlinkSync('src/deep', join(p.cwd, 'deep-link'));
    symlinkSync('README.md', join(p.cwd, 'readme-link'));
    const t1 = await p.sim.turn('one', [write('a.txt', 'one\r\nwith CRLF\n')], () =>
      p.put('a.txt', 'one\r\nwith CRLF\n'),
    );
    const expected = folderState(p.cwd);
    expected.forEach((_, k) => k.startsWith('.git/') && expected.delete(k));
    await p.sim.turn('two', [write('a.txt', 'two\n'), write('later.txt', 'later\n')], () => {
      p.put('a.txt', 'two\n');
      p.put('later.txt', 'later\n');
    });
    const userGit = treeBytes(join(p.cwd, '.git'));
    const rec = await makeVariant({ agentDir: p.agentDir, source: await p.session(), entryId: t1.answer });
    assert.equal(rec.state, 'ready');
    assert.deepEqual(folderState(rec.folder), expected, 'the folder is the code at the node, exactly');
    assert.equal(existsSync(join(rec.folder, '.git')), false);
    assert.equal(rec.code!.how, 'snapshot');
    assert.deepEqual(rec.code!.unknown, []);
    assert.deepEqual(rec.code!.leftOut, []);
    assert.ok(rec.folder.startsWith(join(p.agentDir, 'pi-tree', 'variants')), rec.folder);
    assert.equal(lstatSync(join(p.agentDir, 'pi-tree', 'variants')).mode & 0o777, 0o700);
    assert.equal(p.read('a.txt'), 'two\n', 'the user’s folder is as it was');
    assert.deepEqual(treeBytes(join(p.cwd, '.git')), userGit, 'and its .git');
    assert.deepEqual(
      listVariants(p.agentDir, p.cwd).map((v) => v.id),
      [rec.id],
      'listed (from its record on disk)',
    );
    assert.ok(rec.readyMs! > 0);
  });

  it('takes what the calls after the snapshot wrote, and names (does not write) what a bash command changed', async () => {
    const p = variantProject({ 'keep.txt': 'keep\n', 'gen.txt': 'generated v1\n' });
    await p.sim.turn('one', [write('a.txt', 'a1\n')], () => p.put('a.txt', 'a1\n'));
    // pi went on without the bridge: calls recorded, no snapshots
    p.sim.capture = undefined;
    await p.sim.turn(
      'edit',
      [{ name: 'edit', args: { path: 'a.txt', edits: [{ oldText: 'a1', newText: 'a2' }] } }],
      () => p.put('a.txt', 'a2\n'),
    );
    const t3 = await p.sim.turn(
      'regen',
      [{ name: 'bash', args: { command: 'node gen.js > gen.txt' } }, write('new.txt', 'new\n')],
      () => {
        p.put('gen.txt', 'generated v2\n');
        p.put('new.txt', 'new\n');
      },
    );
    const rec = await makeVariant({ agentDir: p.agentDir, source: await p.session(), entryId: t3.answer });
    assert.equal(rec.code!.how, 'snapshot+calls');
    assert.equal(readFileSync(join(rec.folder, 'a.txt'), 'utf8'), 'a2\n', 'the edit replayed');
    assert.equal(readFileSync(join(rec.folder, 'new.txt'), 'utf8'), 'new\n', 'the write');
    assert.equal(readFileSync(join(rec.folder, 'keep.txt'), 'utf8'), 'keep\n');
    assert.equal(existsSync(join(rec.folder, 'gen.txt')), false, 'not guessed');
    assert.deepEqual(
      rec.code!.unknown.map((u) => u.path),
      ['gen.txt'],
    );
    // the variant session knows its code at the node is not known for gen.txt
    const variant = await Session.open(rec.sessionFile!);
    const sc = sessionCode(variant, { agentDir: p.agentDir });
    const state = await codeAt(sc, t3.answer);
    assert.equal(state.base?.tree, rec.code!.tree);
  });

  it('is written by one git process over the tree: the index read where the files are written, not twice', async () => {
    const p = variantProject({ 'README.md': '# proj\n', 'src/a/b.ts': 'export const b = 1;\n' });
    symlinkSync('src/a', join(p.cwd, 'a-link'));
    const t1 = await p.sim.turn('one', [write('c.txt', 'c\n')], () => p.put('c.txt', 'c\n'));
    // git through a program that notes each command (the arguments as git gets them)
    const log = join(p.root, 'git.log');
    const program = join(p.root, 'git-noting');
    writeFileSync(program, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec git "$@"\n`, { mode: 0o755 });
    const rec = await makeVariant({ agentDir: p.agentDir, source: await p.session(), entryId: t1.answer, program });
    const commands = readFileSync(log, 'utf8').split('\n');
    assert.deepEqual(
      commands
        .filter((c) => / (read-tree|checkout-index|update-index) /.test(c))
        .map((c) => c.replace(/^.* (read-tree|checkout-index|update-index) /, '$1 ')),
      [`read-tree -m -u ${rec.code!.tree}`],
      'one read-tree that writes the files; no checkout-index reading its index again',
    );
    assert.deepEqual(folderState(rec.folder).get('a-link'), 'link:src/a');
    // The session's index is the tree's, with the stats of the files written (git sees none changed).
    const store = rec.code!.storeRoot;
    const [index] = readdirSync(join(store, 'index'));
    const env = {
      ...process.env,
      GIT_DIR: join(store, 'store.git'),
      GIT_WORK_TREE: rec.folder,
      GIT_INDEX_FILE: join(store, 'index', index),
    };
    const git = (...a: string[]) => execFileSync('git', a, { env, encoding: 'utf8' });
    assert.equal(git('write-tree').trim(), rec.code!.tree);
    assert.equal(git('diff-files', '--name-only'), '');
  });

  it('is refused for a node with no checkpoint at or above it, and nothing is kept', async () => {
    const p = variantProject({ 'x.txt': 'x\n' }, { capture: false });
    const t1 = await p.sim.turn('one', [write('a.txt', 'a\n')], () => p.put('a.txt', 'a\n'));
    await assert.rejects(
      makeVariant({ agentDir: p.agentDir, source: await p.session(), entryId: t1.answer }),
      (e: Error) => {
        assert.ok(e instanceof CodeUnknownError, String(e));
        assert.match(e.message, /not known: no checkpoint at or above it/);
        return true;
      },
    );
    assert.deepEqual(listVariants(p.agentDir), []);
    assert.deepEqual(readdirSync(p.sessions + '/' + readdirSync(p.sessions)[0]).length, 1, 'no session file was made');
  });

  it('never writes outside itself: names that lead out, .git names, links that lead out are left out and named', async () => {
    const p = variantProject({ 'ok.txt': 'ok\n' });
    mkdirSync(join(p.cwd, 'sub'));
    p.put('sub/inside.txt', 'inside\n');
    symlinkSync('../ok.txt', join(p.cwd, 'sub', 'up-ok')); // stays inside
    symlinkSync('../../outside-dir', join(p.cwd, 'escape')); // leads out
    symlinkSync('/etc', join(p.cwd, 'abs'));
    symlinkSync('.', join(p.cwd, 'self'));
    symlinkSync('self/..', join(p.cwd, 'up')); // by name inside, followed: the folder above
    symlinkSync('../../nowhere/new-file', join(p.cwd, 'dangling')); // a write through it would create it outside
    const t1 = await p.sim.turn('one', [write('a.txt', 'a\n')], () => p.put('a.txt', 'a\n'));
    // A tree in the store that names `../evil` and `.git/config` (no snapshot writes those; a crafted store could)
    const session = await p.session();
    const cps = SessionCheckpoints.load(session, p.agentDir);
    const line = cps.byEntry.get(t1.call)!;
    const gitDir = cps.store!.where.gitDir;
    const blob = writeLooseObject(gitDir, 'blob', Buffer.from('evil\n'));
    const gitTree = writeLooseObject(gitDir, 'tree', serializeTree([{ mode: '100644', name: 'config', sha: blob }]));
    const body = execFileSync('git', ['cat-file', 'tree', line.tree], { env: { ...process.env, GIT_DIR: gitDir } });
    const crafted = writeLooseObject(
      gitDir,
      'tree',
      Buffer.concat([
        body,
        Buffer.from(`100644 ..\0`),
        Buffer.from(blob, 'hex'),
        Buffer.from(`40000 .git\0`),
        Buffer.from(gitTree, 'hex'),
      ]),
    );
    const manifest = cps.store!.manifestFile(session.header.id as string);
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replaceAll(line.tree, crafted));
    const rec = await makeVariant({ agentDir: p.agentDir, source: await p.session(), entryId: t1.answer });
    const state = folderState(rec.folder);
    assert.equal(state.get('sub/up-ok'), 'link:../ok.txt');
    assert.equal(state.get('self'), 'link:.');
    for (const gone of ['escape', 'abs', 'up', 'dangling', '..', '.git/config'])
      assert.equal(state.has(gone), false, gone);
    assert.deepEqual(rec.code!.leftOut.map((l) => l.path).sort(), [
      '..',
      '.git/config',
      'abs',
      'dangling',
      'escape',
      'up',
    ]);
    assert.match(rec.code!.leftOut.find((l) => l.path === 'abs')!.why, /points to \/etc/);
    const variantHome = join(rec.folder, '..');
    assert.deepEqual(readdirSync(variantHome).sort(), ['proj', 'variant.json'], 'nothing beside the folder');
    assert.equal(existsSync(join(p.root, 'nowhere')), false);
    rmSync(rec.folder, { recursive: true });
  });
});
