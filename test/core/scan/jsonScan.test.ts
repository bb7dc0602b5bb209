import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { rawMessage, scanObject } from '../../../src/core/scan/jsonScan.js';
import { parseMessageHead } from '../../../src/core/scan/lineHead.js';

const line = (message: unknown, extra = '') => Buffer.from(`{"type":"message","id":"abcd1234","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":${JSON.stringify(message)}${extra}}`);
const raw = (b: Buffer) => {
  const h = parseMessageHead(b)!;
  return rawMessage(b, h.messageStart, h.role)?.toString('utf8');
};

describe('raw message bytes (no parse)', () => {
  it('copies the message object exactly when it is the last key', () => {
    const m = { role: 'user', content: [{ type: 'text', text: 'a "quoted" } brace ] and \\ backslash {' }], timestamp: 1 };
    assert.equal(raw(line(m)), JSON.stringify(m));
    const nested = { role: 'assistant', content: [{ type: 'toolCall', id: 'x', name: 'edit', arguments: { a: { b: [1, { c: '}' }] } } }], usage: { input: 1 } };
    assert.equal(raw(line(nested)), JSON.stringify(nested));
  });

  it('refuses what pi would change or what is not the last key', () => {
    assert.equal(raw(line({ role: 'user', content: null, timestamp: 1 })), undefined, 'null content is normalized by pi');
    assert.equal(raw(line({ role: 'assistant', timestamp: 1 })), undefined, 'missing content too');
    assert.equal(raw(line({ role: 'system', content: null })), undefined);
    assert.equal(raw(line({ role: 'bashExecution', command: 'ls', timestamp: 1 })), JSON.stringify({ role: 'bashExecution', command: 'ls', timestamp: 1 }), 'other roles pass as stored');
    assert.equal(raw(line({ role: 'user', content: 'x' }, ',"extra":{}')), undefined, 'a key after the message');
    assert.equal(raw(Buffer.from('{"type":"message","id":"abcd1234","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"unterminated}}')), undefined);
  });

  it('finds the end of any JSON object the way JSON.parse reads it', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const text = JSON.stringify(obj);
        const b = Buffer.from(`${text}  tail`);
        const r = scanObject(b, 0, b.length);
        assert.equal(r?.end, Buffer.byteLength(text));
        assert.equal(r?.hasContent, 'content' in obj && obj.content !== null);
      }),
      { numRuns: 500 },
    );
  });
});
