// The WebAssembly build of the JSON validator (wasm/jsonScan.wat) and read buffers in its memory: bytes
// read into such a buffer are validated in place, several times faster than jsonValid.ts's JavaScript
// loop (which decides wherever WebAssembly cannot: bytes elsewhere, nesting deeper than its stack). Its
// answers are read from its memory through wasm/layout.ts into the caller's structs (scanResult.ts).
import { LineScan, ObjectKeys, type Notes } from './scanResult.js';
import { LAYOUT as L } from './wasm/layout.js';
import { jsonScanWasm } from './wasm/jsonScanBytes.js';
import { wasmExports } from './wasmInstance.js';

type Scan = (start: number, end: number, keys: number) => number;

interface JsonScan {
  memory: { buffer: ArrayBuffer };
  scan: Scan;
  scanFacts: Scan;
  scanRows: Scan;
  messageLine(start: number, end: number): number;
  head(start: number, end: number): number;
}

/** The module, its memory (it never grows, so this stays its buffer) as words, and its time of $head. */
interface Loaded {
  module: JsonScan;
  memory: ArrayBuffer;
  words: Int32Array;
  headMs: Float64Array;
}

let loaded: Loaded | null | undefined;
let next: number = L.BUFFERS;

function load(): Loaded | null {
  if (loaded === undefined) {
    // (null without WebAssembly with SIMD: JavaScript validates)
    const module = wasmExports<JsonScan>(jsonScanWasm);
    const memory = module?.memory.buffer;
    loaded =
      module && memory
        ? {
            module,
            memory,
            words: new Int32Array(memory, 0, L.STACK / 4),
            headMs: new Float64Array(memory, L.HEAD_MS, 1),
          }
        : null;
  }
  return loaded;
}

/** Size of the read buffers handed out by takeReadBuffer. */
export const READ_CHUNK = L.READ_CHUNK;
/** Read buffers in the validator's memory not in use now (it has room for layout.ts READ_BUFFERS). */
const free: Buffer[] = [];

/**
 * A read buffer of at least `size` bytes (READ_CHUNK at most): one of READ_CHUNK bytes in the
 * validator's memory while one is free (lines read into it are validated in place), else an ordinary
 * one of `size`. Give it back with giveReadBuffer when the read is over.
 */
export function takeReadBuffer(size = READ_CHUNK): Buffer {
  const f = free.pop();
  if (f) return f;
  const w = load();
  if (!w || next + READ_CHUNK > w.memory.byteLength) return Buffer.allocUnsafe(size);
  const b = Buffer.from(w.memory, next, READ_CHUNK);
  next += READ_CHUNK;
  return b;
}

/** Returns a buffer of takeReadBuffer (its bytes must not be used after this). */
export function giveReadBuffer(b: Buffer): void {
  if (loaded && b.buffer === loaded.memory && !free.includes(b)) free.push(b);
}

/** The module when `b` lies in its memory (it decides for it), else undefined. */
function inMemory(b: Uint8Array): Loaded | undefined {
  return loaded && b.buffer === loaded.memory ? loaded : undefined;
}

const ROLE_MASK = L.ROLE_MASK;
const TYPE_SHIFT = L.TYPE_SHIFT;
const TYPE_MASK = L.ROLE_MASK << TYPE_SHIFT;
const CONTENT = 1 << L.CONTENT_BIT;
const ESCAPED = 1 << L.ESCAPED_BIT;
const HAS_CONTENT = 1 << L.HAS_CONTENT_BIT;
const FACTS_UNSURE = 1 << L.FACTS_UNSURE_BIT;
const ROWS_UNSURE = 1 << L.ROWS_UNSURE_BIT;
// (the answers' places as indexes of the words)
const W_KEYS = L.KEYS / 4;
const W_USAGE = L.USAGE / 4;
const W_PROVIDER = L.PROVIDER / 4;
const W_MODEL = L.MODEL / 4;
const W_TOOL_CALLS = L.TOOL_CALLS / 4;
const W_ID = L.HEAD_ID / 4;
const W_ID_END = L.HEAD_ID_END / 4;
const W_PARENT = L.HEAD_PARENT / 4;
const W_PARENT_END = L.HEAD_PARENT_END / 4;
const W_TIME = L.HEAD_TIME / 4;
const W_TIME_END = L.HEAD_TIME_END / 4;
const W_ROLE = L.HEAD_ROLE / 4;
const W_ROLE_END = L.HEAD_ROLE_END / 4;

/**
 * The validator's answer for the value at `b[start…end)` when `b` lies in its memory: the index after
 * the value, or -1; undefined when it cannot tell (`b` elsewhere, nesting too deep). With `keys`, what it
 * found of the outer object's keys goes there, and with `notes` what stats ('facts') or also a tree row
 * ('rows') reads of it.
 */
export function wasmScan(
  b: Uint8Array,
  start: number,
  end: number,
  keys: ObjectKeys | undefined,
  notes: Notes,
): number | undefined {
  const w = inMemory(b);
  if (!w) return undefined;
  const base = b.byteOffset;
  const m = w.module;
  // (notes only with keys: the .wat notes them as it finds the keys)
  const scan = !keys || !notes ? m.scan : notes === 'rows' ? m.scanRows : m.scanFacts;
  const r = scan(base + start, base + end, keys ? 1 : 0);
  if (r < 0) return r === -1 ? -1 : undefined;
  if (keys) readKeys(w.words, base, notes, keys);
  return r - base;
}

function readKeys(words: Int32Array, base: number, notes: Notes, into: ObjectKeys): void {
  const k = words[W_KEYS];
  into.role = k & ROLE_MASK;
  into.type = (k & TYPE_MASK) >> TYPE_SHIFT;
  into.content = (k & CONTENT) !== 0;
  into.escaped = (k & ESCAPED) !== 0;
  into.hasContent = (k & HAS_CONTENT) !== 0;
  // (no escape in a key or a block's type)
  into.factsKnown = notes !== false && (k & (FACTS_UNSURE | ESCAPED)) === 0;
  into.rowsKnown = notes === 'rows' && into.factsKnown && (k & ROWS_UNSURE) === 0;
  into.words = words;
  into.base = base;
  if (!into.factsKnown) return;
  into.usage = noted(words[W_USAGE], base);
  into.provider = noted(words[W_PROVIDER], base);
  into.model = noted(words[W_MODEL], base);
  into.toolCalls = words[W_TOOL_CALLS];
}

/** The index of `base`'s buffer at the address `w` (0: none, -1). */
function noted(w: number, base: number): number {
  return w === 0 ? -1 : w - base;
}

/**
 * For a line `b[start…end)` in the module's memory: -1 when it is not a message line in pi's shape that
 * JSON.parse accepts, else its role (1 user, 2 assistant, 0 another) | MESSAGE_CONTENT when the message
 * has a "content" key. undefined when `b` lies elsewhere.
 */
export function wasmMessageLine(b: Uint8Array, start: number, end: number): number | undefined {
  const w = inMemory(b);
  return w && w.module.messageLine(b.byteOffset + start, b.byteOffset + end);
}

export const MESSAGE_CONTENT = 1 << L.MESSAGE_CONTENT_BIT;

/**
 * For a line `b[start…end)` in the module's memory: whether it opens as pi writes a message line
 * (lineHead.ts readHead), its fields then in `into` (its time NaN when the timestamp is not in the shape
 * the .wat reads from its digits). undefined when `b` lies elsewhere.
 */
export function wasmHead(b: Uint8Array, start: number, end: number, into: LineScan): boolean | undefined {
  const w = inMemory(b);
  if (!w) return undefined;
  const base = b.byteOffset;
  const m = w.module.head(base + start, base + end);
  if (m < 0) return false;
  const words = w.words;
  into.idStart = words[W_ID] - base;
  into.idEnd = words[W_ID_END] - base;
  const parent = words[W_PARENT];
  into.parentStart = parent === 0 ? -1 : parent - base;
  into.parentEnd = parent === 0 ? -1 : words[W_PARENT_END] - base;
  into.timeStart = words[W_TIME] - base;
  into.timeEnd = words[W_TIME_END] - base;
  into.time = w.headMs[0];
  into.roleStart = words[W_ROLE] - base;
  into.roleEnd = words[W_ROLE_END] - base;
  into.messageStart = m - base;
  return true;
}
