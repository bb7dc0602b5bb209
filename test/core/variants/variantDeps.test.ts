// Dependency folders reach a variant so that a check runs there (`npm test` finds its packages), as
// files of the variant's own: a write in the variant's node_modules never reaches the user's (no hard
// link, no link into the user's folder); links inside them are kept, one that leads out is left out and
// named; `none` brings nothing, `clone` only copy-on-write, `command` runs the user's install command in
// the variant's folder. The settings come from pi-tree's settings.json.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  DEFAULT_VARIANT_SETTINGS,
  makeVariant,
  readVariantSettings,
  type VariantSettings,
} from '../../../src/core/variants/index.js';
import { variantProject, write } from '../../support/variantProject.js';

const PKG = JSON.stringify({ name: 'p', private: true, scripts: { test: 'node check.js' } });

async function withDeps(settings: Partial<VariantSettings> = {}) {
  const p = variantProject({
    'package.json': PKG,
    'check.js': "require('dep'); require('inner'); console.log('ok');\n",
    '.gitignore': 'node_modules/\n.venv/\n',
    'packages/a/index.js': 'x\n',
  });
  p.put('node_modules/dep/index.js', 'module.exports = 1;\n');
  p.put('node_modules/dep/package.json', '{"name":"dep","main":"index.js"}\n');
  p.put('node_modules/inner/index.js', 'module.exports = 2;\n');
  p.put('node_modules/dep/bin/cli.js', '#!/usr/bin/env node\n', 0o755);
  mkdirSync(join(p.cwd, 'node_modules', '.bin'));
  symlinkSync('../dep/bin/cli.js', join(p.cwd, 'node_modules', '.bin', 'dep'));
  symlinkSync('/etc/hostname', join(p.cwd, 'node_modules', 'abs-link'));
  symlinkSync('../../outside', join(p.cwd, 'node_modules', 'up-link'));
  p.put('packages/a/node_modules/nested/index.js', 'nested\n');
  p.put('.venv/lib/site.py', 'py\n');
  const node = await p.sim.turn('node', [write('n.txt', 'n\n')], () => p.put('n.txt', 'n\n'));
  const rec = await makeVariant({
    agentDir: p.agentDir,
    source: await p.session(),
    entryId: node.answer,
    settings: { ...DEFAULT_VARIANT_SETTINGS, ...settings },
  });
  return { ...p, rec };
}

describe('dependency folders in a variant', () => {
  it('copy (the default): the check runs there; a write there never reaches the user’s files; a link leading out is left out', async () => {
    const v = await withDeps();
    assert.equal(v.rec.deps!.mode, 'copy');
    assert.ok(['cloned', 'copied'].includes(v.rec.deps!.how), v.rec.deps!.how);
    assert.deepEqual(v.rec.deps!.folders.map((f) => f.path).sort(), [
      '.venv',
      'node_modules',
      'packages/a/node_modules',
    ]);
    const check = spawnSync(process.execPath, ['check.js'], { cwd: v.rec.folder, encoding: 'utf8' });
    assert.equal(check.status, 0, check.stderr);
    assert.equal(check.stdout, 'ok\n');
    const npm = spawnSync('npm', ['test', '--silent'], { cwd: v.rec.folder, encoding: 'utf8' });
    if (!npm.error) assert.equal(npm.status, 0, npm.stderr);
    assert.equal(readlinkSync(join(v.rec.folder, 'node_modules', '.bin', 'dep')), '../dep/bin/cli.js');
    assert.equal(lstatSync(join(v.rec.folder, 'node_modules', 'dep', 'bin', 'cli.js')).mode & 0o777, 0o755);
    assert.equal(
      readFileSync(join(v.rec.folder, 'packages', 'a', 'node_modules', 'nested', 'index.js'), 'utf8'),
      'nested\n',
    );
    assert.deepEqual(v.rec.deps!.leftOut.map((l) => l.path).sort(), ['node_modules/abs-link', 'node_modules/up-link']);
    assert.equal(existsSync(join(v.rec.folder, 'node_modules', 'abs-link')), false);
    // the variant's own files: another inode; a write (in place, as `>>` does) stays in the variant
    const mine = join(v.rec.folder, 'node_modules', 'dep', 'index.js');
    const theirs = join(v.cwd, 'node_modules', 'dep', 'index.js');
    assert.notEqual(lstatSync(mine).ino, lstatSync(theirs).ino);
    writeFileSync(mine, 'changed in the variant\n', { flag: 'r+' });
    writeFileSync(join(v.rec.folder, 'node_modules', '.bin', 'dep'), '// through the link, inside the variant\n');
    assert.equal(readFileSync(theirs, 'utf8'), 'module.exports = 1;\n');
    assert.equal(readFileSync(join(v.cwd, 'node_modules', 'dep', 'bin', 'cli.js'), 'utf8'), '#!/usr/bin/env node\n');
  });

  it('none brings nothing; clone brings copy-on-write clones or nothing (named)', async () => {
    const none = await withDeps({ dependencies: 'none' });
    assert.equal(existsSync(join(none.rec.folder, 'node_modules')), false);
    assert.equal(none.rec.deps!.how, 'none');
    const clone = await withDeps({ dependencies: 'clone' });
    if (clone.rec.deps!.how === 'cloned')
      assert.ok(existsSync(join(clone.rec.folder, 'node_modules', 'dep', 'index.js')));
    else {
      assert.equal(clone.rec.deps!.how, 'none');
      assert.match(clone.rec.deps!.note!, /cannot clone files/);
      assert.equal(existsSync(join(clone.rec.folder, 'node_modules')), false);
    }
  });

  it('command runs the user’s install command in the variant’s folder; a failing one is named, the variant stays', async () => {
    const ok = await withDeps({
      dependencies: 'command',
      installCommand: [process.execPath, '-e', "require('fs').writeFileSync('installed.txt', process.cwd())"],
    });
    assert.equal(readFileSync(join(ok.rec.folder, 'installed.txt'), 'utf8'), ok.rec.folder);
    assert.equal(ok.rec.deps!.note, undefined);
    assert.equal(existsSync(join(ok.cwd, 'installed.txt')), false);
    const bad = await withDeps({
      dependencies: 'command',
      installCommand: [process.execPath, '-e', "console.error('no network'); process.exit(3)"],
    });
    assert.equal(bad.rec.state, 'ready');
    assert.match(bad.rec.deps!.note!, /failed \(exit 3\): no network/);
  });

  it('the settings: read from settings.json, defaults for what is missing or malformed', () => {
    const p = variantProject();
    assert.deepEqual(readVariantSettings(p.agentDir), DEFAULT_VARIANT_SETTINGS);
    mkdirSync(join(p.agentDir, 'pi-tree'), { recursive: true });
    writeFileSync(
      join(p.agentDir, 'pi-tree', 'settings.json'),
      JSON.stringify({
        variants: {
          dependencies: 'hardlink',
          dependencyFolders: ['node_modules', '../up', 'target'],
          installCommand: 'npm ci',
        },
      }),
    );
    assert.deepEqual(
      readVariantSettings(p.agentDir),
      { dependencies: 'copy', dependencyFolders: ['node_modules', 'target'], installCommand: [] },
      'no hard links; no folder names with a slash',
    );
  });
});
