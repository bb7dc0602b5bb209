// The compare view's messages are validated like the tree's: sides and entry ids only, bounded pages.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { validateCompareMessage } from '../src/compareProtocol.js';

it('accepts the compare view’s messages and refuses anything else', () => {
  const ok = (m: unknown) => assert.equal(validateCompareMessage(m).ok, true, JSON.stringify(m));
  const bad = (m: unknown, why: RegExp) => {
    const r = validateCompareMessage(m);
    assert.equal(r.ok, false, JSON.stringify(m));
    if (!r.ok) assert.match(r.reason, why);
  };
  ok({ type: 'ready' });
  ok({ type: 'request', seq: 1, body: { kind: 'rows', from: 30, count: 40 } });
  ok({ type: 'request', seq: 2, body: { kind: 'entryText', side: 'a', id: 'abc12345' } });
  ok({ type: 'request', seq: 3, body: { kind: 'diffRow', row: 0 } });
  ok({ type: 'request', seq: 4, body: { kind: 'diffSides' } });
  ok({ type: 'request', seq: 5, body: { kind: 'reveal', side: 'b', id: 'abc12345' } });
  bad({ type: 'ready', x: 1 }, /unexpected/);
  bad({ type: 'request', seq: -1, body: { kind: 'diffSides' } }, /seq/);
  bad({ type: 'request', seq: 1, body: { kind: 'rows', from: 0, count: 501 } }, /count/);
  bad({ type: 'request', seq: 1, body: { kind: 'rows', from: 0, count: 0 } }, /count/);
  bad({ type: 'request', seq: 1, body: { kind: 'entryText', side: 'c', id: 'a' } }, /side/);
  bad({ type: 'request', seq: 1, body: { kind: 'reveal', side: 'a', id: '../../etc/passwd' } }, /id/);
  bad({ type: 'request', seq: 1, body: { kind: 'reveal', side: 'a', id: 'a', file: '/x' } }, /unexpected field "file"/);
  bad({ type: 'request', seq: 1, body: { kind: 'toString' } }, /unknown kind/);
  bad({ type: 'request', seq: 1, body: Object.assign(Object.create({ kind: 'diffSides' }), {}) }, /unknown kind/);
  bad({ type: 'compareView' }, /unknown message type/);
});
