// The WebAssembly validator (src/core/wasm/jsonValid.wat) against JSON.parse and the JS validator,
// differentially: arbitrary JSON and the same text damaged, whole lines and lines inside a chunk the
// reader copied in once, deep nesting handed back to the JS validator; and the generated module is
// the one its text assembles to.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isValidJson, outerKeys, scanValue } from '../../src/core/jsonValid.js';
import { WAT_HASH } from '../../src/core/wasm/jsonValid.wasm.js';
import { dropChunk, useChunk, wasmKeys, wasmScanValue } from '../../src/core/wasmValid.js';

const accepts = (text: string) => {
  try {
    JSON.parse(Buffer.from(text, 'utf8').toString('utf8'));
    return true;
  } catch {
    return false;
  }
};

/** Whether the wasm validator takes `b[s…e)` as one whole value (leading/trailing whitespace allowed). */
function wasmValid(b: Buffer, s = 0, e = b.length): boolean | undefined {
  const r = wasmScanValue(b, s, e, false);
  if (r === undefined) return undefined;
  if (r < 0) return false;
  let k = r;
  while (k < e && (b[k] === 0x20 || b[k] === 0x09 || b[k] === 0x0a || b[k] === 0x0d)) k++;
  return k === e;
}

const damage = fc.tuple(
  fc.nat(),
  fc.constantFrom('', '"', '\\', '\\u12', '\\x', '{', '}', '[', ']', ',', ':', '\u0000', '\u001f', '\t', ' ', '-', '1e', '.5', '01', 'tru', 'nul', 'é', '😀'),
  fc.nat({ max: 3 }),
);

describe('WebAssembly validator = JSON.parse', () => {
  it('the generated module is assembled from the current text', () => {
    const text = readFileSync(join(__dirname, '../../src/core/wasm/jsonValid.wat'), 'utf8');
    assert.equal(WAT_HASH, createHash('sha256').update(text).digest('hex').slice(0, 16), 'run node scripts/build-wasm.mjs');
  });

  it('arbitrary JSON and its damage: the same decision as JSON.parse and the JS validator', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(damage, { maxLength: 3 }), fc.boolean(), (v, hurts, pad) => {
        let text = JSON.stringify(v) ?? 'null';
        if (pad) text = ` ${text.replace(/,/g, ', ').replace(/:/g, ' : ')}\t`;
        for (const [at, s, cut] of hurts) {
          const k = at % (text.length + 1);
          text = text.slice(0, k) + s + text.slice(k + cut);
        }
        const b = Buffer.from(text, 'utf8');
        const expected = accepts(text);
        assert.equal(wasmValid(b), expected, text.slice(0, 300));
        assert.equal(isValidJson(b), expected, text.slice(0, 300));
      }),
      { numRuns: 20000 },
    );
  });

  it('long strings (the SIMD loop) with a stop byte anywhere', () => {
    fc.assert(
      fc.property(fc.nat({ max: 200 }), fc.nat(), fc.constantFrom('"', '\\', '\u0000', '\u001f', '\\n', '\\u00e9', 'a', '\u007f', 'é'), (len, at, s) => {
        const body = 'x'.repeat(len);
        const k = at % (len + 1);
        const text = `"${body.slice(0, k)}${s}${body.slice(k)}"`;
        assert.equal(wasmValid(Buffer.from(text, 'utf8')), accepts(text), JSON.stringify(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('keys of the outermost object: role count and content as the JS validator reads them', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('role', 'content', 'r\\u006fle', 'x', 'cont', 'contents'), fc.jsonValue(), { maxKeys: 5 }), (o) => {
        const text = `{${Object.entries(o)
          .map(([k, v]) => `"${k}":${JSON.stringify(v) ?? 'null'}`)
          .join(',')}}`;
        const b = Buffer.from(text, 'utf8');
        const w = wasmScanValue(b, 0, b.length, true);
        const j = scanValue(b, 0, b.length, true);
        assert.equal(w, j);
        assert.deepEqual({ role: wasmKeys.role, content: wasmKeys.content }, { role: outerKeys.role, content: outerKeys.content }, text);
      }),
      { numRuns: 3000 },
    );
  });

  it('lines inside a chunk copied in once are validated in place, like single lines', () => {
    const lines = ['{"a":[1,2,{"b":"c\\n"}]}', '{"a":tru}', '{"x":"\u0001"}', '[]', '{"a":1,}', JSON.stringify({ t: 'é😀'.repeat(40) })];
    const chunk = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
    useChunk(chunk, 0, chunk.length);
    let s = 0;
    for (const l of lines) {
      const e = s + Buffer.byteLength(l);
      assert.equal(wasmValid(chunk, s, e), accepts(l), l);
      s = e + 1;
    }
    dropChunk();
  });

  it('nesting deeper than its stack is handed to the JS validator', () => {
    const deep = Buffer.from(`${'['.repeat(70_000)}${']'.repeat(70_000)}`);
    assert.equal(wasmScanValue(deep, 0, deep.length, false), undefined);
    assert.equal(isValidJson(deep), true);
  });
});
