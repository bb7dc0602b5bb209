// The variants view's messages are validated like the tree's: a variant by its place in the run, a
// file by its place in the variant's list, never a path or a session.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { MAX_VARIANTS, validateVariantsMessage } from '../src/variantsProtocol.js';

it('accepts the variants view’s messages and refuses anything else', () => {
  const ok = (m: unknown) => assert.equal(validateVariantsMessage(m).ok, true, JSON.stringify(m));
  const bad = (m: unknown, why: RegExp) => {
    const r = validateVariantsMessage(m);
    assert.equal(r.ok, false, JSON.stringify(m));
    if (!r.ok) assert.match(r.reason, why);
  };
  ok({ type: 'ready' });
  for (const kind of ['cancel', 'openSession', 'diffAll', 'adopt', 'undoAdopt', 'discard'])
    ok({ type: 'request', seq: 1, body: { kind, index: 2 } });
  ok({ type: 'request', seq: 2, body: { kind: 'cancelAll' } });
  ok({ type: 'request', seq: 3, body: { kind: 'diffFile', index: 0, file: 7 } });
  bad({ type: 'ready', x: 1 }, /unexpected/);
  bad({ type: 'request', seq: 1, body: { kind: 'adopt', index: MAX_VARIANTS } }, /index/);
  bad({ type: 'request', seq: 1, body: { kind: 'adopt', index: -1 } }, /index/);
  bad({ type: 'request', seq: 1, body: { kind: 'adopt', index: 1.5 } }, /index/);
  bad({ type: 'request', seq: 1, body: { kind: 'adopt', index: '0' } }, /index/);
  bad(
    { type: 'request', seq: 1, body: { kind: 'openSession', index: 0, session: '/home/u/.pi/x.jsonl' } },
    /unexpected field "session"/,
  );
  bad({ type: 'request', seq: 1, body: { kind: 'diffFile', index: 0, file: '../../etc/passwd' } }, /file/);
  bad({ type: 'request', seq: 1, body: { kind: 'diffFile', index: 0 } }, /file/);
  bad({ type: 'request', seq: 1, body: { kind: 'cancelAll', index: 0 } }, /unexpected field "index"/);
  bad({ type: 'request', seq: 1, body: { kind: 'toString' } }, /unknown kind/);
  bad({ type: 'request', seq: 1, body: Object.assign(Object.create({ kind: 'cancelAll' }), {}) }, /unknown kind/);
  bad({ type: 'variantsView' }, /unknown message type/);
});
