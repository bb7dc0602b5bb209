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

const DIGITS = '0123456789abcdef';

/** The id a hex key stands for. */
export function hexId(key: number): string {
  let s = '';
  for (let shift = 28; shift >= 0; shift -= 4) s += DIGITS[(key >>> shift) & 15];
  return s;
}

/**
 * uint32 → int32 (≥ 0) hash table, open addressing with linear probing; values are record indexes, -1
 * means "absent". Fibonacci hashing spreads ids that share their low bits.
 */
export class U32Map {
  private keys: Uint32Array;
  private vals: Int32Array;
  private bits: number;
  private count = 0;

  constructor(expected = 1024) {
    this.bits = Math.max(10, Math.ceil(Math.log2(expected * 2)));
    this.keys = new Uint32Array(1 << this.bits);
    this.vals = new Int32Array(1 << this.bits).fill(-1);
  }

  get size(): number {
    return this.count;
  }

  get(key: number): number {
    const mask = (1 << this.bits) - 1;
    let h = Math.imul(key, 0x9e3779b1) >>> (32 - this.bits);
    for (;;) {
      const v = this.vals[h];
      if (v < 0 || this.keys[h] === key) return v;
      h = (h + 1) & mask;
    }
  }

  /** Sets `key` to `val` (≥ 0); returns the value it replaced, or -1. */
  set(key: number, val: number): number {
    if ((this.count + 1) * 2 > 1 << this.bits) this.grow();
    const mask = (1 << this.bits) - 1;
    let h = Math.imul(key, 0x9e3779b1) >>> (32 - this.bits);
    for (;;) {
      const v = this.vals[h];
      if (v < 0) {
        this.keys[h] = key;
        this.vals[h] = val;
        this.count++;
        return -1;
      }
      if (this.keys[h] === key) {
        this.vals[h] = val;
        return v;
      }
      h = (h + 1) & mask;
    }
  }

  private grow(): void {
    const { keys, vals } = this;
    this.bits++;
    this.keys = new Uint32Array(1 << this.bits);
    this.vals = new Int32Array(1 << this.bits).fill(-1);
    this.count = 0;
    for (let h = 0; h < vals.length; h++) if (vals[h] >= 0) this.set(keys[h], vals[h]);
  }
}
