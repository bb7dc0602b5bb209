// Compiles src/core/scan/wasm/*.wat (WebAssembly text, with SIMD) into <name>Bytes.ts next to it: the module
// as base64, so the bundle and tsx load it without a loader. Run after editing a .wat or layout.ts:
// `npm run wasm`; test/core/scan/jsonScanWasm.test.ts fails while the two differ.
//
// A .wat is a template: (@include "file.wat") is that file's text (from the .wat's folder); and two kinds
// of parts come from src/core/scan/wasm/layout.ts, the one table of a module's memory for its .wat and
// the TypeScript that reads it (LAYOUT for jsonScan.wat, TERMINAL_LAYOUT for terminalScan.wat):
// - {{NAME}}, or an expression of names and integers ({{BLOCKS + BLOCK_END}}, {{1 << MESSAGE_CONTENT_BIT}}):
//   the number, from the table;
// - a function that holds (@facts …) or (@rows …) parts, `(func $scan (export "scan") …)`: made once per
//   build of SCAN_BUILDS, each named for it and with the parts it lists (the part's contents in place of
//   the part; the others dropped).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import wabtInit from 'wabt';
import { LAYOUT, SCAN_BUILDS, TERMINAL_LAYOUT } from '../src/core/scan/wasm/layout.ts';

const DIR = join(import.meta.dirname, '..', 'src', 'core', 'scan', 'wasm');

/** The table of each .wat's memory, by its name. */
const TABLES = { jsonScan: LAYOUT, terminalScan: TERMINAL_LAYOUT };

/** The value of a {{…}} expression: the table's names, integers, + - * << >> and parentheses. */
function valueOf(expr, table) {
  const arithmetic = expr.replace(/[A-Za-z_][A-Za-z0-9_]*/g, (name) => {
    if (!Object.hasOwn(table, name)) throw new Error(`{{${expr}}}: ${name} is not in its table of layout.ts`);
    return `(${table[name]})`;
  });
  if (!/^[\d\s+\-*<>()]*$/.test(arithmetic)) throw new Error(`{{${expr}}}: only names, integers, + - * << >>`);
  const v = new Function(`return ${arithmetic};`)();
  if (!Number.isInteger(v)) throw new Error(`{{${expr}}} is not an integer`);
  return v;
}

/** Index after the s-expression that opens at `text[open]` ("(" … ")"), skipping comments and strings. */
function formEnd(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === ';' && text[i + 1] === ';') i = text.indexOf('\n', i);
    else if (c === '(' && text[i + 1] === ';') i = text.indexOf(';)', i) + 1;
    else if (c === '"')
      i = text.indexOf('"', i + 1); // (names: no escapes)
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
    if (i < 0) break;
  }
  throw new Error(`unbalanced form at ${text.slice(open, open + 60)}`);
}

/** `text` with each (@part …) of `parts` replaced by its contents and every other (@…) part dropped. */
function withParts(text, parts) {
  for (let at = text.search(/\(@\w/); at >= 0; at = text.search(/\(@\w/)) {
    const end = formEnd(text, at);
    const [head, name] = /^\(@(\w+)/.exec(text.slice(at));
    text = text.slice(0, at) + (parts.includes(name) ? text.slice(at + head.length, end - 1) : '') + text.slice(end);
  }
  return text;
}

/** The .wat text of a template: the numbers of `table` put in, each function with parts made once per build. */
function expandWat(text, table) {
  text = text.replace(/\{\{([^}]*)\}\}/g, (_, expr) => String(valueOf(expr.trim(), table)));
  const fn = /^[ \t]*\(func \$(\w+) \(export "\1"\)/gm;
  for (let m = fn.exec(text); m; m = fn.exec(text)) {
    const start = m.index + m[0].indexOf('(');
    const end = formEnd(text, start);
    const body = text.slice(start, end);
    if (!/\(@\w/.test(body)) continue;
    if (m[1] !== 'scan') throw new Error(`$${m[1]}: only $scan is made in builds (SCAN_BUILDS)`);
    const builds = Object.entries(SCAN_BUILDS).map(([name, parts]) =>
      withParts(body, parts).replace(/^\(func \$scan \(export "scan"\)/, `(func $${name} (export "${name}")`),
    );
    text = text.slice(0, start) + builds.join('\n') + text.slice(end);
    fn.lastIndex = start + builds.join('\n').length;
  }
  return text;
}

/** What the .wat takes for granted about the table (else its stores would not fit it). */
function checkLayout() {
  const L = LAYOUT;
  const fail = (why) => {
    throw new Error(`layout.ts: ${why}`);
  };
  const rows = [L.CONTENT, L.STOP_REASON, L.ERROR_MESSAGE, L.TOOL_CALL_ID, L.TOOL_NAME, L.COMMAND];
  if (rows.some((a, k) => a !== L.CONTENT + 8 * k))
    fail('the row values are six [start, end) pairs in a row, from CONTENT on');
  if (L.BLOCKS + L.MAX_BLOCKS * L.BLOCK_SIZE > L.BLOCK_TEXTS || L.BLOCK_TEXTS + 8 * L.MAX_BLOCKS > L.CONTENT_PLAIN_END)
    fail('the blocks overlap');
  if (L.KIND_TEXT !== 1) fail('KIND_TEXT is 1 (the .wat stores its "text" flag as the kind)');
  if (L.HEAD_PARENT_END !== L.HEAD_PARENT + 4) fail('a null parent is cleared with one 8-byte store');
  if (L.HEAD_MS % 8 !== 0 || L.HEAD_ROLE_END >= L.HEAD_MS || L.HEAD_MS + 8 > L.STACK) fail('the head overlaps');
  if (1 << L.MESSAGE_CONTENT_BIT <= 2) fail('MESSAGE_CONTENT_BIT is above the role codes');
  if (L.STACK + L.STACK_SIZE > L.BUFFERS || L.BUFFERS + L.READ_BUFFERS * L.READ_CHUNK > L.PAGES * 65536)
    fail('the memory is too small');
  const T = TERMINAL_LAYOUT;
  // (its loads at i, i + 1 and i + 2 read up to 17 bytes past the window's last 16-byte step)
  if (T.PAD < 16 || T.WINDOW + 2 + T.PAD > T.PAGES * 65536)
    fail('TERMINAL_LAYOUT: the window and its padding do not fit');
}

/** The text of a .wat file with the files it includes in place. */
function readWat(file) {
  return readFileSync(file, 'utf8').replace(/\(@include "([^"]+)"\)/g, (_, part) => readWat(join(dirname(file), part)));
}

/** The binary of one .wat file. */
export async function compileWat(file) {
  checkLayout();
  const wabt = await wabtInit();
  const table = TABLES[basename(file, '.wat')];
  if (!table) throw new Error(`${file}: no table in layout.ts (scripts/wasm.mjs TABLES)`);
  const mod = wabt.parseWat(file, expandWat(readWat(file), table), { simd: true });
  try {
    mod.validate();
    return Buffer.from(mod.toBinary({}).buffer);
  } finally {
    mod.destroy();
  }
}

/** The TypeScript file that carries a module's bytes. */
export function bytesModule(name, bytes) {
  return `// Generated by scripts/wasm.mjs from ${name}.wat: do not edit.\nexport const ${name}Wasm =\n  '${bytes.toString('base64')}';\n`; // (as prettier lays it out)
}

async function main() {
  for (const f of readdirSync(DIR).filter((x) => x.endsWith('.wat'))) {
    const name = f.slice(0, -4);
    const bytes = await compileWat(join(DIR, f));
    writeFileSync(join(DIR, `${name}Bytes.ts`), bytesModule(name, bytes));
    process.stderr.write(`${f}: ${bytes.length} bytes\n`);
  }
}

// (no top-level await: the tests import compileWat from here)
if (process.argv[1] === import.meta.filename) void main();
