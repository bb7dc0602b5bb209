// The id tables of src/core/idKeys.ts against Map, on any keys: colliding hashes, growth, lookups of
// strings never added.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { StrSlots, U32Map } from '../../src/core/idKeys.js';

describe('id tables', () => {
  it('StrSlots numbers strings in the order first added and finds them again, as a Map would', () => {
    // few distinct characters: many equal strings; long runs: growth past several sizes
    const key = fc.oneof(fc.string({ maxLength: 3, unit: fc.constantFrom('a', 'b', '\u00e9', '\ud83d') }), fc.string({ maxLength: 30 }));
    fc.assert(
      fc.property(fc.array(key, { maxLength: 3000 }), fc.array(key, { maxLength: 50 }), (adds, probes) => {
        const t = new StrSlots();
        const m = new Map<string, number>();
        for (const s of adds) {
          const n = t.slot(s);
          assert.equal(t.added, !m.has(s), s);
          if (!m.has(s)) m.set(s, m.size);
          assert.equal(n, m.get(s));
        }
        assert.equal(t.size, m.size);
        for (const s of [...adds, ...probes]) assert.equal(t.find(s), m.get(s) ?? -1, s);
      }),
      { numRuns: 300 },
    );
  });

  it('StrSlots: strings whose hashes collide are told apart', () => {
    const fnv = (x: string) => {
      let h = 0x811c9dc5 | 0;
      for (let k = 0; k < x.length; k++) h = Math.imul(h ^ x.charCodeAt(k), 16777619);
      return h;
    };
    // two tool call ids with the same 32-bit FNV-1a hash (found by a search)
    const [a, b] = ['toolu_oq2ptu2luq8j', 'toolu_1omuk4810op8s1'];
    assert.equal(fnv(a), fnv(b));
    const t = new StrSlots();
    assert.deepEqual([t.slot(a), t.added, t.find(b), t.slot(b), t.added, t.find(a), t.find(b), t.slot(a), t.added], [0, true, -1, 1, true, 0, 1, 0, false]);
    // and many more keys around them, through several growths
    const keys = Array.from({ length: 100_000 }, (_, k) => `toolu_${k.toString(36)}`);
    keys.forEach((x, k) => assert.equal(t.slot(x), k + 2));
    keys.forEach((x, k) => assert.equal(t.find(x), k + 2));
    assert.deepEqual([t.find(a), t.find(b), t.find('toolu_')], [0, 1, -1]);
  });

  it('U32Map agrees with a Map on uint32 keys', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.oneof(fc.nat({ max: 50 }), fc.integer({ min: 0, max: 0xffffffff })), fc.nat()), { maxLength: 3000 }), (ops) => {
        const t = new U32Map(4);
        const m = new Map<number, number>();
        for (const [k, v] of ops) {
          assert.equal(t.set(k, v), m.get(k) ?? -1);
          m.set(k, v);
        }
        for (const [k] of ops) assert.equal(t.get(k), m.get(k));
        assert.equal(t.size, m.size);
      }),
      { numRuns: 200 },
    );
  });
});
