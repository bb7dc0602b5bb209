// Bundles the extension host, the CLI and the webview with esbuild.
// Usage: node scripts/build.mjs [--watch] [--minify]
import * as esbuild from 'esbuild';
import { existsSync, mkdirSync, chmodSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const minify = process.argv.includes('--minify') || process.env.PI_TREE_MINIFY === '1';
mkdirSync('dist', { recursive: true });

const common = { bundle: true, sourcemap: 'linked', minify, logLevel: 'warning', legalComments: 'none' };
const builds = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] },
  { ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', target: 'node20', banner: { js: '#!/usr/bin/env node' } },
];
if (existsSync('webview/main.ts')) {
  builds.push({ ...common, entryPoints: ['webview/main.ts'], outfile: 'dist/webview.js', platform: 'browser', format: 'iife', target: 'chrome120', loader: { '.css': 'text' } });
}

if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
  console.log('watching…');
} else {
  await Promise.all(builds.filter((b) => existsSync(b.entryPoints[0])).map((b) => esbuild.build(b)));
  if (existsSync('dist/cli.js')) chmodSync('dist/cli.js', 0o755);
}
