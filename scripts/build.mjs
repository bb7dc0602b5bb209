// Bundles the extension host, the CLI and the webview with esbuild.
// Usage: node scripts/build.mjs [--watch] [--minify] [--production] [--outdir <dir>] [--only cli,bridge]   (PI_TREE_NOMIN=1: a readable webview bundle, for profiling)
// --production = minified, no source maps (what `npm run package` ships); --outdir defaults to dist;
// --only: just those bundles (extension, cli, projector, bridge, webview): `npm pack` builds the CLI and
// the bridge it installs (the npm package holds only those two).
// The webview bundle is an iife (webview.js) plus its style sheet (webview.css, emitted by esbuild from
// the CSS the webview imports); the codicon font and CSS are copied to <outdir>/codicons/.
// Except with --production, a test build of the webview goes to <outdir>/test/webview.js: the same code
// with __PI_TREE_TEST__ = true, which exposes window.__piTree for the browser tests and the benchmark.
// The shipped webview.js is built with it false, so none of that is in it.
import * as esbuild from 'esbuild';
import { existsSync, mkdirSync, chmodSync, copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const watch = argv.includes('--watch');
const production = argv.includes('--production');
const minify = production || argv.includes('--minify') || process.env.PI_TREE_MINIFY === '1';
const outdir = argv.includes('--outdir') ? argv[argv.indexOf('--outdir') + 1] : 'dist';
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1].split(',') : undefined;
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
mkdirSync(outdir, { recursive: true });

const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify,
  logLevel: 'warning',
  legalComments: 'none',
};
const builds = [
  // jsonc-parser's main is a UMD build whose require() of its parts esbuild cannot follow: its ESM build instead.
  {
    ...common,
    name: 'extension',
    entryPoints: ['src/extension.ts'],
    outfile: join(outdir, 'extension.js'),
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    alias: { 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' },
  },
  {
    ...common,
    name: 'cli',
    entryPoints: ['src/cli.ts'],
    outfile: join(outdir, 'cli.js'),
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    define: { __PI_TREE_VERSION__: JSON.stringify(version) },
    alias: { 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' },
  },
  // The worker thread that projects big sessions off the extension host's thread (src/host/projection/projectWorker.ts).
  {
    ...common,
    name: 'projector',
    entryPoints: ['src/host/projection/projectWorker.ts'],
    outfile: join(outdir, 'projector.js'),
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  // The pi extension (src/piExtension/): one ES module pi loads with `-e` or from its settings (pi's loader,
  // jiti, takes its default export). pi maps its own package to the running copy, so it stays external.
  {
    ...common,
    name: 'bridge',
    entryPoints: ['src/piExtension/index.ts'],
    outfile: join(outdir, 'pi-bridge.js'),
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['@earendil-works/pi-coding-agent'],
  },
];
if (existsSync('webview/main.ts')) {
  // Minified (PI_TREE_NOMIN=1 aside, for profiling): the bundle ships as is, and a smaller script parses faster.
  const webview = {
    ...common,
    name: 'webview',
    minify: !process.env.PI_TREE_NOMIN,
    entryPoints: ['webview/main.ts'],
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    loader: { '.css': 'css' },
    metafile: true,
  };
  builds.push({ ...webview, outfile: join(outdir, 'webview.js'), define: { __PI_TREE_TEST__: 'false' } });
  if (!production)
    builds.push({ ...webview, outfile: join(outdir, 'test', 'webview.js'), define: { __PI_TREE_TEST__: 'true' } });
}

function copyCodicons() {
  const src = 'node_modules/@vscode/codicons/dist';
  if (!existsSync(src)) return;
  mkdirSync(join(outdir, 'codicons'), { recursive: true });
  for (const f of ['codicon.css', 'codicon.ttf']) copyFileSync(`${src}/${f}`, join(outdir, 'codicons', f));
}

if (watch) {
  copyCodicons();
  // The lines VS Code's $esbuild-watch problem matcher waits for (F5 runs after the first build).
  const announce = {
    name: 'announce',
    setup: (b) => (
      b.onStart(() => console.log('[watch] build started')),
      b.onEnd(() => console.log('[watch] build finished'))
    ),
  };
  for (const { name: _name, ...b } of builds)
    (await esbuild.context({ ...b, plugins: [...(b.plugins ?? []), announce] })).watch();
  console.log('watching…');
} else {
  await Promise.all(
    builds
      .filter((b) => existsSync(b.entryPoints[0]) && (!only || only.includes(b.name)))
      .map(({ name: _name, ...b }) => esbuild.build(b)),
  );
  if (!only || only.includes('webview')) copyCodicons();
  if (existsSync(join(outdir, 'cli.js'))) chmodSync(join(outdir, 'cli.js'), 0o755);
}
