// Session text printed to a terminal must not drive the terminal: an ESC in a message could start
// OSC 52 (write the clipboard), OSC 8 (a hidden link), a title change or a cursor move, and bidi
// controls can make a line read differently from what it holds. Human-readable output shows such
// characters as visible escapes instead; JSON output keeps them exact (JSON.stringify escapes C0).
//
// One choke point: `main` gives every command terminalIO's writer, so no human-readable byte reaches
// stdout or stderr without passing terminalText (a command that forgets safeText on a field still
// cannot drive the terminal). safeText is for one-line fields, where a newline or a tab would also
// break the line's layout.
import { isUtf8 } from 'node:buffer';
import { terminalScanWasm } from '../core/scan/wasm/terminalScanBytes.js';
import { TERMINAL_LAYOUT as L } from '../core/scan/wasm/layout.js';
import { wasmExports } from '../core/scan/wasmInstance.js';
import type { CliIO, Streams } from './io.js';

// C0 (incl. ESC, BEL, CR, LF), DEL, C1 (U+0080–U+009F, which some terminals take as CSI/OSC), the
// bidi embeddings/overrides/isolates and marks, and the line/paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
// The same but LF and TAB, which multi-line output is made of.
const UNSAFE_IN_LINES =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
// What JSON.stringify leaves raw of UNSAFE (it escapes C0 itself).
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

const visible = (c: string) => {
  const n = c.charCodeAt(0);
  return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u{${n.toString(16)}}`;
};

/** `s` with every control and bidi character replaced by a visible `\xNN` / `\u{NNNN}` escape. */
export function safeText(s: string): string {
  return s.replace(UNSAFE, visible);
}

/** Like safeText, but keeps the newlines and tabs of multi-line output. */
export function terminalText(s: string): string {
  return s.replace(UNSAFE_IN_LINES, visible);
}

/** Index of the first byte in `b` that starts a character of UNSAFE_IN_LINES (UTF-8), else -1: byte by byte. */
export function unsafeByteAt(b: Uint8Array, from = 0, to = b.length): number {
  for (let i = from; i < to; i++) {
    const c = b[i];
    if (c < 0x7f) {
      if (c < 0x20 && c !== 0x0a && c !== 0x09) return i;
    } else if (c === 0x7f) return i;
    else if (c === 0xc2) {
      const d = b[i + 1];
      if (d >= 0x80 && d <= 0x9f) return i; // C1
    } else if (c === 0xd8) {
      if (b[i + 1] === 0x9c) return i; // U+061C
    } else if (c === 0xe2) {
      const d = b[i + 1];
      const e = b[i + 2];
      if (d === 0x80 && (e === 0x8e || e === 0x8f || (e >= 0xa8 && e <= 0xae))) return i; // U+200E/F, U+2028–202E
      if (d === 0x81 && e >= 0xa6 && e <= 0xa9) return i; // U+2066–2069
    }
  }
  return -1;
}

/** The WebAssembly build of unsafeByteAt (core/scan/wasm/terminalScan.wat): 16 bytes at a time. */
interface TerminalScan {
  memory: { buffer: ArrayBuffer };
  unsafe(len: number): number;
}
let scanner: TerminalScan | null | undefined;

function wasmScanner(): TerminalScan | null {
  // (null without WebAssembly with SIMD: the JavaScript loop)
  if (scanner === undefined) scanner = wasmExports<TerminalScan>(terminalScanWasm);
  return scanner;
}

/** unsafeByteAt ≥ 0, in WebAssembly where there is one (a window of 64 KiB at a time, copied into its memory). */
export function hasUnsafeBytes(b: Uint8Array, wasm = wasmScanner()): boolean {
  if (!wasm) return unsafeByteAt(b) >= 0;
  const mem = new Uint8Array(wasm.memory.buffer);
  for (let at = 0; at < b.length; at += L.WINDOW) {
    const len = Math.min(L.WINDOW, b.length - at);
    // the window, the two bytes after it (the rest of a character that starts in its last two), spaces
    const copied = Math.min(len + 2, b.length - at);
    mem.set(b.subarray(at, at + copied), 0);
    mem.fill(0x20, copied, copied + L.PAD);
    if (wasm.unsafe(len) >= 0) return true;
  }
  return false;
}

/** terminalText for bytes: the same buffer when nothing needs escaping (the common case, checked without decoding). */
export function terminalBytes(b: Buffer): Buffer {
  if (isUtf8(b) && !hasUnsafeBytes(b)) return b;
  return Buffer.from(terminalText(b.toString('utf8')), 'utf8');
}

/**
 * JSON text (JSON.stringify's) that a terminal shows as text: the characters JSON.stringify leaves raw
 * (DEL, C1, bidi, U+2028/9) as \u escapes, which JSON.parse reads back as the same string. For the
 * JSON a command prints by default (`move`); `--json` output is JSON.stringify's text as it is.
 */
export function terminalJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The writer every command gets: human-readable output through terminalText, JSON as it is. */
export function terminalIO(streams: Streams): CliIO {
  return {
    out: (s) => streams.out(typeof s === 'string' ? terminalText(s) : terminalBytes(s)),
    json: (s) => streams.out(s),
    err: (s) => streams.err(terminalText(s)),
    outWritten: streams.outWritten,
    env: streams.env,
  };
}
