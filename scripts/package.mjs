// `npm run package`: a production build (minified, no source maps) into a staging folder, then a
// .vsix with only what runs (dist bundles, media/, package.json, README, CHANGELOG, LICENSE).
// Staging keeps dist/ untouched, so a watch build or a running e2e test never sees half-written files.
// Usage: node scripts/package.mjs [--out <file.vsix>] [--quiet]
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = resolve(argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : join(root, `${pkg.name}-${pkg.version}.vsix`));
const quiet = argv.includes('--quiet');
const SIZE_GOAL = 1024 * 1024;

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit' });
  if (r.status !== 0) {
    console.error(`package: ${relative(root, args[0]) || cmd} failed (exit ${r.status})`);
    process.exit(r.status ?? 1);
  }
}

const stage = join(root, '.vscode-test', `package-${process.pid}`);
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
try {
  run(process.execPath, [join(root, 'scripts/build.mjs'), '--production', '--outdir', join(stage, 'dist')], root);
  for (const f of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', '.vscodeignore', 'media']) {
    if (existsSync(join(root, f))) cpSync(join(root, f), join(stage, f), { recursive: true });
  }
  mkdirSync(dirname(out), { recursive: true });
  // Dependencies are bundled by esbuild, so vsce must not add node_modules. There is no public
  // repository URL to rewrite README links against: relative links (e.g. media/ images) stay
  // relative and resolve inside the installed extension, which ships media/.
  run(process.execPath, [join(root, 'node_modules/@vscode/vsce/vsce'), 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', out], stage);
} finally {
  rmSync(stage, { recursive: true, force: true });
}

const size = statSync(out).size;
const kb = (size / 1024).toFixed(1);
console.log(`package: ${relative(process.cwd(), out) || out} ${kb} KB${size > SIZE_GOAL ? ` (over the 1 MB goal)` : ''}`);
