// The reader's JSON validation in WebAssembly (wasm/jsonValid.wat; same decisions as jsonValid.ts,
// strings skipped 16 bytes at a time with SIMD): about four times faster than the JS loop on a big
// session. The bytes must be in the module's memory: the reader copies each chunk it reads there once
// (`useChunk`) and validates its lines in place; any other line is copied in on its own. Without
// WebAssembly SIMD, for lines longer than the memory and for nesting deeper than its stack, the JS
// validator decides (`undefined` from here).
import { WASM_BASE64 } from './wasm/jsonValid.wasm.js';

const DATA = 65536;
const SLACK = 64;

interface Exports {
  memory: { buffer: ArrayBuffer };
  validate(s: number, e: number, keys: number): number;
  role: { value: unknown };
  content: { value: unknown };
}

// The core's type libraries (ES + Node) do not declare WebAssembly; the runtime has it.
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};

let ex: Exports | null | undefined;
let mem: Uint8Array;
let room = 0;

function load(): Exports | null {
  if (ex !== undefined) return ex;
  // PI_TREE_WASM=0: the JS validator only (the benchmark's comparison, the fallback's tests).
  if (process.env.PI_TREE_WASM === '0') return (ex = null);
  try {
    const bytes = Buffer.from(WASM_BASE64, 'base64');
    ex = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports as Exports;
    mem = new Uint8Array(ex.memory.buffer);
    room = mem.length - DATA - SLACK;
  } catch {
    ex = null; // no WebAssembly (or no SIMD): the JS validator is used
  }
  return ex;
}

/** The chunk whose bytes are in the module's memory, and where it came from. */
let chunk: Uint8Array | undefined;
let chunkFrom = 0;
let chunkTo = 0;

/** Copies `buf[from…to)` into the module's memory, for the lines validated next. */
export function useChunk(buf: Uint8Array, from: number, to: number): void {
  const x = load();
  if (!x || to - from > room) {
    chunk = undefined;
    return;
  }
  mem.set(buf.subarray(from, to), DATA);
  chunk = buf;
  chunkFrom = from;
  chunkTo = to;
}

/** Forgets the chunk (its buffer may be reused for other bytes). */
export function dropChunk(): void {
  chunk = undefined;
}

/** Turns the WebAssembly validator off (the JS one decides everything) or back on: for tests. */
export function setWasmEnabled(on: boolean): void {
  ex = on ? undefined : null;
  chunk = undefined;
}

/** Keys of the outermost object of the last validation with `keys` (see jsonValid.ts outerKeys). */
export const wasmKeys = { role: 0, content: false };

/**
 * Index just after the JSON value at `b[start…end)`, or -1 when JSON.parse would reject it; undefined
 * when this validator cannot decide it (the caller then uses the JS one).
 */
export function wasmScanValue(b: Uint8Array, start: number, end: number, keys: boolean): number | undefined {
  const x = load();
  if (!x) return undefined;
  let base: number;
  if (b === chunk && start >= chunkFrom && end <= chunkTo) base = DATA - chunkFrom;
  else {
    if (end - start > room) return undefined;
    if (chunk) chunk = undefined; // the copy below overwrites it
    mem.set(b.subarray(start, end), DATA);
    base = DATA - start;
  }
  const r = x.validate(start + base, end + base, keys ? 1 : 0);
  if (r === -2) return undefined;
  if (keys) {
    wasmKeys.role = x.role.value as number;
    wasmKeys.content = (x.content.value as number) !== 0;
  }
  return r < 0 ? -1 : r - base;
}
