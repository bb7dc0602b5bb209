// The details pane's copy of an entry (truncateStrings, entryDetails): long strings cut as before, and
// nesting past SHOWN_DEPTH cut with a marker, so that an entry 10,000 or 200,000 levels deep reaches the
// pane (the message bridge and the webview write it with JSON.stringify) instead of a stack overflow.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Session } from '../../../src/core/session/session.js';
import { entryDetails, truncateStrings } from '../../../src/host/panels/entryDetails.js';
import { SHOWN_DEPTH, jsonDepth, jsonShown, nestedMarker } from '../../../src/shared/safeJson.js';
import { deepArray, deepSession } from '../../support/deepSession.js';
import { mulberry32 } from '../../support/randomSession.js';
import { tempFile } from '../../support/tmp.js';

/** truncateStrings as it was (recursive): the copy of a normal value must not change. */
function before(v: unknown, state: { cut: boolean }, key = ''): unknown {
  if (typeof v === 'string') {
    const limit = key === 'data' ? 4 * 1024 * 1024 : 64 * 1024;
    if (v.length > limit) {
      state.cut = true;
      return key === 'data' ? '' : `${v.slice(0, limit)}\n… [${(v.length - limit).toLocaleString()} more characters]`;
    }
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => before(x, state));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, k, {
        value: before(x, state, k),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return v;
}

function randomValue(rand: () => number, depth = 0): unknown {
  const r = rand();
  if (depth > 5 || r < 0.3) {
    const leaves = [null, true, 3, 'text', 'x'.repeat(70_000), 'é'.repeat(65_537), '', 0];
    return leaves[Math.floor(rand() * leaves.length)];
  }
  const n = Math.floor(rand() * 4);
  if (r < 0.6) return Array.from({ length: n }, () => randomValue(rand, depth + 1));
  const o: Record<string, unknown> = {};
  const keys = ['data', 'text', '__proto__', 'details', 'a'];
  for (let i = 0; i < n; i++)
    Object.defineProperty(o, keys[Math.floor(rand() * keys.length)], {
      value: randomValue(rand, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return o;
}

describe('the details pane’s copy of an entry', () => {
  it('normal values: the same copy as before (long strings and image data cut, "__proto__" a key)', () => {
    const rand = mulberry32(21);
    for (let i = 0; i < 500; i++) {
      const v = randomValue(rand);
      const a = { cut: false };
      const b = { cut: false };
      assert.equal(JSON.stringify(truncateStrings(v, a)), JSON.stringify(before(v, b)), `value ${i}`);
      assert.equal(a.cut, b.cut);
    }
    const proto = truncateStrings(JSON.parse('{"__proto__":{"x":1}}'), { cut: false }) as Record<string, unknown>;
    assert.deepEqual(Object.keys(proto), ['__proto__']);
    assert.equal(Object.getPrototypeOf(proto), Object.prototype);
    const img = { cut: false };
    assert.deepEqual(truncateStrings({ type: 'image', data: 'x'.repeat(5 * 1024 * 1024) }, img), {
      type: 'image',
      data: '',
    });
    assert.ok(img.cut);
  });

  for (const depth of [10_000, 200_000]) {
    it(`a value ${depth.toLocaleString('en-US')} levels deep is cut at SHOWN_DEPTH with the depth left`, () => {
      const v = JSON.parse(`{"keep":"x","deep":${deepArray(depth)}}`);
      const state = { cut: false };
      const copy = truncateStrings(v, state) as Record<string, unknown>;
      assert.ok(state.cut, 'said to be cut');
      assert.equal(copy.keep, 'x');
      assert.equal(jsonDepth(copy), SHOWN_DEPTH);
      let at: unknown = copy.deep;
      for (let d = 1; d < SHOWN_DEPTH - 1; d++) at = (at as unknown[])[0]; // the array at level SHOWN_DEPTH - 1 of the copy
      assert.deepEqual(at, [nestedMarker(depth - (SHOWN_DEPTH - 1))]);
      // what the message bridge and the webview do with it
      assert.ok(JSON.stringify(copy).length > 2 * SHOWN_DEPTH);
      assert.equal(jsonShown(copy, 2), JSON.stringify(copy, null, 2));
    });

    it(`entryDetails of each entry of a session nested ${depth.toLocaleString('en-US')} levels deep`, async () => {
      const { text, ids } = deepSession(depth);
      const s = await Session.open(tempFile(text));
      for (const [name, id] of Object.entries(ids)) {
        const d = await entryDetails(s, id);
        const sent = JSON.stringify(d); // the message bridge
        assert.equal(d.truncated, name !== 'u1' && name !== 'r2' && name !== 'u2', name);
        assert.ok(jsonDepth(d.entry) <= SHOWN_DEPTH, name);
        assert.ok(!d.truncated || sent.includes('more levels nested too deeply to show'), name);
        assert.equal(d.isLeaf, name === 'u2');
      }
    });
  }
});
