// Entry ids as numbers: pi's ids are 8 lowercase hex digits, exactly 32 bits, so an index can keep them
// in a Uint32Array and find them in a hash table of typed arrays — no string, no Map entry and no
// object per entry. Any other id (older files, other writers) stays a string beside it.

const HEXVAL = new Int8Array(256).fill(-1);
for (let c = 0; c < 10; c++) HEXVAL[0x30 + c] = c;
for (let c = 0; c < 6; c++) HEXVAL[0x61 + c] = 10 + c;

/** The number an 8-lowercase-hex id spells, or -1 for any other id. */
export function hexKey(s: string): number {
  if (s.length !== 8) return -1;
  let v = 0;
  for (let k = 0; k < 8; k++) {
    const c = s.charCodeAt(k);
    const d = c < 256 ? HEXVAL[c] : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/** hexKey of the bytes `b[from…to)`. */
export function hexKeyAt(b: Uint8Array, from: number, to: number): number {
  if (to - from !== 8) return -1;
  let v = 0;
  for (let k = from; k < to; k++) {
    const d = HEXVAL[b[k]];
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

const BYTE_HEX: string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/** The id a hex key stands for. */
export function hexId(key: number): string {
  return BYTE_HEX[key >>> 24] + BYTE_HEX[(key >>> 16) & 255] + BYTE_HEX[(key >>> 8) & 255] + BYTE_HEX[key & 255];
}

/** Writes the 8 hex digits of `key` at `out[at…]`. */
export function writeHexId(key: number, out: Uint8Array, at: number): void {
  for (let k = 7; k >= 0; k--) {
    out[at + k] = HEX_DIGITS[key & 15];
    key >>>= 4;
  }
}

/** `["id",…]` of records `idx` as UTF-8 bytes (ids in pi's shape written without making strings). */
export function idsJson(ix: { idKeyOf(i: number): number; idOf(i: number): string }, idx: ArrayLike<number>): Buffer {
  let size = 2;
  for (let k = 0; k < idx.length; k++)
    size += (ix.idKeyOf(idx[k]) < 0 ? Buffer.byteLength(JSON.stringify(ix.idOf(idx[k]))) : 10) + 1;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  out[at++] = 0x5b;
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k];
    const key = ix.idKeyOf(i);
    if (k) out[at++] = 0x2c;
    if (key < 0) at += out.write(JSON.stringify(ix.idOf(i)), at, 'utf8');
    else {
      out[at] = 0x22;
      writeHexId(key, out, at + 1);
      out[at + 9] = 0x22;
      at += 10;
    }
  }
  out[at++] = 0x5d;
  return out.subarray(0, at);
}

/** Keys setLater holds back. */
const QUEUE = 64;

/**
 * uint32 → int32 (≥ 0) hash table, open addressing with linear probing; values are record indexes, -1
 * means "absent". Fibonacci hashing spreads ids that share their low bits. Key and value sit side by
 * side (one cache line per probe: with a million random ids every probe is a cache miss).
 */
export class U32Map {
  /** [key, value + 1] pairs (0 = empty slot). */
  private slots: Uint32Array;
  private bits: number;
  private count = 0;
  private readonly queue = new Uint32Array(2 * QUEUE);
  private queued = 0;

  constructor(expected = 1024) {
    this.bits = Math.max(10, Math.ceil(Math.log2(Math.max(1, expected) * 2)));
    this.slots = new Uint32Array(2 << this.bits);
  }

  get size(): number {
    return this.count;
  }

  get(key: number): number {
    const mask = (1 << this.bits) - 1;
    const s = this.slots;
    let h = Math.imul(key, 0x9e3779b1) >>> (32 - this.bits);
    for (;;) {
      const v = s[2 * h + 1];
      if (v === 0) return -1;
      if (s[2 * h] === key) return v - 1;
      h = (h + 1) & mask;
    }
  }

  /** Sets `key` to `val` (≥ 0); returns the value it replaced, or -1. */
  set(key: number, val: number): number {
    if ((this.count + 1) * 2 > 1 << this.bits) this.grow();
    const mask = (1 << this.bits) - 1;
    const s = this.slots;
    let h = Math.imul(key, 0x9e3779b1) >>> (32 - this.bits);
    for (;;) {
      const v = s[2 * h + 1];
      if (v === 0) {
        s[2 * h] = key;
        s[2 * h + 1] = val + 1;
        this.count++;
        return -1;
      }
      if (s[2 * h] === key) {
        s[2 * h + 1] = val + 1;
        return v - 1;
      }
      h = (h + 1) & mask;
    }
  }

  /**
   * Queues `set(key, val)`; true when the queue is full (call setQueued). A million random keys miss the
   * cache once each: set one at a time, each waits for memory in turn; a batch set in one loop has the
   * CPU wait for several at once.
   */
  setLater(key: number, val: number): boolean {
    const q = this.queue;
    q[2 * this.queued] = key;
    q[2 * this.queued + 1] = val;
    return ++this.queued === QUEUE;
  }

  /** Sets the queued keys in order; `replaced(val, prev)` for each that replaced a value. */
  setQueued(replaced: (val: number, prev: number) => void): void {
    const q = this.queue;
    const n = this.queued;
    this.queued = 0;
    for (let k = 0; k < n; k++) {
      const prev = this.set(q[2 * k], q[2 * k + 1]);
      if (prev >= 0) replaced(q[2 * k + 1], prev);
    }
  }

  private grow(): void {
    const old = this.slots;
    this.bits++;
    this.slots = new Uint32Array(2 << this.bits);
    this.count = 0;
    for (let h = 0; h < old.length; h += 2) if (old[h + 1] !== 0) this.set(old[h], old[h + 1] - 1);
  }
}

/** The 32-bit FNV-1a hash of the bytes `b[s…e)`. */
function fnv1a(b: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5 | 0;
  for (let k = s; k < e; k++) h = Math.imul(h ^ b[k], 16777619);
  return h;
}

/**
 * Byte strings numbered 0, 1, 2… in the order they were first added, found again by value: a tool call
 * id is looked up straight from the read buffer, no string made of it (a Map from a million fresh
 * strings costs a microsecond per entry in a big heap). The table keeps each key's hash beside its
 * number (one cache line per probe); the keys' bytes lie end to end in one buffer.
 *
 * A string stands as bytes no other string has: its characters when all are ASCII (so an id reads the
 * same from JSON bytes without escapes as from its parsed string), else 0xFF and its UTF-16 code units
 * (no ASCII key has a 0xFF byte, and code units keep lone surrogates apart).
 */
export class ByteSlots {
  /** [hash, number + 1] pairs (0 = empty). */
  private table = new Int32Array(2 << 10);
  private bits = 10;
  private keys = Buffer.allocUnsafe(1 << 16);
  /** Key n is keys[starts[n]…starts[n + 1]). */
  private starts = new Int32Array(1024);
  private count = 0;
  /** A string key's bytes. */
  private scratch = Buffer.allocUnsafe(256);
  /** Whether the last `slot` call added its key. */
  added = false;

  get size(): number {
    return this.count;
  }

  /** The number of the key `b[s…e)`, added when it is new (`added` says which). */
  slotAt(b: Uint8Array, s: number, e: number): number {
    const h = fnv1a(b, s, e);
    const mask = (1 << this.bits) - 1;
    const t = this.table;
    let p = (h >>> 0) & mask;
    for (;;) {
      const v = t[2 * p + 1];
      if (v === 0) break;
      if (t[2 * p] === h && this.equals(v - 1, b, s, e)) {
        this.added = false;
        return v - 1;
      }
      p = (p + 1) & mask;
    }
    const n = this.count;
    this.store(b, s, e);
    t[2 * p] = h;
    t[2 * p + 1] = n + 1;
    this.added = true;
    if ((n + 1) * 2 > 1 << this.bits) this.grow();
    return n;
  }

  /** The number of the key `b[s…e)`, or -1. */
  findAt(b: Uint8Array, s: number, e: number): number {
    const h = fnv1a(b, s, e);
    const mask = (1 << this.bits) - 1;
    const t = this.table;
    for (let p = (h >>> 0) & mask; ; p = (p + 1) & mask) {
      const v = t[2 * p + 1];
      if (v === 0) return -1;
      if (t[2 * p] === h && this.equals(v - 1, b, s, e)) return v - 1;
    }
  }

  /** slotAt of the string `key`. */
  slot(key: string): number {
    return this.slotAt(this.scratch, 0, this.encode(key));
  }

  /** findAt of the string `key`. */
  find(key: string): number {
    return this.findAt(this.scratch, 0, this.encode(key));
  }

  /** Writes the bytes `key` stands as into `scratch`; their length. */
  private encode(key: string): number {
    let ascii = true;
    for (let k = 0; k < key.length && ascii; k++) ascii = key.charCodeAt(k) < 0x80;
    const length = ascii ? key.length : 1 + 2 * key.length;
    if (length > this.scratch.length) this.scratch = Buffer.allocUnsafe(2 * length);
    const out = this.scratch;
    if (ascii) return out.write(key, 0, 'latin1');
    out[0] = 0xff;
    for (let k = 0; k < key.length; k++) {
      const c = key.charCodeAt(k);
      out[1 + 2 * k] = c & 0xff;
      out[2 + 2 * k] = c >> 8;
    }
    return length;
  }

  private equals(n: number, b: Uint8Array, s: number, e: number): boolean {
    const from = this.starts[n];
    if (this.starts[n + 1] - from !== e - s) return false;
    const keys = this.keys;
    for (let k = 0; k < e - s; k++) if (keys[from + k] !== b[s + k]) return false;
    return true;
  }

  private store(b: Uint8Array, s: number, e: number): void {
    const n = this.count++;
    if (n + 2 > this.starts.length) {
      const starts = new Int32Array(2 * this.starts.length);
      starts.set(this.starts);
      this.starts = starts;
    }
    const at = this.starts[n];
    if (at + e - s > this.keys.length) {
      const keys = Buffer.allocUnsafe(Math.max(2 * this.keys.length, at + e - s));
      this.keys.copy(keys, 0, 0, at);
      this.keys = keys;
    }
    const keys = this.keys;
    for (let k = s; k < e; k++) keys[at + k - s] = b[k];
    this.starts[n + 1] = at + e - s;
  }

  private grow(): void {
    const old = this.table;
    this.bits++;
    const mask = (1 << this.bits) - 1;
    const t = (this.table = new Int32Array(2 << this.bits));
    for (let q = 0; q < old.length; q += 2) {
      if (old[q + 1] === 0) continue;
      let p = (old[q] >>> 0) & mask;
      while (t[2 * p + 1] !== 0) p = (p + 1) & mask;
      t[2 * p] = old[q];
      t[2 * p + 1] = old[q + 1];
    }
  }
}
