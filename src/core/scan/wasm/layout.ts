// The memory of each WebAssembly module (wasm/*.wat) as both sides know it, one table each: scripts/wasm.mjs
// writes these numbers into the .wat where it says {{NAME}} (or an expression of names,
// {{BLOCKS + BLOCK_END}}), and the TypeScript reads the module's answers through the same names.

/**
 * The JSON validator's (jsonScan.wat; read by jsonScanWasm.ts and scanResult.ts). Addresses are in
 * bytes; every value noted as an address is 0 when there is nothing to note (no buffer starts at 0).
 */
export const LAYOUT = {
  /** [0, 4): the keys of the last scan with keys, as the bits below. */
  KEYS: 0,
  /** Keys spelled "role" (plus keys with an escape, which may spell it once decoded), up to 3: bits 0–1. */
  ROLE_MASK: 3,
  /** Keys spelled "type", up to 3: bits 2–3. */
  TYPE_SHIFT: 2,
  /** The (last) "content" value is not null. */
  CONTENT_BIT: 4,
  /** A key had an escape. */
  ESCAPED_BIT: 5,
  /** A "content" key is there (pi's isMessageWithContent). */
  HAS_CONTENT_BIT: 6,
  /** scanFacts: a content block's key or "type" had an escape (its notes are unsure). */
  FACTS_UNSURE_BIT: 7,
  /** scanRows: its notes do not cover the message (more blocks than it notes, an element not an object). */
  ROWS_UNSURE_BIT: 8,

  // scanFacts' notes, what stats reads of a message:
  /** Where the value of the outer object's (last) "usage", "provider" and "model" key starts. */
  USAGE: 4,
  PROVIDER: 8,
  MODEL: 12,
  /** The blocks of its (last) "content" array whose (last) "type" is the string "toolCall" (a count). */
  TOOL_CALLS: 16,

  // scanRows' notes, what a row of the tree reads (rowFacts.ts): [start, end) pairs of the outer object's
  // (last) values, end where the next key or the closing brace is (whitespace before it included).
  /** Six pairs in a row (the .wat clears them with three 16-byte stores; wasm.mjs checks it). */
  CONTENT: 20,
  STOP_REASON: 28,
  ERROR_MESSAGE: 36,
  TOOL_CALL_ID: 44,
  TOOL_NAME: 52,
  COMMAND: 60,
  /** How many blocks of the (last) "content" array are noted. */
  BLOCK_COUNT: 68,
  /** The noted blocks, one record of BLOCK_SIZE bytes each: [start, end, kind]. */
  BLOCKS: 72,
  BLOCK_SIZE: 12,
  BLOCK_END: 4,
  BLOCK_KIND: 8,
  /** Blocks noted at most; a message with more is not covered (ROWS_UNSURE_BIT). */
  MAX_BLOCKS: 64,
  /** A block's kind: its (last) "type" is the string "text", or "toolCall" (0: anything else). */
  KIND_TEXT: 1,
  KIND_TOOL_CALL: 2,
  /**
   * Of noted block k, at BLOCK_TEXTS + 8k: where the value of its (last) "text" key starts and, when that
   * value is a string of printable ASCII (0x20 to 0x7e) without escapes, where it ends (after its quote).
   */
  BLOCK_TEXTS: 1024,
  /** The same end for the outer (last) "content" value when it is such a string. */
  CONTENT_PLAIN_END: 1536,

  // Where $head found the fields of a message line's head: [start, end) pairs, then the time.
  HEAD_ID: 1600,
  HEAD_ID_END: 1604,
  /** (0, 0: null) */
  HEAD_PARENT: 1608,
  HEAD_PARENT_END: 1612,
  HEAD_TIME: 1616,
  HEAD_TIME_END: 1620,
  HEAD_ROLE: 1624,
  HEAD_ROLE_END: 1628,
  /** An f64: the timestamp's ms when the .wat's $isoTime knows them, else NaN. */
  HEAD_MS: 1632,

  /** messageLine's answer: the role's code (1 user, 2 assistant, 0 another), this bit set for a "content" key. */
  MESSAGE_CONTENT_BIT: 4,

  /** The nesting stack (a byte per level: 1 object, 2 array); deeper nesting returns -2 (JavaScript decides). */
  STACK: 2048,
  STACK_SIZE: 65536,
  /** The read buffers the JavaScript side hands out, from BUFFERS on: READ_BUFFERS of READ_CHUNK bytes. */
  BUFFERS: 2048 + 65536,
  READ_BUFFERS: 4,
  READ_CHUNK: 1024 * 1024,
  /** The module's memory, in pages of 64 KiB (it never grows). */
  PAGES: 72,
} as const;

/**
 * The builds of the validator's `scan` (the same function, made by scripts/wasm.mjs): which of the
 * .wat's (@facts …) and (@rows …) parts each one has. So that opening a session pays nothing for the
 * notes only stats reads, and stats nothing for the tree's.
 * @internal read by the build (scripts/wasm.mjs), not at run time.
 */
export const SCAN_BUILDS = {
  scan: [],
  scanFacts: ['facts'],
  scanRows: ['facts', 'rows'],
} as const;

/**
 * The memory of the terminal scan (terminalScan.wat, cli/safeText.ts): the JavaScript side copies a
 * window of output at 0, the two bytes after it (the rest of a character that starts in its last two)
 * and PAD spaces after those, which the scan's 16-byte loads past the window read.
 */
export const TERMINAL_LAYOUT = {
  WINDOW: 64 * 1024,
  PAD: 32,
  PAGES: 2,
} as const;
