// `npm run lint` runs this: no import circles among the files of src/ and webview/. A circle makes the
// order in which modules start depend on which one is imported first, and makes a newcomer read both
// files to understand either. Every relative import counts, `import type` and `export … from` included
// (a type circle still ties two files together); a dynamic `import()` does not, since it runs later.
// Reads each file's imports with TypeScript's pre-processor and lists every strongly connected group.
// Usage: node scripts/importCycles.mjs (in the folder that holds src/ and webview/)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const roots = ['src', 'webview'];

function sources(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(resolve(p));
  }
  return out;
}

/** The file a relative specifier names (`./x.js` and `./x` are `./x.ts`; a folder is its index.ts). */
function resolveSpecifier(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const c of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')])
    if (existsSync(c) && statSync(c).isFile()) return c;
  return undefined;
}

/** Static imports only: `import()` expressions are left out (a lazily loaded module is not a circle at start). */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const { importedFiles } = ts.preProcessFile(text, true, false);
  const out = new Set();
  for (const { fileName, pos } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    if (/\bimport\s*\(\s*$/.test(text.slice(Math.max(0, pos - 20), pos))) continue;
    const target = resolveSpecifier(file, fileName);
    if (target) out.add(target);
  }
  return [...out];
}

/** Tarjan's strongly connected components: every group of more than one file (or a file importing itself). */
function cycles(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  const visit = (v) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const group = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (graph.get(v) ?? []).includes(v)) groups.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return groups;
}

const graph = new Map();
for (const file of roots.filter((r) => existsSync(r)).flatMap((r) => sources(r))) graph.set(file, importsOf(file));
const found = cycles(graph);
for (const group of found) console.error(`import circle: ${group.map((f) => relative(process.cwd(), f)).join(' ↔ ')}`);
if (found.length > 0) {
  console.error(`${found.length} import circle(s): move what both files need into a third file, or pass it in.`);
  process.exit(1);
}
