// The id tables of src/core/idKeys.ts against Map, on any keys: colliding hashes, growth, lookups of
// strings never added.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ByteSlots, U32Map } from '../../../src/core/index/idKeys.js';

describe('id tables', () => {
  it('ByteSlots numbers keys in the order first added and finds them again, as a Map of strings would, by string or by bytes alike', () => {
    // few distinct code units: many equal keys, and keys whose bytes a careless encoding would confuse
    // ('\u00ff' vs 0xFF bytes, a code unit's bytes read as two ASCII characters, lone surrogates);
    // long runs: growth past several sizes
    const units = ['a', 'b', '\u00e9', '\u00ff', '\uff00', '\u4100', '\u0000', 'A', '\ud83d', '\ude00', '\u007f'];
    const key = fc.oneof(
      fc.string({ maxLength: 3, unit: fc.constantFrom(...units) }),
      fc.string({ maxLength: 30 }),
      fc.string({ maxLength: 300, unit: 'binary-ascii' }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(key, fc.boolean(), fc.nat(5)), { maxLength: 3000 }),
        fc.array(key, { maxLength: 50 }),
        (adds, probes) => {
          const t = new ByteSlots();
          const m = new Map<string, number>();
          // an ASCII key by its bytes (as from a read buffer, somewhere in it), any key by its string
          const asBytes = (s: string, at: number) =>
            Array.from(s).every((c) => c.charCodeAt(0) < 0x80)
              ? Buffer.concat([Buffer.alloc(at, 0xff), Buffer.from(s, 'latin1'), Buffer.alloc(2, 0x22)])
              : undefined;
          for (const [s, byBytes, at] of adds) {
            const b = byBytes ? asBytes(s, at) : undefined;
            const n = b ? t.slotAt(b, at, at + s.length) : t.slot(s);
            assert.equal(t.added, !m.has(s), s);
            if (!m.has(s)) m.set(s, m.size);
            assert.equal(n, m.get(s));
          }
          assert.equal(t.size, m.size);
          for (const s of [...adds.map(([s]) => s), ...probes]) {
            assert.equal(t.find(s), m.get(s) ?? -1, s);
            const b = asBytes(s, 3);
            if (b) assert.equal(t.findAt(b, 3, 3 + s.length), m.get(s) ?? -1, s);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('ByteSlots: an ASCII key is its bytes, any other key none an ASCII key has', () => {
    const t = new ByteSlots();
    assert.deepEqual(
      [t.slot('toolu_1'), t.slot('\u00ff\u00ff'), t.slot('\ud800'), t.slot('\ud800\udc00'), t.slot('\u3100')],
      [0, 1, 2, 3, 4],
    );
    const b = Buffer.from('x"toolu_1"\u00ff\u00ff\u00ff\u00ff\u00ffA1', 'latin1');
    assert.equal(t.findAt(b, 2, 9), 0);
    // 0xFF 0xFF: no string's key (two 'ÿ' are 0xFF then their code units); 0xFF 0x00 0x31 is '\u3100'
    assert.deepEqual(
      [t.findAt(b, 10, 12), t.findAt(b, 10, 15), t.findAt(Buffer.from([0xff, 0x00, 0x31]), 0, 3)],
      [-1, -1, 4],
    );
    assert.equal(t.findAt(Buffer.from([0xff, 0xff, 0x00, 0xff, 0x00]), 0, 5), 1);
    assert.deepEqual([t.find('\udc00'), t.find('\ud800'), t.find('toolu_1 '), t.find('toolu_')], [-1, 2, -1, -1]);
  });

  it('ByteSlots: keys whose hashes collide are told apart', () => {
    const fnv = (x: string) => {
      let h = 0x811c9dc5 | 0;
      for (let k = 0; k < x.length; k++) h = Math.imul(h ^ x.charCodeAt(k), 16777619);
      return h;
    };
    // two tool call ids with the same 32-bit FNV-1a hash (found by a search)
    const [a, b] = ['toolu_oq2ptu2luq8j', 'toolu_1omuk4810op8s1'];
    assert.equal(fnv(a), fnv(b));
    const t = new ByteSlots();
    const bytesOf = (x: string) => Buffer.from(x, 'latin1');
    assert.deepEqual(
      [
        t.slot(a),
        t.added,
        t.findAt(bytesOf(b), 0, b.length),
        t.slotAt(bytesOf(b), 0, b.length),
        t.added,
        t.find(a),
        t.find(b),
        t.slot(a),
        t.added,
      ],
      [0, true, -1, 1, true, 0, 1, 0, false],
    );
    // and many more keys around them, through several growths (the keys' bytes too)
    const keys = Array.from({ length: 100_000 }, (_, k) => `toolu_${k.toString(36)}`);
    keys.forEach((x, k) => assert.equal(k % 2 ? t.slot(x) : t.slotAt(bytesOf(x), 0, x.length), k + 2));
    keys.forEach((x, k) => assert.equal(t.find(x), k + 2));
    assert.deepEqual([t.find(a), t.find(b), t.find('toolu_')], [0, 1, -1]);
    // a key with the hash of a longer one that starts with it (found by meeting in the middle)
    const [short, long] = ['toolu_01', 'toolu_01dQy!c&'];
    assert.equal(fnv(short), fnv(long));
    const u = new ByteSlots();
    assert.deepEqual(
      [
        u.slot(long),
        u.find(short),
        u.findAt(bytesOf(long), 0, short.length),
        u.slot(short),
        u.find(long),
        u.find(short),
      ],
      [0, -1, -1, 1, 0, 1],
    );
  });

  it('U32Map agrees with a Map on uint32 keys', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.oneof(fc.nat({ max: 50 }), fc.integer({ min: 0, max: 0xffffffff })), fc.nat()), {
          maxLength: 3000,
        }),
        (ops) => {
          const t = new U32Map(4);
          const m = new Map<number, number>();
          for (const [k, v] of ops) {
            assert.equal(t.set(k, v), m.get(k) ?? -1);
            m.set(k, v);
          }
          for (const [k] of ops) assert.equal(t.get(k), m.get(k));
          assert.equal(t.size, m.size);
        },
      ),
      { numRuns: 200 },
    );
  });
});
