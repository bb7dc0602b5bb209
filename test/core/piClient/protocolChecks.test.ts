// The bridge's wire format on its own: request validation, record validation, line framing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LineSplitter } from '../../../src/core/piClient/framing.js';
import type { BridgeRecord } from '../../../src/core/piClient/protocol.js';
import { parseRecord, parseRequest } from '../../../src/core/piClient/protocolChecks.js';

const TOKEN = 'ab'.repeat(32);
const ok = (t: string) => t === TOKEN;
const line = (o: object) => JSON.stringify({ id: '1', token: TOKEN, ...o });

describe('parseRequest', () => {
  it('accepts every op with valid arguments', () => {
    for (const o of [
      { op: 'state' },
      { op: 'subscribe' },
      {
        op: 'goto',
        targetId: 'a1b2c3d4',
        summarize: true,
        customInstructions: 'x',
        replaceInstructions: false,
        label: 'l',
        waitMs: 100,
        key: 'k-1',
        ifLeaf: null,
      },
      {
        op: 'goto',
        targetId: 'a1b2c3d4',
        summary: { text: 'reviewed', details: { readFiles: ['a'], modifiedFiles: [] } },
        ifLeaf: 'a1b2c3d5',
      },
      { op: 'summaryPreview', targetId: 'a1b2c3d4' },
      { op: 'fork', entryId: 'a1b2c3d4', position: 'at' },
      { op: 'clone' },
      { op: 'label', entryId: 'a1b2c3d4' },
      { op: 'name', name: '' },
      { op: 'compact', customInstructions: 'focus' },
      { op: 'ask', targetId: 'a1b2c3d4', prompt: 'why?', waitMs: 0, key: 'k-2' },
      {
        op: 'ask',
        targetId: 'a1b2c3d4',
        prompt: 'why?',
        model: { provider: 'openrouter', id: 'anthropic/claude' },
        ifLeaf: 'a1b2c3d5',
      },
      { op: 'abortAsk', askId: 'Vx_1-z' },
    ]) {
      const r = parseRequest(line(o), ok);
      assert.ok(r.ok, `${JSON.stringify(o)}: ${!r.ok && r.error}`);
    }
  });

  it('refuses bad tokens and non-objects fatally, bad ops and arguments without closing', () => {
    const cases: [string, string, boolean][] = [
      [JSON.stringify({ id: '1', op: 'state' }), 'unauthorized', true],
      [JSON.stringify({ id: '1', token: TOKEN.toUpperCase(), op: 'state' }), 'unauthorized', true],
      ['{not json', 'malformed', true],
      ['"a string"', 'malformed', true],
      ['null', 'malformed', true],
      [JSON.stringify({ token: TOKEN, op: 'state' }), 'malformed', false],
      [JSON.stringify({ id: 'x'.repeat(65), token: TOKEN, op: 'state' }), 'malformed', false],
      [line({ op: 'exec' }), 'unknown-op', false],
      [line({ op: '__proto__' }), 'unknown-op', false],
      [line({ op: 'goto' }), 'bad-args', false],
      [line({ op: 'goto', targetId: 'a/b' }), 'bad-args', false],
      [line({ op: 'goto', targetId: '..' }), 'bad-args', false],
      [line({ op: 'goto', targetId: 'C:\\x' }), 'bad-args', false],
      [line({ op: 'goto', targetId: 'ok', waitMs: Infinity }), 'bad-args', false],
      [line({ op: 'goto', targetId: 'ok', key: 'has space' }), 'bad-args', false],
      [line({ op: 'goto', targetId: 'ok', summary: { text: 'x', details: { readFiles: [1] } } }), 'bad-args', false],
      [line({ op: 'fork', entryId: 'ok', position: 'after' }), 'bad-args', false],
      [line({ op: 'label', entryId: 'ok', label: 'x'.repeat(1001) }), 'bad-args', false],
      [line({ op: 'name', name: 7 }), 'bad-args', false],
      [line({ op: 'ask', targetId: 'ok' }), 'bad-args', false],
      [line({ op: 'ask', targetId: 'ok', prompt: ' \n ' }), 'bad-args', false],
      [line({ op: 'ask', targetId: 'ok', prompt: 'x'.repeat(200_001) }), 'bad-args', false],
      [line({ op: 'ask', targetId: '../x', prompt: 'q' }), 'bad-args', false],
      [line({ op: 'ask', targetId: 'ok', prompt: 'q', model: 'loop/m' }), 'bad-args', false],
      [line({ op: 'ask', targetId: 'ok', prompt: 'q', model: { provider: 'loop', id: '' } }), 'bad-args', false],
      [line({ op: 'ask', targetId: 'ok', prompt: 'q', model: { provider: 'lo\nop', id: 'm' } }), 'bad-args', false],
      [line({ op: 'ask', targetId: 'ok', prompt: 'q', waitMs: -1 }), 'bad-args', false],
      [line({ op: 'abortAsk' }), 'bad-args', false],
      [line({ op: 'abortAsk', askId: 'a b' }), 'bad-args', false],
    ];
    for (const [text, code, fatal] of cases) {
      const r = parseRequest(text, ok);
      assert.equal(r.ok, false, text);
      if (!r.ok) assert.deepEqual([r.code, r.fatal], [code, fatal], text);
    }
  });
});

describe('parseRecord', () => {
  const rec: BridgeRecord = {
    protocol: 1,
    pid: 123,
    piVersion: '1.6.0',
    sessionFile: '/s.jsonl',
    sessionId: 'id',
    endpoint: '/d/123-abcdef01.sock',
    token: TOKEN,
    startedAt: 1,
  };
  it('round-trips a record and refuses wrong shapes', () => {
    assert.deepEqual(parseRecord(JSON.stringify(rec)), rec);
    assert.deepEqual(parseRecord(JSON.stringify({ ...rec, extra: 1 })), rec);
    for (const bad of [
      { ...rec, protocol: 2 },
      { ...rec, pid: 0 },
      { ...rec, pid: 1.5 },
      { ...rec, token: 'short' },
      { ...rec, sessionFile: '' },
      { ...rec, endpoint: 5 },
    ]) {
      assert.equal(parseRecord(JSON.stringify(bad)), undefined, JSON.stringify(bad));
    }
    assert.equal(parseRecord('{'), undefined);
  });
});

describe('LineSplitter', () => {
  it('splits on \\n bytes only, across chunks, keeps U+2028 inside lines, drops a trailing \\r', () => {
    const got: string[] = [];
    const s = new LineSplitter(
      100,
      (l) => got.push(l),
      () => assert.fail('no overflow'),
    );
    const text = `{"a":"x\u2028y"}\r\n{"b":1}\n\n{"c":"ü`;
    const bytes = Buffer.from(text + '"}\n');
    for (let i = 0; i < bytes.length; i += 3) s.push(bytes.subarray(i, i + 3));
    assert.deepEqual(got, ['{"a":"x\u2028y"}', '{"b":1}', '{"c":"ü"}']);
  });

  it('reports a line over the cap once and delivers nothing after it', () => {
    const got: string[] = [];
    let overflows = 0;
    const s = new LineSplitter(
      10,
      (l) => got.push(l),
      () => overflows++,
    );
    s.push(Buffer.from('short\n0123456'));
    s.push(Buffer.from('789012'));
    s.push(Buffer.from('\nlater\n'));
    assert.deepEqual(got, ['short']);
    assert.equal(overflows, 1);
  });
});
