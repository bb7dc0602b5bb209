// The WebAssembly JSON validator (src/core/scan/wasm/jsonScan.wat), which decides for bytes in its memory
// (the read buffers): its committed bytes are the .wat's, and it decides as JSON.parse does and
// reports the same facts about an object's keys as the JavaScript validator, differentially.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  giveReadBuffer,
  MESSAGE_CONTENT,
  takeReadBuffer,
  wasmMessageLine,
  wasmScan,
} from '../../../src/core/scan/jsonScanWasm.js';
import { isValidJson, scanValue } from '../../../src/core/scan/jsonValid.js';
import { parseMessageHead, roleCodeOf, scanLine } from '../../../src/core/scan/lineHead.js';
import { LineScan, ObjectKeys, type RowValue } from '../../../src/core/scan/scanResult.js';
import { LAYOUT as L } from '../../../src/core/scan/wasm/layout.js';
import { jsonScanWasm } from '../../../src/core/scan/wasm/jsonScanBytes.js';
import { compileWat } from '../../../scripts/wasm.mjs';

const accepts = (text: string) => {
  try {
    JSON.parse(Buffer.from(text, 'utf8').toString('utf8'));
    return true;
  } catch {
    return false;
  }
};

// One read buffer in the validator's memory for the whole file (never given back).
const mem = takeReadBuffer();

/** `text` copied into the validator's memory at `at`, with other bytes around it. */
function inWasm(text: string, at = 3): Buffer {
  mem.fill(0x7b, 0, at); // '{' before, so a scan that strays outside its range would show
  const n = mem.write(text, at, 'utf8');
  mem.fill(0x22, at + n, at + n + 32); // '"' after
  return mem.subarray(at, at + n);
}

/** What the scans below find of an object's keys, and of a message line. */
const outerKeys = new ObjectKeys();
const lineScan = new LineScan();
const keysOf = () => ({
  role: Math.min(outerKeys.role, 3),
  type: Math.min(outerKeys.type, 3),
  content: outerKeys.content,
  escaped: outerKeys.escaped,
  hasContent: outerKeys.hasContent,
});

/** The JavaScript validator's answer and keys, on a copy outside the module's memory. */
function inJs(b: Buffer, keys: boolean): { r: number; keys?: ReturnType<typeof keysOf> } {
  const r = scanValue(Buffer.from(b), 0, b.length, keys ? outerKeys : undefined);
  return { r, keys: keys && r >= 0 ? keysOf() : undefined };
}

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
    '"role":',
    '"type":1,',
    '"content":null,',
  ),
  fc.nat({ max: 3 }),
);

/** Where the JSON value at `b[at]` ends (the shortest text from `at` that JSON.parse accepts). */
function skipJson(b: Buffer, at: number): number {
  for (let e = at + 1; e <= b.length; e++) {
    try {
      JSON.parse(b.toString('utf8', at, e));
      return e;
    } catch {
      // not yet
    }
  }
  throw new Error(`no JSON value at ${at}`);
}

describe('WebAssembly JSON validator', () => {
  it('its committed bytes are what the .wat compiles to (run `npm run wasm` after editing it or layout.ts)', async () => {
    const bytes = await compileWat(join(__dirname, '..', '..', '..', 'src', 'core', 'scan', 'wasm', 'jsonScan.wat'));
    assert.equal(bytes.toString('base64'), jsonScanWasm);
  });

  it('buffers lie in its memory: it, not JavaScript, decides for them', () => {
    assert.ok(mem, 'a buffer in the module memory');
    assert.equal(wasmScan(inWasm('{"a":[1]}'), 0, 9, undefined, false), 9);
    assert.equal(
      wasmScan(Buffer.from('{"a":[1]}'), 0, 9, undefined, false),
      undefined,
      'elsewhere: JavaScript decides',
    );
    // A value nested deeper than its stack is handed back to JavaScript, which decides the same.
    const deep = `${'['.repeat(70_000)}${']'.repeat(70_000)}`;
    assert.equal(wasmScan(inWasm(deep), 0, deep.length, undefined, false), undefined);
    assert.equal(isValidJson(inWasm(deep)), true);
    assert.equal(isValidJson(inWasm(deep.slice(0, -1))), false);
  });

  it('read buffers: four in its memory, reused once given back; more at once are ordinary buffers', () => {
    const inMemory = (b: Buffer) => wasmScan(b.fill(0x20, 0, 8).fill(0x31, 8, 9), 0, 9, undefined, false) !== undefined;
    const taken = [takeReadBuffer(), takeReadBuffer(), takeReadBuffer()]; // with `mem`, four
    assert.ok(taken.every(inMemory));
    const extra = takeReadBuffer(100);
    assert.ok(!inMemory(extra) && extra.length === 100, 'a fifth is an ordinary buffer of the size asked');
    giveReadBuffer(extra); // not the pool's: dropped
    giveReadBuffer(taken[1]);
    giveReadBuffer(taken[1]); // twice: still one buffer
    assert.equal(takeReadBuffer(), taken[1]);
    assert.ok(!inMemory(takeReadBuffer()));
    for (const b of taken) giveReadBuffer(b);
  });

  it('arbitrary JSON and its damage: the same decision as JSON.parse, the same keys as JavaScript', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.array(damage, { maxLength: 3 }),
        fc.boolean(),
        fc.nat({ max: 40 }),
        (v, hurts, pad, at) => {
          let text = JSON.stringify(v) ?? 'null';
          if (pad) text = ` ${text.replace(/,/g, ', ').replace(/:/g, ' : ')}\t`;
          for (const [k0, s, cut] of hurts) {
            const k = k0 % (text.length + 1);
            text = text.slice(0, k) + s + text.slice(k + cut);
          }
          const b = inWasm(text, at);
          assert.equal(isValidJson(b), accepts(text), text.slice(0, 300));
          const js = inJs(b, true);
          // scanFacts (the same scan, noting more) decides the same and finds the same keys
          assert.equal(scanValue(b, 0, b.length, outerKeys, 'facts'), js.r, text.slice(0, 300));
          if (js.r >= 0) assert.deepEqual(keysOf(), js.keys, text.slice(0, 300));
          const r = scanValue(b, 0, b.length, outerKeys);
          assert.equal(r, js.r, text.slice(0, 300));
          if (r >= 0) assert.deepEqual(keysOf(), js.keys, text.slice(0, 300));
        },
      ),
      { numRuns: 20000 },
    );
  });

  it('message objects as pi writes them, whole and cut anywhere', () => {
    const msg = {
      role: 'toolResult',
      toolCallId: 'toolu_1',
      content: [{ type: 'text', text: 'line one\nline "two"\t\\ é 😀 \u0001 '.repeat(20) }],
      details: { n: -1.5e-7, ok: true, none: null, list: [0, 10, 2e10] },
      isError: false,
      timestamp: 1790815212987,
    };
    const text = JSON.stringify(msg);
    for (let cut = 0; cut <= text.length; cut += 1) {
      const t = text.slice(0, cut);
      assert.equal(isValidJson(inWasm(t)), accepts(t), t);
    }
    const r = scanValue(inWasm(text), 0, Buffer.byteLength(text), outerKeys);
    assert.equal(r, Buffer.byteLength(text));
    assert.deepEqual(keysOf(), { role: 1, type: 0, content: true, escaped: false, hasContent: true });
  });

  it('long strings with a stop byte anywhere (the 16-byte steps and the bytes after them)', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 200 }),
        fc.nat(),
        fc.constantFrom('"', '\\', '\u0000', '\u001f', '\\n', '\\u00e9', '\\u00G9', 'a', '\u007f', 'é', '\u0080'),
        (len, at, s) => {
          const body = 'x'.repeat(len);
          const k = at % (len + 1);
          const text = `"${body.slice(0, k)}${s}${body.slice(k)}"`;
          assert.equal(isValidJson(inWasm(text, at % 16)), accepts(text), JSON.stringify(text));
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
      'false',
      'nul',
      '-0.5e+3',
      '-',
      '1.',
      JSON.stringify({ t: 'é😀'.repeat(40) }),
    ];
    const buf = inWasm(`${lines.join('\n')}\n`);
    let s = 0;
    for (const l of lines) {
      const e = s + Buffer.byteLength(l);
      const r = scanValue(buf, s, e);
      assert.equal(r >= 0 && r === e, accepts(l), l);
      s = e + 1;
    }
  });

  it('message lines: the same verdict as the JavaScript head reader, and as JSON.parse when it says yes', () => {
    const part = fc.constantFrom(
      '',
      'x',
      '"',
      '\\',
      '\u0000',
      '\t',
      'null',
      ',',
      '}',
      '{',
      ':',
      ' ',
      '\n',
      'é',
      '"role":"user",',
      '"content":null,',
      '"timestamp":12}',
    );
    const line = fc.record({
      id: fc.oneof(
        fc.constantFrom('a1b2c3d4', 'x', '', 'a"b', 'é', 'a b'),
        fc.stringMatching(/^[A-Za-z0-9_.:-]{1,140}$/),
      ),
      parent: fc.oneof(fc.constant(null), fc.constantFrom('p1', '', 'p"', 'é')),
      ts: fc.oneof(
        fc.constantFrom('2026-10-01T00:40:06.493Z', '', 'x\u0041', 'é', '1'.repeat(63), '1'.repeat(64), '1'.repeat(65)),
        fc.string({ maxLength: 70 }),
      ),
      role: fc.constantFrom(
        'user',
        'assistant',
        'toolResult',
        'bashExecution',
        'users',
        'User',
        'assistan',
        '',
        'x y',
        'r'.repeat(64),
        'r'.repeat(65),
        'r'.repeat(66),
      ),
      rest: fc.oneof(
        fc.constant(',"content":[{"type":"text","text":"hi"}],"timestamp":1790815206493'),
        fc.constant(',"timestamp":5'),
        fc.constant(',"content":null'),
        fc.constant(',"role":"user"'),
        fc.constant(',"r\\u006fle":"x","content":1'),
        fc.constant(''),
      ),
      tail: fc.constantFrom('}}', '}} ', '}}\r', '}}\t\t', '}} x', '}}}', '}', '},"type":"label"}'),
      hurts: fc.array(fc.tuple(fc.nat(), part, fc.nat({ max: 2 })), { maxLength: 2 }),
    });
    fc.assert(
      fc.property(line, fc.nat({ max: 40 }), (l, at) => {
        let text = `{"type":"message","id":${JSON.stringify(l.id)},"parentId":${JSON.stringify(l.parent)},"timestamp":${JSON.stringify(l.ts)},"message":{"role":${JSON.stringify(l.role)}${l.rest}${l.tail}`;
        for (const [k0, s, cut] of l.hurts) {
          const k = 30 + (k0 % Math.max(1, text.length - 29));
          text = text.slice(0, k) + s + text.slice(k + cut);
        }
        const b = inWasm(text, at);
        const w = wasmMessageLine(b, 0, b.length);
        // (it tells only user and assistant apart: the roles a row reads more of)
        const copy = Buffer.from(b);
        const role = scanLine(copy, 0, b.length, false, lineScan) ? Math.max(0, roleCodeOf(copy, lineScan)) : -1;
        const js = role < 0 ? -1 : (role <= 2 ? role : 0) | (lineScan.message.hasContent ? MESSAGE_CONTENT : 0);
        assert.equal(w, js, text);
        if (w !== undefined && w >= 0) {
          const v = JSON.parse(text) as { type: string; message: { role: string } };
          assert.equal(v.type, 'message');
          assert.equal(['', 'user', 'assistant'][w & 15] || v.message.role, v.message.role);
          assert.equal((w & MESSAGE_CONTENT) !== 0, 'content' in v.message);
        }
      }),
      { numRuns: 20000 },
    );
  });

  it('message heads: where the WebAssembly reader finds the fields is what the JavaScript one reads', () => {
    const part = fc.constantFrom('', 'x', '"', '\\', '\u0000', '\t', 'null', ',', ':', ' ', 'é', '.', '-');
    const line = fc.record({
      id: fc.oneof(fc.constantFrom('a1b2c3d4', 'x', '', 'a"b', 'é'), fc.stringMatching(/^[A-Za-z0-9_.:-]{1,140}$/)),
      parent: fc.oneof(
        fc.constant(null),
        fc.constantFrom('p1', '', 'a1b2c3d4', 'é'),
        fc.stringMatching(/^[A-Za-z0-9_.:-]{1,140}$/),
      ),
      ts: fc.oneof(
        fc.constantFrom(
          '2026-10-01T00:40:06.493Z',
          '2026-13-01T00:40:06.493Z',
          '0100-02-29T00:00:00.000Z',
          '9999-12-31T23:59:59.999Z',
          '',
          'é',
          '1'.repeat(64),
          '1'.repeat(65),
        ),
        fc.string({ maxLength: 70 }),
        // digits in and out of Date.parse's ranges (days past the month's end roll over, as in Date.UTC)
        fc
          .tuple(
            fc.nat({ max: 10999 }),
            fc.nat({ max: 14 }),
            fc.nat({ max: 33 }),
            fc.nat({ max: 25 }),
            fc.nat({ max: 61 }),
            fc.nat({ max: 61 }),
            fc.nat({ max: 999 }),
          )
          .map(
            ([y, mo, d, h, mi, s, ms]) =>
              `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}T${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}:${String(s).padStart(2, '0')}.${String(ms).padStart(3, '0')}Z`,
          ),
      ),
      role: fc.constantFrom(
        'user',
        'assistant',
        'toolResult',
        'bashExecution',
        'custom',
        'users',
        '',
        'r'.repeat(64),
        'r'.repeat(65),
      ),
      hurts: fc.array(fc.tuple(fc.nat(), part, fc.nat({ max: 2 })), { maxLength: 2 }),
    });
    fc.assert(
      fc.property(line, fc.nat({ max: 40 }), (l, at) => {
        let text = `{"type":"message","id":${JSON.stringify(l.id)},"parentId":${JSON.stringify(l.parent)},"timestamp":${JSON.stringify(l.ts)},"message":{"role":${JSON.stringify(l.role)},"content":"hi"}}`;
        for (const [k0, s, cut] of l.hurts) {
          const k = k0 % text.length;
          text = text.slice(0, k) + s + text.slice(k + cut);
        }
        const b = inWasm(text, at);
        assert.deepEqual(parseMessageHead(b, 0, b.length), parseMessageHead(Buffer.from(b), 0, b.length), text);
      }),
      { numRuns: 20000 },
    );
  });

  it('what stats reads of a message: where usage, provider and model start and the toolCall blocks, as JSON.parse sees them', () => {
    const json = (v: unknown) => fc.constant(JSON.stringify(v));
    const key = (k: string) =>
      fc.constantFrom(
        `"${k}"`,
        `"${k}"`,
        `"${k}"`,
        `"${k.slice(0, 1)}\\u00${k.charCodeAt(1).toString(16)}${k.slice(2)}"`,
        `"${k}x"`,
      );
    const typeValue = fc.oneof(
      json('toolCall'),
      json('text'),
      json('thinking'),
      fc.constant('"tool\\u0043all"'),
      json('toolCal'),
      json('toolCalls'),
      fc.constant('null'),
      fc.constant('1'),
      fc.constant('{"type":"toolCall"}'),
      fc.constant('["toolCall"]'),
    );
    const block = fc
      .array(
        fc.oneof(
          fc.tuple(key('type'), typeValue),
          fc.tuple(json('id'), json('c1')),
          fc.tuple(
            json('arguments'),
            fc.oneof(json({ type: 'toolCall' }), json({ a: [{ type: 'toolCall' }] }), json({})),
          ),
          fc.tuple(
            json('text'),
            fc.string({ maxLength: 8 }).map((t) => JSON.stringify(t)),
          ),
        ),
        { maxLength: 4 },
      )
      .map((kv) => `{${kv.map(([k, v]) => `${k}:${v}`).join(',')}}`);
    const content = fc.oneof(
      fc
        .array(fc.oneof(block, block, json('toolCall'), json([{ type: 'toolCall' }]), fc.constant('null')), {
          maxLength: 5,
        })
        .map((bs) => `[${bs.join(',')}]`),
      json('plain text'),
      fc.constant('null'),
    );
    const usage = fc.oneof(
      json({ input: 1, output: 2.5, cacheRead: 0, cacheWrite: 7, totalTokens: 10, cost: { input: 0.1, total: 0.25 } }),
      json({ input: 3 }),
      fc.constant('null'),
      fc.constant('{ "input" : 1e3 , "cost" : { } }'),
      json([1]),
    );
    const name = fc.oneof(
      json('anthropic'),
      json('claude-sonnet-4'),
      fc.constant('"a\\"b"'),
      fc.constant('null'),
      fc.constant('7'),
    );
    const member = fc.oneof(
      fc.tuple(key('content'), content),
      fc.tuple(key('usage'), usage),
      fc.tuple(key('provider'), name),
      fc.tuple(key('model'), name),
      fc.tuple(json('api'), json('anthropic-messages')),
      fc.tuple(json('stopReason'), json('toolUse')),
      fc.tuple(
        json('nested'),
        fc.oneof(json({ usage: { input: 9 }, content: [{ type: 'toolCall' }] }), json([[{ type: 'toolCall' }]])),
      ),
    );
    const message = fc
      .array(member, { maxLength: 7 })
      .map((ms) => `{"role":"assistant"${ms.map(([k, v]) => `,${k}:${v}`).join('')}}`);
    fc.assert(
      fc.property(message, fc.nat({ max: 40 }), (text, at) => {
        const b = inWasm(text, at);
        const r = scanValue(b, 0, b.length, outerKeys, 'facts');
        const v = JSON.parse(text) as Record<string, unknown>;
        assert.equal(r, b.length, text);
        const hasEscape = text.includes('\\u'); // (the generated escapes are all \\u ones, in keys and block types)
        if (!hasEscape) assert.ok(outerKeys.factsKnown, text); // only an escape in a key or a block's type makes it unsure
        if (!outerKeys.factsKnown) return;
        const valueAt = (i: number): unknown =>
          i < 0 ? undefined : JSON.parse(b.toString('utf8', i, scanValue(b, i, b.length)));
        const own = (k: string) => (Object.hasOwn(v, k) ? v[k] : undefined);
        assert.deepEqual(valueAt(outerKeys.usage), own('usage'), text);
        assert.deepEqual(valueAt(outerKeys.provider), own('provider'), text);
        assert.deepEqual(valueAt(outerKeys.model), own('model'), text);
        const calls = Array.isArray(v.content)
          ? v.content.filter(
              (c) => c !== null && typeof c === 'object' && (c as { type?: unknown }).type === 'toolCall',
            ).length
          : 0;
        assert.equal(outerKeys.toolCalls, calls, text);
      }),
      { numRuns: 20000 },
    );
  });

  it("what a tree row reads of a message: its values' [start, end) and the content blocks with their kinds, as JSON.parse sees them", () => {
    const json = (v: unknown) => fc.constant(JSON.stringify(v));
    const key = (k: string) =>
      fc.constantFrom(`"${k}"`, `"${k}"`, `"${k}"`, ` "${k}" `, `"${k}x"`, `"${k.slice(0, -1)}"`);
    const str = fc.oneof(
      fc.string({ maxLength: 12 }).map((t) => JSON.stringify(t)),
      fc.constant('"a\\"b\\u00e9"'),
      fc.constant('null'),
      fc.constant('7'),
      json({ x: [1] }),
      fc.constant(' "spaced" '),
      // longer than a vector, and the bytes a row cannot copy as they are: DEL, non-ASCII, an escape past the first 16
      fc.string({ minLength: 14, maxLength: 40 }).map((t) => JSON.stringify(t)),
      fc.constantFrom(
        '"x\\u007fy"',
        '"x\x7fy"',
        `"${'a'.repeat(20)}\x7f"`,
        `"${'b'.repeat(17)}é"`,
        '"\\u00e9t\\u00e9"',
        '"été"',
        `"${'c'.repeat(30)}\\n"`,
      ),
    );
    const typeValue = fc.oneof(
      json('text'),
      json('text'),
      json('toolCall'),
      json('thinking'),
      json('tex'),
      json('texts'),
      fc.constant('"t\\u0065xt"'),
      fc.constant('1'),
      json(['text']),
    );
    const block = fc
      .array(
        fc.oneof(
          fc.tuple(json('type'), typeValue),
          fc.tuple(json('text'), str),
          fc.tuple(json('id'), str),
          fc.tuple(
            json('arguments'),
            fc.oneof(json({ path: 'a.ts' }), json({ nested: [{ type: 'text', text: 'deep' }] }), json({})),
          ),
        ),
        { maxLength: 4 },
      )
      .map((kv) => `{${kv.map(([k, v]) => `${k}:${v}`).join(',')}}`);
    const content = fc.oneof(
      fc.array(block, { maxLength: 6 }).map((bs) => `[${bs.join(',')}]`),
      fc.array(block, { minLength: 60, maxLength: 70 }).map((bs) => `[ ${bs.join(' , ')} ]`),
      fc.array(fc.oneof(block, json('text'), fc.constant('null')), { maxLength: 4 }).map((bs) => `[${bs.join(',')}]`),
      str,
    );
    const member = fc.oneof(
      fc.tuple(key('content'), content),
      fc.tuple(key('stopReason'), str),
      fc.tuple(key('errorMessage'), str),
      fc.tuple(key('toolCallId'), str),
      fc.tuple(key('toolName'), str),
      fc.tuple(key('command'), str),
      fc.tuple(json('usage'), json({ input: 1, cost: { total: 0.5 } })),
      fc.tuple(json('nested'), json({ content: [{ type: 'text', text: 'no' }], stopReason: 'x', command: 'no' })),
    );
    const message = fc
      .array(member, { maxLength: 8 })
      .map((ms) => `{"role":"assistant"${ms.map(([k, v]) => `,${k}:${v}`).join('')}}`);
    const slots: [string, RowValue][] = [
      ['content', L.CONTENT],
      ['stopReason', L.STOP_REASON],
      ['errorMessage', L.ERROR_MESSAGE],
      ['toolCallId', L.TOOL_CALL_ID],
      ['toolName', L.TOOL_NAME],
      ['command', L.COMMAND],
    ];
    let covered = 0;
    fc.assert(
      fc.property(message, fc.nat({ max: 40 }), (text, at) => {
        const b = inWasm(text, at);
        // (stats' scan does not note them)
        assert.equal(scanValue(b, 0, b.length, outerKeys, 'facts'), b.length, text);
        assert.equal(outerKeys.rowsKnown, false);
        assert.equal(scanValue(b, 0, b.length, outerKeys, 'rows'), b.length, text);
        const v = JSON.parse(text) as Record<string, unknown>;
        const objects =
          Array.isArray(v.content) && v.content.every((c) => c !== null && typeof c === 'object' && !Array.isArray(c));
        // unsure only for a content array it cannot list (an element not an object, more than 64), or as stats is
        const listable = !Array.isArray(v.content) || (objects && v.content.length <= 64);
        assert.equal(outerKeys.rowsKnown, outerKeys.factsKnown && listable, text);
        if (!outerKeys.rowsKnown) return;
        covered++;
        const m = outerKeys;
        for (const [k, at] of slots) {
          const got =
            m.valueStart(at) < 0 ? undefined : JSON.parse(b.toString('utf8', m.valueStart(at), m.valueEnd(at)));
          assert.deepEqual(got, Object.hasOwn(v, k) ? v[k] : undefined, `${k} of ${text}`);
        }
        // (noted, else 0: as plainEnd answers)
        const orZero = (x: number) => (x < 0 ? 0 : x);
        // A plain string (printable ASCII, no escapes): where it ends, else 0. `at`: where it starts.
        const plainEnd = (value: unknown, at: number) =>
          typeof value === 'string' &&
          /^[\x20-\x7e]*$/.test(value) &&
          b.toString('latin1', at, at + value.length + 2) === JSON.stringify(value)
            ? at + value.length + 2
            : 0;
        assert.equal(orZero(m.contentPlainEnd()), plainEnd(v.content, m.valueStart(L.CONTENT)), `content of ${text}`);
        if (!Array.isArray(v.content)) return;
        assert.equal(m.blockCount(), v.content.length, text);
        v.content.forEach((c, k) => {
          const [s, e, kind] = [m.blockStart(k), m.blockEnd(k), m.blockKind(k)];
          assert.deepEqual(JSON.parse(b.toString('utf8', s, e)), c, text);
          const type = (c as { type?: unknown }).type;
          assert.equal(kind, type === 'text' ? L.KIND_TEXT : type === 'toolCall' ? L.KIND_TOOL_CALL : 0, text);
          // its (last) "text" value: where it starts, and where it ends when it is a plain string
          const t = c as { text?: unknown };
          assert.equal(m.textStart(k) >= 0, Object.hasOwn(t, 'text'), `text key of block ${k} of ${text}`);
          if (!Object.hasOwn(t, 'text')) return;
          const at = m.textStart(k);
          assert.deepEqual(JSON.parse(b.toString('utf8', at, skipJson(b, at))), t.text, text);
          assert.equal(orZero(m.textPlainEnd(k)), plainEnd(t.text, at), `text of block ${k} of ${text}`);
        });
      }),
      { numRuns: 20000 },
    );
    assert.ok(covered > 5000, `${covered} messages noted`);
  });

  it('the JavaScript validator leaves those facts unknown (the caller reads the message itself), and so does a scan not asked for them', () => {
    const text = '{"role":"assistant","content":[{"type":"toolCall"}],"usage":{"input":1}}';
    assert.equal(scanValue(Buffer.from(text), 0, text.length, outerKeys, 'facts'), text.length);
    assert.equal(outerKeys.factsKnown, false);
    // and the WebAssembly one notes them only when asked
    assert.equal(scanValue(inWasm(text), 0, text.length, outerKeys), text.length);
    assert.equal(outerKeys.factsKnown, false);
    assert.equal(scanValue(inWasm(text), 0, text.length, outerKeys, 'facts'), text.length);
    assert.deepEqual(
      [outerKeys.factsKnown, outerKeys.toolCalls, text.slice(outerKeys.usage, outerKeys.usage + 11)],
      [true, 1, '{"input":1}'],
    );
  });
});
