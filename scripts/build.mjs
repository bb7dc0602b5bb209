// Bundles the extension host, the CLI and the webview with esbuild.
// Usage: node scripts/build.mjs [--watch] [--minify]
// The webview bundle is an iife (dist/webview.js) plus its style sheet (dist/webview.css, emitted by
// esbuild from the CSS the webview imports); the codicon font and CSS are copied to dist/codicons/.
import * as esbuild from 'esbuild';
import { existsSync, mkdirSync, chmodSync, copyFileSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const minify = process.argv.includes('--minify') || process.env.PI_TREE_MINIFY === '1';
mkdirSync('dist', { recursive: true });

const common = { bundle: true, sourcemap: 'linked', minify, logLevel: 'warning', legalComments: 'none' };
const builds = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] },
  { ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', target: 'node20', banner: { js: '#!/usr/bin/env node' } },
];
if (existsSync('webview/main.ts')) {
  // Always minified: the bundle ships as is, and a smaller webview script parses faster.
  builds.push({ ...common, minify: true, entryPoints: ['webview/main.ts'], outfile: 'dist/webview.js', platform: 'browser', format: 'iife', target: 'chrome120', loader: { '.css': 'css' }, metafile: true });
}

function copyCodicons() {
  const src = 'node_modules/@vscode/codicons/dist';
  if (!existsSync(src)) return;
  mkdirSync('dist/codicons', { recursive: true });
  for (const f of ['codicon.css', 'codicon.ttf']) copyFileSync(`${src}/${f}`, `dist/codicons/${f}`);
}

if (watch) {
  copyCodicons();
  for (const b of builds) (await esbuild.context(b)).watch();
  console.log('watching…');
} else {
  await Promise.all(builds.filter((b) => existsSync(b.entryPoints[0])).map((b) => esbuild.build(b)));
  copyCodicons();
  if (existsSync('dist/cli.js')) chmodSync('dist/cli.js', 0o755);
}
