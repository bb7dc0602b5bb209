// JSON-lines framing for the bridge socket: records split on "\n" bytes only (not on U+2028/U+2029,
// which are valid inside JSON strings, as readline would), each at most `maxBytes` long.

export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private dead = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    /** Called once when a line grows past maxBytes; nothing more is delivered afterwards. */
    private readonly onOverflow: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (!this.dead) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      if (this.size + piece.length > this.maxBytes) return this.overflow();
      const whole = this.parts.length ? Buffer.concat([...this.parts, piece]) : piece;
      this.parts = [];
      this.size = 0;
      start = nl + 1;
      let line = whole.toString('utf8');
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.trim()) this.onLine(line);
    }
    if (this.dead || start >= chunk.length) return;
    const rest = chunk.subarray(start);
    if (this.size + rest.length > this.maxBytes) return this.overflow();
    this.parts.push(Buffer.from(rest));
    this.size += rest.length;
  }

  private overflow(): void {
    this.dead = true;
    this.parts = [];
    this.onOverflow();
  }
}
