// The reader's fast path (message lines read from their head on the raw bytes) against JSON.parse,
// differentially (issue #13 item 6): over generated pi message lines and the same lines damaged (cut,
// spliced, bad escapes, bad numbers, wrong nesting, control bytes, duplicate keys, odd timestamps)
// the fast path keeps exactly the lines the JSON.parse path keeps, with the same id, parent, type,
// role and time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isValidJson } from '../../../src/core/scan/jsonValid.js';
import { classifyLine } from '../../../src/core/index/reader.js';
import type { Diagnostic } from '../../../src/core/format/types.js';

/** What the JSON.parse path decides for a line: the record fields, or undefined (skipped). */
function reference(line: string) {
  let v: unknown;
  try {
    // the line as a file holds it: UTF-8 bytes, decoded as the reader decodes them (a lone surrogate
    // that a splice left becomes U+FFFD)
    v = JSON.parse(Buffer.from(line, 'utf8').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const e = v as Record<string, unknown>;
  if (e.type === 'session' || typeof e.type !== 'string' || typeof e.id !== 'string' || e.id === '') return undefined;
  const m = e.message as Record<string, unknown> | undefined;
  const t = typeof e.timestamp === 'string' ? Date.parse(e.timestamp) : NaN;
  return {
    id: e.id,
    parentId: e.parentId === null || typeof e.parentId === 'string' ? e.parentId : null,
    type: e.type,
    role:
      e.type === 'message' && m && typeof m === 'object' && !Array.isArray(m) && typeof m.role === 'string'
        ? m.role
        : undefined,
    time: Number.isNaN(t) ? 0 : t,
  };
}

function ours(line: string, prevId?: string) {
  const b = Buffer.from(line, 'utf8');
  const diags: Diagnostic[] = [];
  const r = classifyLine(b, 0, b.length, 1, 0, diags, prevId);
  if (!r) {
    assert.equal(diags.length, 1, `a skipped line is reported: ${line.slice(0, 200)}`);
    return undefined;
  }
  return { id: r.id, parentId: r.parentId, type: r.type, role: r.role, time: r.time };
}

const hex8 = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 8, maxLength: 8 });
const digits = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n });
const timestamp = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .date({ min: new Date(Date.UTC(1990, 0, 1)), max: new Date(Date.UTC(2100, 0, 1)), noInvalidDate: true })
      .map((d) => d.toISOString()),
  },
  // the shape of one, with any characters or out-of-range fields
  fc
    .tuple(digits(4), digits(2), digits(2), digits(2), digits(2), digits(2), digits(3))
    .map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`),
  fc.string({ unit: fc.constantFrom(...'0123456789-:TZ.ax +'), minLength: 24, maxLength: 24 }),
  fc.string({ maxLength: 30 }),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string({ unit: 'binary' }),
    // long texts: skipped four bytes at a time by the validator
    fc.string({
      unit: fc.oneof(
        { weight: 20, arbitrary: fc.constantFrom(...'abc xyz0189') },
        fc.constantFrom('"', '\\', '\n', '\u0000', 'é', '😀', '\u001f'),
      ),
      minLength: 16,
      maxLength: 300,
    }),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;
const role = fc.constantFrom('user', 'assistant', 'toolResult', 'system', 'bashExecution', 'custom', 'x_y');
const messageLine = fc
  .record({
    id: hex8,
    parentId: fc.oneof(fc.constant(null), hex8),
    timestamp,
    role,
    content: json,
    extra: fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 3 }),
  })
  .map(({ id, parentId, timestamp: ts, role: r, content, extra }) =>
    JSON.stringify({
      type: 'message',
      id,
      parentId,
      timestamp: ts,
      message: { role: r, content, ...extra, timestamp: 1 },
    }),
  );

/** Ways a line gets damaged. Each takes the line and random numbers. */
const damage = fc.oneof(
  fc.nat().map((k) => (l: string) => l.slice(0, k % l.length)), // cut
  fc.tuple(fc.nat(), fc.nat()).map(
    ([a, b]) =>
      (l: string) =>
        l.slice(0, a % l.length) + l.slice(b % l.length),
  ), // spliced with itself
  fc.tuple(fc.nat(), fc.constantFrom('\\x', '\\u12', '\\', '\\uZZZZ', '\\\\', '\\"')).map(
    ([k, e]) =>
      (l: string) =>
        l.slice(0, k % l.length) + e + l.slice(k % l.length),
  ), // escapes
  fc
    .tuple(fc.nat(), fc.constantFrom('01', '1.', '-', '1e', '.5', '+1', 'NaN', '1.2.3', '-0', '1E+2'))
    .map(([k, n]) => (l: string) => {
      const at = l.indexOf(':1', k % l.length);
      return at < 0 ? l : `${l.slice(0, at + 1)}${n}${l.slice(at + 2)}`;
    }), // numbers
  fc.tuple(fc.nat(), fc.constantFrom('{', '}', '[', ']', ',', ':', '"', ',}', '[}', '{]', '}}', '"a":1')).map(
    ([k, s]) =>
      (l: string) =>
        l.slice(0, k % l.length) + s + l.slice(k % l.length),
  ), // nesting and punctuation
  fc.tuple(fc.nat(), fc.constantFrom('\u0000', '\u0001', '\t', '\r', '\u001f', '\u007f', ' ')).map(
    ([k, s]) =>
      (l: string) =>
        l.slice(0, k % l.length) + s + l.slice(k % l.length),
  ), // control bytes and whitespace
  fc.constantFrom(
    (l: string) => l.replace(/\}\}$/, ',"role":"assistant"}}'), // duplicate role: JSON.parse keeps the last
    (l: string) => l.replace(/\}\}$/, '},"id":"zzzzzzzz"}'), // duplicate top-level key after message
    (l: string) => l.replace(/\}\}$/, '},"x":{"a":1}}'),
    (l: string) => l.replace('"message":{"role"', '"message":{"\\u0072ole":"system","role"'),
    (l: string) => `${l} `,
    (l: string) => `${l}x`,
    (l: string) => `${l}}`,
  ),
);

describe('fast path = JSON.parse path', () => {
  it('generated pi message lines: kept, with the same fields', () => {
    fc.assert(
      fc.property(messageLine, (line) => {
        assert.deepStrictEqual(ours(line), reference(line));
      }),
      { numRuns: 3000 },
    );
  });

  it('damaged lines: the same keep/skip decision and fields', () => {
    fc.assert(
      fc.property(messageLine, fc.array(damage, { minLength: 1, maxLength: 3 }), (line, hurts) => {
        const bad = hurts.reduce((l, h) => (l.length ? h(l) : l), line);
        if (bad.includes('\n')) return;
        assert.deepStrictEqual(ours(bad), reference(bad), bad.slice(0, 300));
      }),
      { numRuns: 20000 },
    );
  });

  it('examples: a line that begins like an entry and ends in }} but JSON.parse rejects is skipped and reported', () => {
    const good = JSON.stringify({
      type: 'message',
      id: 'abcd1234',
      parentId: null,
      timestamp: '2026-11-01T09:00:00.000Z',
      message: { role: 'user', content: 'hi', timestamp: 1 },
    });
    for (const bad of [
      good.replace('"hi"', '"h\u0000i"'),
      good.replace('"hi"', '"h\\qi"'),
      good.replace('"hi"', 'hi'),
      good.replace(':1}}', ':01}}'),
      good.replace('"content"', '"content" "x"'),
      good.replace('"hi",', '"hi",,'),
    ]) {
      assert.ok(bad.endsWith('}}'));
      assert.equal(ours(bad), undefined, bad);
    }
    assert.equal(
      ours(good.replace('2026-11-01T09:00:00.000Z', '2026-1a-01T09:00:00.000Z'))!.time,
      0,
      'a timestamp with a letter is no time, as Date.parse says',
    );
    assert.equal(ours(good.replace('2026-11-01T09:00:00.000Z', '2026-13-01T09:00:00.000Z'))!.time, 0);
    assert.equal(
      ours(good.replace('2026-11-01T09:00:00.000Z', '0050-01-01T00:00:00.000Z'))!.time,
      Date.parse('0050-01-01T00:00:00.000Z'),
    );
    assert.equal(
      ours(good.replace('"message":{"role":"user"', '"message":{"role":"user","role":"system"'))!.role,
      'system',
    );
  });

  it('isValidJson agrees with JSON.parse on arbitrary JSON and its damage', () => {
    fc.assert(
      fc.property(json, fc.array(damage, { maxLength: 2 }), (v, hurts) => {
        const text = hurts.reduce((l, h) => (l.length ? h(l) : l), JSON.stringify(v) ?? 'null');
        let ok = true;
        try {
          JSON.parse(Buffer.from(text, 'utf8').toString('utf8'));
        } catch {
          ok = false;
        }
        assert.equal(isValidJson(Buffer.from(text, 'utf8')), ok, text.slice(0, 300));
      }),
      { numRuns: 20000 },
    );
  });
});
