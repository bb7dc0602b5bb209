// Session text printed to a terminal must not drive the terminal: an ESC in a message could start
// OSC 52 (write the clipboard), OSC 8 (a hidden link), a title change or a cursor move, and bidi
// controls can make a line read differently from what it holds. Human-readable output shows such
// characters as visible escapes instead; JSON output keeps them exact (JSON.stringify escapes C0).

// C0 (incl. ESC, BEL, CR, LF), DEL, C1 (U+0080–U+009F, which some terminals take as CSI/OSC), the
// bidi embeddings/overrides/isolates and marks, and the line/paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** `s` with every control and bidi character replaced by a visible `\xNN` / `\u{NNNN}` escape. */
export function safeText(s: string): string {
  return s.replace(UNSAFE, (c) => {
    const n = c.charCodeAt(0);
    return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u{${n.toString(16)}}`;
  });
}
