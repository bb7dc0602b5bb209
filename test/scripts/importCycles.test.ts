// The import-circle check of `npm run lint`: run on small trees of files, and on the repository itself.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';

const script = resolve('scripts/importCycles.mjs');

function check(files: Record<string, string>): { status: number | null; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'pi-tree-cycles-'));
  try {
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    const r = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
    return { status: r.status, stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a circle through three files is reported, type imports included', () => {
  const r = check({
    'src/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
    'src/b.ts': "import type { C } from './c/index.js';\nexport const b: C = 1;\n",
    'src/c/index.ts': "export type { A } from '../a';\nexport type C = number;\n",
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /import circle: src\/a\.ts ↔ src\/b\.ts ↔ src\/c\/index\.ts/);
});

test('a dynamic import() and a package import are not circles', () => {
  const r = check({
    'src/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
    'src/b.ts': "import 'node:fs';\nexport const b = 1;\nexport const later = () => import('./a.js');\n",
    'webview/w.ts': "import { a } from '../src/a';\nexport const w = a;\n",
  });
  assert.equal(r.status, 0, r.stderr);
});

test('the repository has no import circle', () => {
  const r = spawnSync(process.execPath, [script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});
