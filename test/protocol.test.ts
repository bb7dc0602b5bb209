// The host validates everything the (untrusted) webview sends.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateWebviewMessage } from '../src/protocol.js';

describe('webview message validation', () => {
  const ok = (m: unknown) => assert.equal(validateWebviewMessage(m).ok, true, JSON.stringify(m));
  const bad = (m: unknown, why?: RegExp) => {
    const r = validateWebviewMessage(m);
    assert.equal(r.ok, false, JSON.stringify(m));
    if (why && !r.ok) assert.match(r.reason, why);
  };

  it('accepts the protocol', () => {
    ok({ type: 'ready' });
    ok({ type: 'selected', id: 'abcd1234' });
    ok({ type: 'selected', id: null });
    ok({ type: 'request', seq: 1, body: { kind: 'moveTo', id: 'abcd1234' } });
    ok({ type: 'request', seq: 2, body: { kind: 'moveTo', id: null } });
    ok({ type: 'request', seq: 3, body: { kind: 'setLabel', id: 'a', label: 'x' } });
    ok({ type: 'request', seq: 4, body: { kind: 'setLabel', id: 'a' } });
    ok({ type: 'request', seq: 5, body: { kind: 'moveWithSummary', id: 'a', summary: 's', previewId: 'p1' } });
    ok({ type: 'request', seq: 6, body: { kind: 'compactPreview' } });
  });

  it('rejects unknown types, unknown kinds, wrong shapes, extra fields and paths', () => {
    bad(null);
    bad('ready');
    bad({ type: 'eval', code: 'x' }, /unknown message type/);
    bad({ type: 'ready', extra: 1 }, /unexpected field/);
    bad({ type: 'request', seq: -1, body: { kind: 'moveTo', id: 'a' } }, /seq/);
    bad({ type: 'request', seq: 1.5, body: { kind: 'moveTo', id: 'a' } }, /seq/);
    bad({ type: 'request', seq: 1, body: { kind: 'deleteFile', id: 'a' } }, /unknown request kind/);
    bad({ type: 'request', seq: 1, body: { kind: 'moveTo' } }, /id/);
    bad({ type: 'request', seq: 1, body: { kind: 'moveTo', id: '../../etc/passwd' } }, /id/);
    bad({ type: 'request', seq: 1, body: { kind: 'fork', id: '/home/u/.pi/agent/sessions/x.jsonl' } }, /id/);
    bad({ type: 'request', seq: 1, body: { kind: 'fork', id: 'a', path: '/tmp/x' } }, /unexpected field "path"/);
    bad({ type: 'request', seq: 1, body: { kind: 'setLabel', id: 'a', label: 5 } }, /label/);
    bad({ type: 'request', seq: 1, body: { kind: 'rename', name: 'x'.repeat(10_000) } }, /name/);
    bad({ type: 'request', seq: 1, body: { kind: 'moveWithSummary', id: 'a', summary: 'x'.repeat(2_000_000) } }, /summary/);
    bad({ type: 'request', seq: 1, body: { kind: 'getEntry', id: 'a'.repeat(200) } }, /id/);
    bad({ type: 'request', seq: 1, body: { kind: '__proto__' } });
    bad({ type: 'request', seq: 1, body: Object.assign(Object.create({ kind: 'moveTo' }), { id: 'a' }) });
  });
});
