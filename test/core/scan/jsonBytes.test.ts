// objectValues finds the values of an object's keys as JSON.parse reads them, whatever its strings hold:
// quotes and runs of backslashes anywhere in long strings (passed over by native search) or short ones.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { keyList, objectValues, valueIn } from '../../../src/core/scan/jsonBytes.js';

const KEYS = ['a', 'b', 'c'];
const NAMES = keyList(...KEYS);

it('objectValues: every key’s value as JSON.parse gives it, strings of any length with quotes and backslashes', () => {
  // strings made mostly of the characters that end or escape one, at every length around the hand-read 32
  const unit = fc.constantFrom('"', '\\', 'x', 'é', '\n', '}', ']', ',');
  const tricky = fc.oneof(fc.string({ unit, maxLength: 8 }), fc.string({ unit, minLength: 20, maxLength: 200 }));
  const value = fc.oneof(
    tricky,
    fc.array(tricky, { maxLength: 3 }),
    fc.dictionary(tricky, tricky, { maxKeys: 3 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  );
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.constantFrom(...KEYS, 'other', 'x"y'), value), { maxLength: 6 }),
      fc.constantFrom('', ' ', '\t'),
      (pairs, gap) => {
        const text = `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${gap}${JSON.stringify(v)}`).join(`,${gap}`)}}`;
        const b = Buffer.from(text);
        const at = new Int32Array(2 * KEYS.length);
        // a key with an escape could spell one of the names: the caller parses instead
        if (pairs.some(([k]) => k === 'x"y')) return assert.equal(objectValues(b, 0, b.length, NAMES, at), -1);
        assert.equal(objectValues(b, 0, b.length, NAMES, at), b.length);
        const parsed = JSON.parse(text) as Record<string, unknown>;
        KEYS.forEach((k, j) => assert.deepStrictEqual(valueIn(b, at, j), parsed[k], `${k} in ${text}`));
      },
    ),
    { numRuns: 2000 },
  );
});
