// jsonExact and jsonShown: JSON.stringify's text where it succeeds, and for values nested past the stack
// the same text written iteratively (jsonExact) or cut at SHOWN_DEPTH with a marker (jsonShown).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SHOWN_DEPTH, jsonDepth, jsonExact, jsonShown, nestedMarker } from '../../src/shared/safeJson.js';
import { deepArray, deepObject } from '../support/deepSession.js';
import { mulberry32 } from '../support/randomSession.js';

/** A random JSON-like value: every kind JSON.stringify treats apart (undefined, -0, NaN, lone surrogates, "__proto__"). */
function randomValue(rand: () => number, depth = 0): unknown {
  const r = rand();
  if (depth > 4 || r < 0.35) {
    const leaves = [
      null,
      true,
      false,
      0,
      -0,
      1.5e300,
      NaN,
      -Infinity,
      42,
      '',
      'a"b\\c\n\u2028',
      '\ud800x',
      'é😀',
      undefined,
    ];
    return leaves[Math.floor(rand() * leaves.length)];
  }
  const n = Math.floor(rand() * 4);
  if (r < 0.65) return Array.from({ length: n }, () => randomValue(rand, depth + 1));
  const o: Record<string, unknown> = {};
  const keys = ['a', 'b c', '__proto__', '1', 'toJSON', 'é'];
  for (let i = 0; i < n; i++)
    Object.defineProperty(o, keys[Math.floor(rand() * keys.length)], {
      value: randomValue(rand, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return o;
}

const DEEP = 10_000;
const overflows = (v: unknown) => assert.throws(() => JSON.stringify(v), RangeError);

describe('safeJson', () => {
  it('values JSON.stringify writes: exactly its text, with and without indent', () => {
    const rand = mulberry32(7);
    for (let i = 0; i < 2000; i++) {
      const v = randomValue(rand);
      assert.equal(jsonExact(v), JSON.stringify(v));
      assert.equal(jsonShown(v), JSON.stringify(v));
      assert.equal(jsonShown(v, 2), JSON.stringify(v, null, 2));
    }
    assert.equal(jsonExact(undefined), undefined);
  });

  it('jsonExact: the text JSON.stringify would write for a value past its stack (also beside random values)', () => {
    const rand = mulberry32(11);
    const deep = JSON.parse(deepArray(DEEP));
    overflows([deep]);
    for (let i = 0; i < 60; i++) {
      const v = randomValue(rand);
      const want = `[${deepArray(DEEP)},${JSON.stringify(v) ?? 'null'}]`;
      assert.ok(jsonExact([deep, v]) === want, `value ${i}`);
      const o = { v, deep };
      assert.ok(
        jsonExact(o) ===
          (v === undefined ? `{"deep":${deepArray(DEEP)}}` : `{"v":${JSON.stringify(v)},"deep":${deepArray(DEEP)}}`),
        `object ${i}`,
      );
    }
    for (const text of [deepArray(200_000), deepObject(200_000), `{"x":[1,${deepObject(50_000)},"y"]}`])
      assert.ok(jsonExact(JSON.parse(text)) === text);
  });

  it('jsonShown: cut at SHOWN_DEPTH with the depth left, still JSON, the rest as JSON.stringify writes it', () => {
    for (const depth of [DEEP, 200_000]) {
      const v = JSON.parse(`{"a":1,"deep":${deepArray(depth)},"b":"x"}`);
      overflows(v);
      const compact = jsonShown(v)!;
      const cutAt = SHOWN_DEPTH - 1; // levels of the array kept under the top object
      assert.equal(
        compact,
        `{"a":1,"deep":${'['.repeat(cutAt)}${JSON.stringify(nestedMarker(depth - cutAt))}${']'.repeat(cutAt)},"b":"x"}`,
      );
      assert.match(compact, new RegExp(`more levels nested too deeply to show`));
      assert.equal(jsonDepth(JSON.parse(compact)), SHOWN_DEPTH);
      const pretty = jsonShown(v, 2)!;
      assert.deepEqual(JSON.parse(pretty), JSON.parse(compact));
      assert.ok(pretty.startsWith('{\n  "a": 1,\n  "deep": [\n    [\n      [\n'));
      assert.ok(pretty.endsWith('\n    ]\n  ],\n  "b": "x"\n}'));
    }
    // a random value beside a deep one is written as JSON.stringify(…, null, 2) writes it
    const rand = mulberry32(3);
    const deep = JSON.parse(deepObject(DEEP));
    // (JSON.stringify with an indent takes ~0.1 s to overflow on 10,000 levels: its indents grow with the depth)
    for (let i = 0; i < 40; i++) {
      const v = randomValue(rand);
      const head = `[\n  ${(JSON.stringify(v, null, 2) ?? 'null').replace(/\n/g, '\n  ')},\n  {\n    "a": {`;
      assert.ok(jsonShown([v, deep], 2)!.startsWith(head), `value ${i}`);
    }
  });

  it('jsonShown: a cycle becomes a marker instead of an error; jsonExact still throws it', () => {
    const o: Record<string, unknown> = { a: 1 };
    o.self = o;
    assert.equal(jsonShown(o), '{"a":1,"self":"[cycle]"}');
    assert.throws(() => jsonExact({ o, deep: JSON.parse(deepArray(DEEP)) }), /circular/);
  });

  it('jsonDepth', () => {
    assert.equal(jsonDepth(1), 0);
    assert.equal(jsonDepth([]), 1);
    assert.equal(jsonDepth({ a: [1, { b: [] }] }), 4);
    assert.equal(jsonDepth(JSON.parse(deepArray(200_000))), 200_000);
    assert.equal(jsonDepth(JSON.parse(deepObject(200_000))), 200_000);
  });
});
