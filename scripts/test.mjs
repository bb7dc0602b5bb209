// `npm test`: builds, type-checks and runs every suite of the project with Node's test runner.
// Suites that need outside tools (Chromium, code-server) get them from scripts/ensure-tools.mjs,
// which installs what it can and otherwise stops with one line naming what is missing.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function findTests(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) findTests(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const only = process.argv.slice(2);
if (!existsSync('node_modules')) run('npm', ['ci']);
run(process.execPath, ['scripts/build.mjs']);
run(process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', '.']);
if (existsSync('scripts/ensure-tools.mjs')) run(process.execPath, ['scripts/ensure-tools.mjs']);

const files = only.length ? only : findTests('test').sort();
run(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${process.env.PI_TREE_TEST_CONCURRENCY ?? 2}`, ...files]);
