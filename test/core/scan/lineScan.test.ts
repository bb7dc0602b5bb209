// The line scanner (lineHead.ts scanLine, over jsonValid.ts and its WebAssembly build) where the removed
// JavaScript object scanner (jsonScan.ts) was tested: where a message object ends and whether it has
// non-null content, on the bytes, and the raw copy `pi-tree context` makes of a stored message
// (rawMessageOf) only when pi would read it unchanged. Each case runs in the validator's memory (a read
// buffer, where WebAssembly decides) and outside it (where JavaScript does).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { giveReadBuffer, takeReadBuffer, wasmMessageLine } from '../../../src/core/scan/jsonScanWasm.js';
import { scanValue } from '../../../src/core/scan/jsonValid.js';
import { rawMessageOf, scanLine } from '../../../src/core/scan/lineHead.js';
import { LineScan, ObjectKeys } from '../../../src/core/scan/scanResult.js';
import { Session } from '../../../src/core/session/session.js';
import { sessionText, tempFile } from '../../support/tmp.js';

const HEAD = '{"type":"message","id":"abcd1234","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":';
const line = (message: unknown, extra = '') => `${HEAD}${JSON.stringify(message)}${extra}}`;

/** `text`'s bytes in a read buffer (WebAssembly decides) and in an ordinary buffer (JavaScript does). */
function bothPlaces(text: string, check: (b: Buffer, where: string) => void): void {
  const n = Buffer.byteLength(text);
  check(Buffer.from(text), 'JavaScript');
  if (n > 4096) return;
  const rb = takeReadBuffer();
  try {
    rb.write(text, 7);
    check(rb.subarray(7, 7 + n), 'WebAssembly');
  } finally {
    giveReadBuffer(rb);
  }
}

const keys = new ObjectKeys();
const scan = new LineScan();

describe('the line scanner where the object scanner was', () => {
  it('finds the end of any JSON object the way JSON.parse reads it, and whether "content" is there and not null', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const text = JSON.stringify(obj);
        bothPlaces(`${text}  tail`, (b, where) => {
          assert.equal(scanValue(b, 0, b.length, keys), Buffer.byteLength(text), `${where}: ${text}`);
          if (keys.escaped) return; // (a key with an escape may spell "content": the caller parses)
          assert.equal(keys.hasContent, Object.hasOwn(obj, 'content'), `${where}: ${text}`);
          assert.equal(keys.content, Object.hasOwn(obj, 'content') && obj.content !== null, `${where}: ${text}`);
        });
      }),
      { numRuns: 500 },
    );
  });

  it('a message line: the message object is what JSON.stringify wrote, up to the closing brace; every torn prefix is refused', () => {
    const text = fc.string({
      unit: fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...'ab {}[]"\\:,') },
        fc.constantFrom('é', '😀', '\ud83d', '\u0000', '\n', '\u2028'),
      ),
      maxLength: 40,
    });
    const message = fc.record({
      role: fc.constantFrom('user', 'assistant', 'toolResult', 'bashExecution'),
      content: fc.oneof(
        fc.constant(null),
        text,
        fc.array(fc.record({ type: fc.constantFrom('text', 'toolCall'), text }), { maxLength: 3 }),
        fc.jsonValue(),
      ),
      nested: fc.jsonValue(),
    });
    fc.assert(
      fc.property(message, (m) => {
        const l = line(m);
        bothPlaces(l, (b, where) => {
          assert.ok(scanLine(b, 0, b.length, false, scan), `${where}: ${l}`);
          assert.equal(b.toString('utf8', scan.messageStart, b.length - 1), JSON.stringify(m), where);
          assert.equal(scan.message.content, m.content !== null, where);
          for (let cut = HEAD.length; cut < b.length; cut++) {
            assert.equal(scanLine(b, 0, cut, false, scan), false, `${where}: cut at ${cut} of ${l}`);
            // (a listing's check of a line, in WebAssembly only)
            assert.equal(wasmMessageLine(b, 0, cut) ?? -1, -1, `${where}: messageLine cut at ${cut} of ${l}`);
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it('refuses garbage, a torn line, a key after the message, a second role, and bad escapes', () => {
    const good = line({ role: 'user', content: 'a "quoted" } brace ] and \\ backslash {' });
    for (const bad of [
      good.slice(0, -1),
      good.slice(0, -2),
      `${good.slice(0, -1)},"extra":{}}`,
      good.replace('"role":"user"', '"role":"user","role":"assistant"'),
      good.replace('backslash', '\\qbackslash'),
      good.replace('backslash', '\\ud83'),
      `${good}x`,
      `${HEAD}{"role":"user","content":"unterminated}}`,
      `${HEAD}\u0000\u0001garbage`,
    ])
      bothPlaces(bad, (b, where) => assert.equal(scanLine(b, 0, b.length, false, scan), false, `${where}: ${bad}`));
    // escapes and a surrogate pair are text like any other
    const escaped = line({ role: 'user', content: 'tab\t nl\n quote" slash\\ u\u0001 pair 😀 lone \ud83d' });
    bothPlaces(escaped, (b, where) => assert.ok(scanLine(b, 0, b.length, false, scan), where));
  });

  it('a huge line (8 MiB of text): scanned to its end', () => {
    const m = { role: 'assistant', content: [{ type: 'text', text: `${'x'.repeat(8 << 20)}"}]\\` }] };
    const b = Buffer.from(line(m));
    assert.ok(scanLine(b, 0, b.length, false, scan));
    assert.equal(b.length - 1 - scan.messageStart, Buffer.byteLength(JSON.stringify(m)));
    assert.equal(scanLine(b, 0, b.length - 2, false, scan), false);
  });
});

describe('raw message bytes (no parse)', () => {
  /** rawMessageOf for each entry of a session of those lines, by id (the lines as a file holds them). */
  async function raws(entries: string[]): Promise<Map<string, string | undefined>> {
    const file = tempFile(`${sessionText([])}${entries.map((e) => `${e}\n`).join('')}`);
    const bytes = readFileSync(file);
    const s = await Session.open(file);
    const out = new Map<string, string | undefined>();
    for (let i = 0; i < s.index.count; i++) {
      const at = s.index.offsetOf(i);
      out.set(
        s.index.idOf(i),
        rawMessageOf(bytes.subarray(at, at + s.index.lengthOf(i)), s.index, i)?.toString('utf8'),
      );
    }
    return out;
  }
  const entry = (id: string, message: unknown, extra = '') =>
    `{"type":"message","id":"${id}","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":${JSON.stringify(message)}${extra}}`;

  it('copies the message object exactly when it is the last key', async () => {
    const m = {
      role: 'user',
      content: [{ type: 'text', text: 'a "quoted" } brace ] and \\ backslash { 😀 \u0001' }],
      timestamp: 1,
    };
    const nested = {
      role: 'assistant',
      content: [{ type: 'toolCall', id: 'x', name: 'edit', arguments: { a: { b: [1, { c: '}' }] } } }],
      usage: { input: 1 },
    };
    const r = await raws([entry('a0000001', m), entry('a0000002', nested)]);
    assert.equal(r.get('a0000001'), JSON.stringify(m));
    assert.equal(r.get('a0000002'), JSON.stringify(nested));
  });

  it('refuses what pi would change or what is not the last key', async () => {
    const bash = { role: 'bashExecution', command: 'ls', timestamp: 1 };
    const r = await raws([
      entry('b0000001', { role: 'user', content: null, timestamp: 1 }),
      entry('b0000002', { role: 'assistant', timestamp: 1 }),
      entry('b0000003', { role: 'system', content: null }),
      entry('b0000004', bash),
      entry('b0000005', { role: 'user', content: 'x' }, ',"extra":{}'),
      `{"type":"message","id":"b0000006","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"unterminated}}`,
    ]);
    assert.equal(r.get('b0000001'), undefined, 'null content is normalized by pi');
    assert.equal(r.get('b0000002'), undefined, 'missing content too');
    assert.equal(r.get('b0000003'), undefined);
    assert.equal(r.get('b0000004'), JSON.stringify(bash), 'other roles pass as stored');
    assert.ok(r.has('b0000005'), 'a line with a key after the message is an entry');
    assert.equal(r.get('b0000005'), undefined, 'but not copied');
    assert.equal(r.has('b0000006'), false, 'a line JSON.parse rejects is no entry');
  });
});
