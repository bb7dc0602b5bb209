// Discarding a variant removes its folder, its checkpoint store and its record, never through a link
// and only inside the variants root; its session file stays unless asked. Deleting a variant's session
// removes its folder too. Records are read back from disk (a restart lists the same variants), and a
// variant whose preparing process died is listed as interrupted.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { projectStore } from '../../../src/core/checkpoints/index.js';
import { CheckpointStore } from '../../../src/core/checkpoints/store/store.js';
import { DEFAULT_SETTINGS } from '../../../src/core/checkpoints/store/storePaths.js';
import {
  discardVariant,
  listVariants,
  makeVariant,
  sessionDeleted,
  updateVariant,
  variantOfSession,
} from '../../../src/core/variants/index.js';
import { variantProject, write } from '../../support/variantProject.js';

async function withVariant() {
  const p = variantProject({ 'a.txt': 'a\n' });
  const node = await p.sim.turn('node', [write('n.txt', 'n\n')], () => p.put('n.txt', 'n\n'));
  const rec = await makeVariant({ agentDir: p.agentDir, source: await p.session(), entryId: node.answer });
  return { ...p, rec, node };
}

const refsOf = async (agentDir: string, cwd: string) =>
  (
    await CheckpointStore.existing(agentDir, cwd, DEFAULT_SETTINGS)!.run(['for-each-ref', '--format=%(refname)'])
  ).toString();

describe('discarding a variant', () => {
  it('removes its folder, store, record and the project store’s ref; never follows a link out; the session stays', async () => {
    const v = await withVariant();
    // links in the variant's folder to the user's folder and to a folder outside, as an agent might make them
    const outside = join(v.root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'precious.txt'), 'keep me\n');
    symlinkSync(outside, join(v.rec.folder, 'out-link'));
    symlinkSync(v.cwd, join(v.rec.folder, 'project-link'));
    symlinkSync(join(outside, 'precious.txt'), join(v.rec.folder, 'file-link'));
    const storeRoot = projectStore(v.agentDir, v.rec.folder).root;
    assert.ok(existsSync(storeRoot));
    assert.match(await refsOf(v.agentDir, v.cwd), new RegExp(`refs/pi-tree/${v.rec.id}/checkout-base`));
    await discardVariant(v.agentDir, v.rec);
    assert.equal(existsSync(v.rec.folder), false);
    assert.equal(existsSync(join(v.rec.folder, '..')), false, 'its record with it');
    assert.equal(existsSync(storeRoot), false, 'its checkpoint store');
    assert.doesNotMatch(
      await refsOf(v.agentDir, v.cwd),
      new RegExp(v.rec.id),
      'the project store lets the snapshot go',
    );
    assert.equal(readFileSync(join(outside, 'precious.txt'), 'utf8'), 'keep me\n', 'nothing outside was touched');
    assert.equal(v.read('a.txt'), 'a\n');
    assert.ok(existsSync(v.rec.sessionFile!), 'the session file stays');
    assert.deepEqual(listVariants(v.agentDir), []);
  });

  it('refuses a variant folder replaced by a link (nothing followed)', async () => {
    const v = await withVariant();
    const dir = join(v.rec.folder, '..');
    const elsewhere = join(v.root, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'keep.txt'), 'k\n');
    // the variant's own folder swapped for a link to elsewhere
    renameSync(dir, `${dir}.moved`);
    symlinkSync(elsewhere, dir);
    await assert.rejects(
      discardVariant(v.agentDir, v.rec),
      /is not a folder pi-tree made \(a link\?\); nothing was removed/,
    );
    assert.equal(readFileSync(join(elsewhere, 'keep.txt'), 'utf8'), 'k\n');
    assert.ok(existsSync(v.rec.code!.storeRoot), 'its store stays too');
  });

  it('with deleteSession, the session goes to the trash too; a running variant is refused unless forced', async () => {
    const v = await withVariant();
    const running = updateVariant(v.agentDir, v.rec.project, v.rec.id, { state: 'running', pid: process.pid });
    await assert.rejects(discardVariant(v.agentDir, running), /is running/);
    assert.ok(existsSync(v.rec.folder));
    const trashHome = join(v.root, 'home');
    mkdirSync(trashHome);
    const prev = process.env.XDG_DATA_HOME;
    process.env.XDG_DATA_HOME = trashHome;
    try {
      const r = await discardVariant(v.agentDir, running, { force: true, deleteSession: true });
      assert.ok(r.sessionTrashed, 'moved to the trash');
    } finally {
      if (prev === undefined) delete process.env.XDG_DATA_HOME;
      else process.env.XDG_DATA_HOME = prev;
    }
    assert.equal(existsSync(v.rec.sessionFile!), false);
    assert.equal(existsSync(v.rec.folder), false);
  });

  it('deleting a variant’s session removes its folder; another session’s delete touches no variant', async () => {
    const v = await withVariant();
    assert.equal(
      variantOfSession(v.agentDir, v.rec.sessionFile!, v.rec.folder)?.id,
      v.rec.id,
      'a session file tells its variant',
    );
    assert.equal(variantOfSession(v.agentDir, v.sim.file, v.cwd), undefined);
    assert.equal(await sessionDeleted(v.agentDir, { cwd: v.cwd, id: 'x' }), false);
    assert.equal(
      await sessionDeleted(v.agentDir, { cwd: v.rec.folder, id: 'another-id' }),
      false,
      'a session whose id is not the variant’s',
    );
    assert.ok(existsSync(v.rec.folder));
    assert.equal(await sessionDeleted(v.agentDir, { cwd: v.rec.folder, id: v.rec.id }), true);
    assert.equal(existsSync(v.rec.folder), false);
  });

  it('records survive a restart; a variant whose preparing process died is listed as interrupted', async () => {
    const v = await withVariant();
    const second = await makeVariant({
      agentDir: v.agentDir,
      source: await v.session(),
      entryId: v.node.answer,
      prompt: 'try B',
      model: 'm',
    });
    updateVariant(v.agentDir, second.project, second.id, { state: 'preparing', pid: 2 ** 22 + 7 });
    const listed = listVariants(v.agentDir, v.cwd);
    assert.deepEqual(
      listed.map((r) => [r.id, r.state, !!r.interrupted]),
      [
        [v.rec.id, 'ready', false],
        [second.id, 'preparing', true],
      ],
    );
    assert.equal(listed[1].prompt, 'try B');
    assert.deepEqual(readdirSync(join(v.agentDir, 'pi-tree', 'variants')).length, 1, 'one folder per project');
  });
});
