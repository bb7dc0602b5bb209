// `npm run package`: a production build (minified, no source maps) into a staging folder, then a
// .vsix with only what runs (dist bundles, the icons in media/, package.json, README, CHANGELOG, LICENSE).
// Staging keeps dist/ untouched, so a watch build or a running e2e test never sees half-written files.
// The README's screenshots stay in the repository (they were 444 of the package's 771 KB): the
// package's README leaves out their images, and links to files it does not hold keep only their text.
// Usage: node scripts/package.mjs [--out <file.vsix>] [--quiet]
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = resolve(
  argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : join(root, `${pkg.name}-${pkg.version}.vsix`),
);
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
  for (const f of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', '.vscodeignore']) {
    if (existsSync(join(root, f))) cpSync(join(root, f), join(stage, f));
  }
  // `files` says what the npm package (the CLI) holds; vsce refuses it beside .vscodeignore.
  const staged = JSON.parse(readFileSync(join(stage, 'package.json'), 'utf8'));
  delete staged.files;
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(staged, null, 2)}\n`);
  mkdirSync(join(stage, 'media'));
  for (const f of readdirSync(join(root, 'media')))
    if (!/^screenshot-/.test(f)) cpSync(join(root, 'media', f), join(stage, 'media', f));
  for (const f of ['README.md', 'CHANGELOG.md'])
    writeFileSync(join(stage, f), packagedMarkdown(readFileSync(join(stage, f), 'utf8'), stage));
  mkdirSync(dirname(out), { recursive: true });
  // Dependencies are bundled by esbuild, so vsce must not add node_modules. There is no public
  // repository URL to rewrite README links against: relative links (e.g. media/ images) stay
  // relative and resolve inside the installed extension, which ships media/.
  run(
    process.execPath,
    [
      join(root, 'node_modules/@vscode/vsce/vsce'),
      'package',
      '--no-dependencies',
      '--allow-missing-repository',
      '--no-rewrite-relative-links',
      '--out',
      out,
    ],
    stage,
  );
} finally {
  rmSync(stage, { recursive: true, force: true });
}

/**
 * Markdown as the package shows it: an image of a file the package does not hold is left out (its line
 * too, when it is alone on it), and a relative link to such a file keeps its text only. Web links and
 * anchors stay.
 */
function packagedMarkdown(text, dir) {
  const shipped = (target) => /^([a-z]+:|#)/i.test(target) || existsSync(join(dir, target.split('#')[0]));
  return text
    .replace(/^!\[[^\]]*\]\(([^)\s]+)\)[ \t]*\n(?:[ \t]*\n)?/gm, (m, target) => (shipped(target) ? m : ''))
    .replace(/!\[[^\]]*\]\(([^)\s]+)\)/g, (m, target) => (shipped(target) ? m : ''))
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (m, label, target) => (shipped(target) ? m : label));
}

const size = statSync(out).size;
const kb = (size / 1024).toFixed(1);
console.log(
  `package: ${relative(process.cwd(), out) || out} ${kb} KB${size > SIZE_GOAL ? ` (over the 1 MB goal)` : ''}`,
);
