// The reader's JSON validator (src/core/jsonValid.ts) against JSON.parse, differentially: arbitrary JSON
// and the same text damaged, long strings with a stop byte anywhere, values inside a bigger buffer, and
// nesting far deeper than a recursive parser's stack.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isValidJson, scanValue } from '../../../src/core/scan/jsonValid.js';

const accepts = (text: string) => {
  try {
    JSON.parse(Buffer.from(text, 'utf8').toString('utf8'));
    return true;
  } catch {
    return false;
  }
};

const damage = fc.tuple(
  fc.nat(),
  fc.constantFrom(
    '',
    '"',
    '\\',
    '\\u12',
    '\\x',
    '{',
    '}',
    '[',
    ']',
    ',',
    ':',
    '\u0000',
    '\u001f',
    '\t',
    ' ',
    '-',
    '1e',
    '.5',
    '01',
    'tru',
    'nul',
    'é',
    '😀',
  ),
  fc.nat({ max: 3 }),
);

describe('JSON validator = JSON.parse', () => {
  it('arbitrary JSON and its damage: the same decision as JSON.parse', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(damage, { maxLength: 3 }), fc.boolean(), (v, hurts, pad) => {
        let text = JSON.stringify(v) ?? 'null';
        if (pad) text = ` ${text.replace(/,/g, ', ').replace(/:/g, ' : ')}\t`;
        for (const [at, s, cut] of hurts) {
          const k = at % (text.length + 1);
          text = text.slice(0, k) + s + text.slice(k + cut);
        }
        assert.equal(isValidJson(Buffer.from(text, 'utf8')), accepts(text), text.slice(0, 300));
      }),
      { numRuns: 20000 },
    );
  });

  it('long strings with a stop byte anywhere', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 200 }),
        fc.nat(),
        fc.constantFrom('"', '\\', '\u0000', '\u001f', '\\n', '\\u00e9', 'a', '\u007f', 'é'),
        (len, at, s) => {
          const body = 'x'.repeat(len);
          const k = at % (len + 1);
          const text = `"${body.slice(0, k)}${s}${body.slice(k)}"`;
          assert.equal(isValidJson(Buffer.from(text, 'utf8')), accepts(text), JSON.stringify(text));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('a value inside a bigger buffer ends where JSON.parse would end it', () => {
    const lines = [
      '{"a":[1,2,{"b":"c\\n"}]}',
      '{"a":tru}',
      '{"x":"\u0001"}',
      '[]',
      '{"a":1,}',
      JSON.stringify({ t: 'é😀'.repeat(40) }),
    ];
    const buf = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
    let s = 0;
    for (const l of lines) {
      const e = s + Buffer.byteLength(l);
      const r = scanValue(buf, s, e);
      assert.equal(r >= 0 && r === e, accepts(l), l);
      s = e + 1;
    }
  });

  it('nesting 70,000 deep is decided without recursion', () => {
    const deep = Buffer.from(`${'['.repeat(70_000)}${']'.repeat(70_000)}`);
    assert.equal(isValidJson(deep), true);
    assert.equal(isValidJson(deep.subarray(0, deep.length - 1)), false);
  });
});
