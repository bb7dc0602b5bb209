// The WebAssembly build of the JSON validator (wasm/jsonScan.wat) and read buffers in its memory: bytes
// read into such a buffer are validated in place, several times faster than jsonValid.ts's JavaScript
// loop (which decides wherever WebAssembly cannot: bytes elsewhere, nesting deeper than its stack).
import { jsonScanWasm } from './wasm/jsonScanBytes.js';

interface JsonScan {
  memory: { buffer: ArrayBuffer };
  scan(start: number, end: number, keys: number): number;
  scanFacts(start: number, end: number, keys: number): number;
  scanRows(start: number, end: number, keys: number): number;
  messageLine(start: number, end: number): number;
  head(start: number, end: number): number;
}

/** The part of the WebAssembly API used here (core's type libraries have no DOM). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

/** Where buffers start: after the module's nesting stack. */
const BASE = 2048 + 65536;

let module: JsonScan | null | undefined;
/** The module's memory (it never grows, so this stays its buffer); undefined until a buffer is made. */
let memory: ArrayBuffer | undefined;
let keyWord = new Int32Array(512);
/** The f64 at 1632: $head's timestamp in ms. */
let headTime = new Float64Array(1);
/** byteOffset of the buffer of the last wasmScan, to turn the module's addresses into indexes of it. */
let lastBase = 0;
let next = BASE;

function load(): JsonScan | null {
  if (module === undefined) {
    try {
      const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly!;
      module = new wasm.Instance(new wasm.Module(Buffer.from(jsonScanWasm, 'base64'))).exports as JsonScan;
    } catch {
      module = null; // no WebAssembly with SIMD here: JavaScript validates
    }
  }
  return module;
}

/** A buffer of `size` bytes in the validator's memory, for good (undefined when it has no room left). */
function scanBuffer(size: number): Buffer | undefined {
  const m = load();
  if (!m || next + size > m.memory.buffer.byteLength) return undefined;
  const mem = m.memory.buffer;
  memory = mem;
  keyWord = new Int32Array(mem, 0, 512);
  headTime = new Float64Array(mem, 1632, 1);
  const b = Buffer.from(mem, next, size);
  next += size;
  return b;
}

/** Size of the read buffers handed out by takeReadBuffer. */
export const READ_CHUNK = 1024 * 1024;
/** Read buffers in the validator's memory not in use now (it has room for four; see jsonScan.wat). */
const free: Buffer[] = [];

/**
 * A read buffer of at least `size` bytes (READ_CHUNK at most): one of READ_CHUNK bytes in the
 * validator's memory while one is free (lines read into it are validated in place), else an ordinary
 * one of `size`. Give it back with giveReadBuffer when the read is over.
 */
export function takeReadBuffer(size = READ_CHUNK): Buffer {
  return free.pop() ?? scanBuffer(READ_CHUNK) ?? Buffer.allocUnsafe(size);
}

/** Returns a buffer of takeReadBuffer (its bytes must not be used after this). */
export function giveReadBuffer(b: Buffer): void {
  if (memory !== undefined && b.buffer === memory && !free.includes(b)) free.push(b);
}

/**
 * The validator's answer for the value at `b[start…end)` when `b` lies in its memory: the index after
 * the value, or -1; undefined when it cannot tell (`b` elsewhere, nesting too deep). With `keys`, what it
 * found of the outer object's keys is in wasmKeys(); with `facts` too, what stats reads of a message is
 * in wasmFacts(); with 'rows', also what a tree row reads, in wasmNotes().
 */
export function wasmScan(b: Uint8Array, start: number, end: number, keys: boolean, facts: false | 'facts' | 'rows' = false): number | undefined {
  if (b.buffer !== memory || memory === undefined) return undefined;
  lastBase = b.byteOffset;
  const scan = facts === 'rows' ? module!.scanRows : facts ? module!.scanFacts : module!.scan;
  const r = scan(b.byteOffset + start, b.byteOffset + end, keys || facts ? 1 : 0);
  return r === -1 ? -1 : r >= 0 ? r - b.byteOffset : undefined;
}

/**
 * For a line `b[start…end)` in the module's memory: -1 when it is not a message line in pi's shape that
 * JSON.parse accepts, else its role (1 user, 2 assistant, 0 another) | MESSAGE_CONTENT when the message
 * has a "content" key. undefined when `b` lies elsewhere.
 */
export function wasmMessageLine(b: Uint8Array, start: number, end: number): number | undefined {
  if (b.buffer !== memory || memory === undefined) return undefined;
  return module!.messageLine(b.byteOffset + start, b.byteOffset + end);
}

export const MESSAGE_CONTENT = 16;

/**
 * Where wasmHead found the fields, as indexes of its buffer: [start, end) of each (parent -1, -1: null);
 * `ms`: the timestamp's, when it is in the shape lineHead.ts isoTime reads from its digits (else NaN).
 */
export const headAt = { id: 0, idEnd: 0, parent: -1, parentEnd: -1, time: 0, timeEnd: 0, role: 0, roleEnd: 0, ms: NaN };

/**
 * For a line `b[start…end)` in the module's memory: where its message object starts when it opens as
 * pi writes a message line (lineHead.ts readHead; the fields in `headAt`), else -1. undefined when `b`
 * lies elsewhere.
 */
export function wasmHead(b: Uint8Array, start: number, end: number): number | undefined {
  if (b.buffer !== memory || memory === undefined) return undefined;
  const base = b.byteOffset;
  const m = module!.head(base + start, base + end);
  if (m < 0) return -1;
  const w = keyWord;
  headAt.id = w[400] - base;
  headAt.idEnd = w[401] - base;
  headAt.parent = w[402] === 0 ? -1 : w[402] - base;
  headAt.parentEnd = w[402] === 0 ? -1 : w[403] - base;
  headAt.time = w[404] - base;
  headAt.timeEnd = w[405] - base;
  headAt.role = w[406] - base;
  headAt.roleEnd = w[407] - base;
  headAt.ms = headTime[0];
  return m - base;
}

/** "role" keys (up to 3) | "type" keys << 2 | non-null content << 4 | escaped key << 5 | content key << 6 | toolCalls unsure << 7 | rows unsure << 8. */
export function wasmKeys(): number {
  return keyWord[0];
}

/**
 * Of the last wasmScan with facts, in its buffer's indexes: where the outer object's "usage",
 * "provider" and "model" values start (-1: no such key) and how many blocks of its "content" array
 * have the type "toolCall" (see jsonScan.wat).
 */
export function wasmFacts(into: { usage: number; provider: number; model: number; toolCalls: number }): void {
  const at = (w: number) => (w === 0 ? -1 : w - lastBase);
  into.usage = at(keyWord[1]);
  into.provider = at(keyWord[2]);
  into.model = at(keyWord[3]);
  into.toolCalls = keyWord[4];
}

const notes = { words: keyWord, base: 0 };

/**
 * Of the last wasmScan with facts: the words of memory [0, 2048) (what the tree reads from word 5 on,
 * see jsonScan.wat) and the address of its buffer's start, to turn the noted addresses into its indexes.
 */
export function wasmNotes(): { words: Int32Array; base: number } {
  notes.words = keyWord;
  notes.base = lastBase;
  return notes;
}
