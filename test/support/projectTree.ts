// A generated project for the checkpoint bench and the big-project test: a source tree of N files in
// nested folders (about 15 a folder, 4–5 levels at 10k–100k), a .gitignore, ignored build output and
// logs, a node_modules folder (a fifth as many files unless told; pi-tree and git must both leave it out), some
// binary files and executable scripts. Deterministic (seeded); written synchronously, file by file.
// `small` writes a line or two a file (the test's 100k in a few seconds); otherwise sizes spread like a
// real repository's (median ~1.8 KB, a long tail to 64 KB) with code-like text that compresses as code does.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mulberry32 } from './generate.js';

export interface ProjectOptions {
  files: number;
  seed: number;
  /** Tiny files (tests): a line or two each. */
  small?: boolean;
  /** Files in node_modules (default: a fifth of `files`). */
  nodeModules?: number;
}

export interface GeneratedProject {
  dir: string;
  /** The files a snapshot holds (relative, '/'), in generation order. */
  files: string[];
  /** Which of them are binary. */
  binary: Set<string>;
  /** Files the .gitignore or node_modules/ keep out (relative). */
  ignored: string[];
  /** Bytes of `files`. */
  bytes: number;
}

/** A small fast PRNG (generate.ts's mulberry32): the same project for the same seed. */
export const prng = mulberry32;

const NAMES = [
  'core',
  'util',
  'api',
  'model',
  'view',
  'service',
  'store',
  'net',
  'io',
  'parse',
  'render',
  'auth',
  'db',
  'cache',
  'config',
  'cli',
  'http',
  'types',
  'hooks',
  'widgets',
  'plugins',
  'schema',
  'queue',
  'log',
  'math',
  'text',
  'image',
  'sync',
  'jobs',
  'admin',
];
const WORDS = [
  'value',
  'result',
  'index',
  'count',
  'items',
  'state',
  'props',
  'config',
  'options',
  'handler',
  'request',
  'response',
  'buffer',
  'node',
  'parent',
  'child',
  'entry',
  'session',
  'tree',
  'path',
  'name',
  'error',
  'data',
  'cache',
  'key',
  'list',
  'map',
  'next',
  'prev',
  'size',
];
const EXTS = ['ts', 'ts', 'ts', 'tsx', 'js', 'json', 'md', 'py', 'go', 'css'];
const GITIGNORE = '# build output and local files\nnode_modules/\ndist/\ncoverage/\n*.log\n.env\n';

/** A pool of code-like lines the text files are made of. */
function linePool(rand: () => number): string[] {
  const w = () => WORDS[Math.floor(rand() * WORDS.length)];
  const cap = (s: string) => s[0].toUpperCase() + s.slice(1);
  const shapes = [
    () => `const ${w()}${cap(w())} = ${w()}.${w()}(${w()}, ${Math.floor(rand() * 1000)});`,
    () => `if (${w()}.${w()} === ${w()}) return ${w()}${cap(w())};`,
    () => `export function ${w()}${cap(w())}(${w()}: ${cap(w())}, ${w()}?: number): ${cap(w())} {`,
    () => `// ${w()} the ${w()} before the ${w()} is ${w()}ed (${w()} ${w()})`,
    () => `${w()}.${w()}.push({ ${w()}: ${w()}, ${w()}: '${w()}-${Math.floor(rand() * 100)}' });`,
    () => `}`,
    () => `for (const ${w()} of ${w()}${cap(w())}) ${w()} += ${w()}.${w()};`,
    () => `import { ${w()}, ${w()}${cap(w())} } from './${w()}/${w()}.js';`,
  ];
  const out: string[] = [];
  for (let i = 0; i < 4096; i++)
    out.push(`${'  '.repeat(Math.floor(rand() * 4))}${shapes[Math.floor(rand() * shapes.length)]()}`);
  return out;
}

/** Folder paths, breadth first: a few top folders, then 3–8 children each, until `count`. */
function folders(count: number, rand: () => number): string[] {
  const out = ['src', 'lib', 'test', 'docs', 'scripts', 'assets', 'packages'];
  let frontier = [...out];
  while (out.length < count) {
    const next: string[] = [];
    for (const d of frontier) {
      const k = 3 + Math.floor(rand() * 6);
      const used = new Set<string>();
      for (let j = 0; j < k && out.length < count; j++) {
        let name = NAMES[Math.floor(rand() * NAMES.length)];
        if (used.has(name)) name = `${name}${j}`;
        used.add(name);
        out.push(`${d}/${name}`);
        next.push(`${d}/${name}`);
      }
      if (out.length >= count) break;
    }
    frontier = next;
  }
  return out;
}

/** A log-normal size around `median` bytes, within [min, max]. */
function sizeOf(rand: () => number, median: number, min: number, max: number): number {
  const n = Math.sqrt(-2 * Math.log(rand() || 1e-9)) * Math.cos(2 * Math.PI * rand());
  return Math.max(min, Math.min(max, Math.round(median * Math.exp(0.9 * n))));
}

function binaryBytes(rand: () => number, size: number): Buffer {
  const b = Buffer.allocUnsafe(size);
  for (let i = 0; i + 4 <= size; i += 4) b.writeUInt32LE(Math.floor(rand() * 4294967296), i);
  for (let i = size - (size % 4); i < size; i++) b[i] = Math.floor(rand() * 256);
  return b;
}

/** Text of about `size` bytes from the pool, headed by its path (so no two files are the same). */
export function textOf(path: string, size: number, pool: string[], rand: () => number): string {
  const lines = [`// ${path}`];
  let n = lines[0].length + 1;
  while (n < size) {
    const l = pool[Math.floor(rand() * pool.length)];
    lines.push(l);
    n += l.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** Writes the project under `dir` (which should be empty or missing). */
export function generateProject(dir: string, o: ProjectOptions): GeneratedProject {
  const rand = prng(o.seed);
  const pool = linePool(rand);
  const dirs = folders(Math.max(8, Math.ceil(o.files / 15)), rand);
  const made = new Set<string>();
  const write = (rel: string, data: string | Buffer, mode?: number) => {
    const d = dirname(rel);
    if (!made.has(d)) {
      mkdirSync(join(dir, d), { recursive: true });
      made.add(d);
    }
    writeFileSync(join(dir, rel), data);
    if (mode) chmodSync(join(dir, rel), mode);
  };
  mkdirSync(dir, { recursive: true });
  const files: string[] = ['.gitignore', 'README.md', 'package.json'];
  writeFileSync(join(dir, '.gitignore'), GITIGNORE);
  writeFileSync(join(dir, 'README.md'), `# generated project (${o.files} files, seed ${o.seed})\n`);
  writeFileSync(join(dir, 'package.json'), `{ "name": "generated-${o.seed}", "private": true }\n`);
  let bytes = GITIGNORE.length + 100;
  const binary = new Set<string>();
  for (let i = files.length; i < o.files; i++) {
    const d = dirs[Math.floor(rand() * dirs.length)];
    const r = rand();
    let rel: string;
    let data: string | Buffer;
    let mode: number | undefined;
    if (r < 0.025) {
      rel = `${d}/${NAMES[i % NAMES.length]}-${i}.${i % 2 ? 'png' : 'bin'}`;
      data = binaryBytes(rand, o.small ? 16 + (i % 48) : sizeOf(rand, 6000, 200, 200_000));
      binary.add(rel);
    } else if (r < 0.03) {
      rel = `scripts/${NAMES[i % NAMES.length]}-${i}.sh`;
      data = o.small
        ? `#!/bin/sh\necho ${i}\n`
        : `#!/bin/sh\n${textOf(rel, sizeOf(rand, 600, 40, 8000), pool, rand).replace(/^\/\//gm, '#')}`;
      mode = 0o755;
    } else {
      rel = `${d}/${WORDS[i % WORDS.length]}${i}.${EXTS[i % EXTS.length]}`;
      data = o.small
        ? `// ${rel}\nexport const v${i} = ${i};\n`
        : textOf(rel, sizeOf(rand, 1800, 60, 64_000), pool, rand);
    }
    write(rel, data, mode);
    files.push(rel);
    bytes += data.length;
  }
  // Left out by the .gitignore: build output, logs, an env file; and node_modules (a fifth as many files).
  const ignored: string[] = [];
  const out = (rel: string, data: string) => {
    write(rel, data);
    ignored.push(rel);
  };
  out('.env', 'SECRET=not-for-snapshots\n');
  out('debug.log', 'log line\n'.repeat(100));
  for (let i = 0; i < Math.max(5, o.files / 200); i++)
    out(`dist/chunk-${i}.js`, o.small ? `c${i}\n` : textOf(`dist/${i}`, 4000, pool, rand));
  for (let i = 0; i < (o.nodeModules ?? Math.max(10, o.files / 5)); i++) {
    const pkg = `node_modules/${i % 7 === 0 ? '@scope/' : ''}${WORDS[i % WORDS.length]}-${Math.floor(i / 20)}`;
    out(
      `${pkg}/${i % 20 === 0 ? 'package.json' : `lib/${NAMES[i % NAMES.length]}${i}.js`}`,
      o.small ? `m${i}\n` : textOf(pkg, sizeOf(rand, 1500, 60, 30_000), pool, rand),
    );
  }
  return { dir, files, binary, ignored, bytes };
}
