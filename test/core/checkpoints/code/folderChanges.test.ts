// What a variant's folder changed since its checkout, as the variants run reports it: each path created,
// deleted or changed against the code at the node, with git's line counts (0 and 0 for a binary file);
// a folder as it was checked out has no changes; a file changed and changed back is no change.
import assert from 'node:assert/strict';
import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { folderChanges, folderFileAtBase, readCheckpointSettings } from '../../../../src/core/checkpoints/index.js';
import { makeVariant, variantFileAtNode } from '../../../../src/core/variants/index.js';
import { variantProject, write } from '../../../support/variantProject.js';

describe('folderChanges', () => {
  it('names each changed file with its lines added and removed, against the code at the node', async () => {
    const p = variantProject({
      'a.txt': 'one\ntwo\nthree\n',
      'gone.txt': 'x\ny\n',
      'same.txt': 's\n',
      'pic.bin': 'old',
    });
    const node = await p.sim.turn('node', [write('n.txt', 'n\n')], () => p.put('n.txt', 'n\n'));
    const rec = await makeVariant({ agentDir: p.agentDir, source: await p.session(), entryId: node.answer });
    const o = {
      agentDir: p.agentDir,
      settings: readCheckpointSettings(p.agentDir),
      folder: rec.folder,
      sessionId: rec.id,
      baseTree: rec.code!.tree,
    };
    assert.deepEqual(await folderChanges(o), [], 'as checked out: nothing changed');
    writeFileSync(join(rec.folder, 'a.txt'), 'one\n2\nthree\nfour\n');
    unlinkSync(join(rec.folder, 'gone.txt'));
    writeFileSync(join(rec.folder, 'new file.txt'), 'new\n');
    writeFileSync(join(rec.folder, 'pic.bin'), Buffer.from([0, 1, 2, 0, 3]));
    writeFileSync(join(rec.folder, 'same.txt'), 'changed\n');
    writeFileSync(join(rec.folder, 'same.txt'), 's\n');
    assert.deepEqual(await folderChanges(o), [
      { path: 'a.txt', status: 'changed', added: 2, removed: 1 },
      { path: 'gone.txt', status: 'deleted', added: 0, removed: 2 },
      { path: 'new file.txt', status: 'created', added: 1, removed: 0 },
      { path: 'pic.bin', status: 'changed', added: 0, removed: 0 },
    ]);
    // the left side of a changed file: its bytes at the node, whatever the folder holds now
    assert.equal((await variantFileAtNode(p.agentDir, rec.folder, 'a.txt'))?.toString(), 'one\ntwo\nthree\n');
    assert.equal((await variantFileAtNode(p.agentDir, rec.folder, 'gone.txt'))?.toString(), 'x\ny\n');
    assert.equal(
      await variantFileAtNode(p.agentDir, rec.folder, 'new file.txt'),
      undefined,
      'a created file was not at the node',
    );
    assert.equal((await folderFileAtBase({ ...o, path: 'pic.bin' }))?.toString(), 'old');
    await assert.rejects(variantFileAtNode(p.agentDir, p.cwd, 'a.txt'), /not a variant's folder/);
  });
});
