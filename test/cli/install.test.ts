// The CLI installed for real: `npm pack` of this package (its `files` and `bin`, built as prepack builds
// them) installed with `npm install -g` into a fresh prefix, offline (the package bundles what it
// runs and depends on nothing), gives a `pi-tree` that prints its version, reads a real session as the
// checkout's CLI does, and connects pi with the bridge it ships.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../support/tmp.js';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  files: string[];
  scripts: Record<string, string>;
};
const FIXTURE = join(root, 'test', 'fixtures', 'real', 'pi-mono-before-compaction.jsonl');

function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    ...opts,
    env: { ...process.env, ...opts.env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('pi-tree installed from npm pack', () => {
  it('npm pack → npm install -g --prefix <fresh> gives a working pi-tree', { timeout: 240_000 }, () => {
    // The package as `npm pack` makes it, staged (prepack's build goes to the stage, not this checkout's dist/).
    const stage = tempDir('pi-tree-pack-');
    const built = run(
      process.execPath,
      [join(root, 'scripts', 'build.mjs'), ...pkg.scripts.prepack.split(' ').slice(2), '--outdir', join(stage, 'dist')],
      { cwd: root },
    );
    assert.equal(built.code, 0, built.err);
    for (const f of ['package.json', 'README.md', 'LICENSE']) cpSync(join(root, f), join(stage, f));
    const out = tempDir('pi-tree-tgz-');
    const packed = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], { cwd: stage });
    assert.equal(packed.code, 0, packed.err);
    const [info] = JSON.parse(packed.out) as { filename: string; files: { path: string }[] }[];
    assert.deepEqual(
      info.files.map((f) => f.path).sort(),
      ['LICENSE', 'README.md', 'dist/cli.js', 'dist/pi-bridge.js', 'package.json'],
      'only the CLI, the bridge it installs and the docs',
    );

    const prefix = tempDir('pi-tree-prefix-');
    const npmEnv = { npm_config_cache: join(out, 'npm-cache'), npm_config_update_notifier: 'false' };
    const installed = run(
      'npm',
      ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', join(out, info.filename)],
      { env: npmEnv },
    );
    assert.equal(installed.code, 0, `${installed.out}${installed.err}`);
    const bin = join(prefix, 'bin', 'pi-tree');
    assert.ok(existsSync(bin), `${bin} (prefix holds ${readdirSync(prefix).join(', ')})`);
    const pt = (args: string[], env: NodeJS.ProcessEnv = {}) => run(bin, args, { env });

    const v = pt(['--version']);
    assert.equal(v.code, 0, v.err);
    assert.equal(v.out, `${pkg.version}\n`);
    // A real session, read as the checkout's own CLI reads it.
    const tree = pt(['tree', FIXTURE]);
    assert.equal(tree.code, 0, tree.err);
    assert.equal(tree.out, run(process.execPath, [join(root, 'dist', 'cli.js'), 'tree', FIXTURE]).out);
    const stats = JSON.parse(pt(['stats', FIXTURE, '--json']).out) as { entries: number };
    assert.ok(stats.entries > 100);
    // The bridge it installs into pi's settings ships with it.
    const agentDir = tempDir('pi-tree-agent-');
    mkdirSync(agentDir, { recursive: true });
    const c = pt(['connect'], { PI_CODING_AGENT_DIR: agentDir });
    assert.equal(c.code, 0, c.err);
    assert.deepEqual(
      readFileSync(join(agentDir, 'pi-tree', 'pi-bridge.js')),
      readFileSync(join(stage, 'dist', 'pi-bridge.js')),
    );
    assert.equal(pt(['disconnect'], { PI_CODING_AGENT_DIR: agentDir }).code, 0);
    assert.equal(existsSync(join(agentDir, 'settings.json')), false);
  });
});
