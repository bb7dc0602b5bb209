// Finding where the message object of a pi message line ends, on the raw bytes, without parsing it:
// what lets `pi-tree context` copy a stored message to its output as it is (no parse, no stringify).
// Anything unexpected answers undefined, and the caller parses the line instead.
import { same } from './lineHead.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isWs = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;

export interface ObjectScan {
  /** Index just after the closing `}`. */
  end: number;
  /** The object has a top-level "content" key whose value is not `null`. */
  hasContent: boolean;
}

/**
 * Index of the `"` that closes a string whose text starts at `b[s]`, or -1. Long texts are most of a
 * message's bytes: native indexOf skips through them, then a run of backslashes before the quote is
 * counted (odd: the quote is escaped).
 */
function closingQuote(b: Buffer, s: number, end: number): number {
  for (let q = b.indexOf(QUOTE, s); q !== -1 && q < end; q = b.indexOf(QUOTE, q + 1)) {
    let k = q - 1;
    while (k >= s && b[k] === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q;
  }
  return -1;
}

/** Scans the JSON object that opens at `b[start]` (string-aware, nesting-aware). */
export function scanObject(b: Buffer, start: number, end: number): ObjectScan | undefined {
  if (b[start] !== 0x7b) return undefined;
  let depth = 0;
  let expectKey = false;
  let hasContent = false;
  for (let j = start; j < end; j++) {
    const c = b[j];
    if (c === QUOTE) {
      const s = j + 1;
      j = closingQuote(b, s, end);
      if (j < 0) return undefined;
      if (depth === 1 && expectKey) {
        expectKey = false;
        if (same(b, s, j, 'content')) {
          let k = j + 1;
          while (k < end && isWs(b[k])) k++;
          if (b[k] !== 0x3a) return undefined;
          k++;
          while (k < end && isWs(b[k])) k++;
          hasContent = !(b[k] === 0x6e && b[k + 1] === 0x75 && b[k + 2] === 0x6c && b[k + 3] === 0x6c); // null
        }
      }
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth === 1) expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return { end: j + 1, hasContent };
      if (depth < 0) return undefined;
    } else if (c === 0x2c && depth === 1) expectKey = true;
  }
  return undefined;
}

/**
 * The bytes of the message object of a pi-shaped message line, when the message is the line's last
 * key and, for the roles pi normalizes (user, assistant, toolResult, system), has non-null content.
 */
export function rawMessage(b: Buffer, messageStart: number, role: string): Buffer | undefined {
  const r = scanObject(b, messageStart, b.length);
  if (!r) return undefined;
  let k = r.end;
  if (b[k] !== 0x7d) return undefined;
  for (k++; k < b.length; k++) if (!isWs(b[k])) return undefined;
  if ((role === 'user' || role === 'assistant' || role === 'toolResult' || role === 'system') && !r.hasContent) return undefined;
  return b.subarray(messageStart, r.end);
}
