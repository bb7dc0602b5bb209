// The request/reply stack both webviews share: each request settles once with its own reply, typed by
// kind; a failed reply rejects with its message; what is not a reply goes on to the view; envelopes are
// validated the same for the tree and the compare view.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  dispatch,
  RequestClient,
  RequestError,
  validateRequest,
  type HandlerTable,
  type Validated,
} from '../../src/shared/messaging.js';
import type { CompareReplies, CompareRequest } from '../../src/compareProtocol.js';

type Body = { kind: 'echo'; text: string } | { kind: 'fail' };
interface Replies {
  echo: { text: string };
  fail: never;
}

it('a request settles with its reply, once; a failure rejects with its message; other messages pass on', async () => {
  const sent: { seq: number; body: Body }[] = [];
  const client = new RequestClient<Body, Replies>((m) => sent.push(m));
  const a = client.request({ kind: 'echo', text: 'a' });
  const b = client.request({ kind: 'fail' });
  assert.deepEqual(
    sent.map((m) => m.seq),
    [1, 2],
  );
  assert.equal(client.settle({ type: 'reply', seq: 2, ok: false, error: 'no such entry' }), true);
  assert.equal(client.settle({ type: 'reply', seq: 1, ok: true, data: { text: 'a' } }), true);
  assert.deepEqual(await a, { text: 'a' });
  await assert.rejects(b, (e: unknown) => e instanceof RequestError && e.message === 'no such entry');
  assert.equal(
    client.settle({ type: 'reply', seq: 1, ok: true, data: { text: 'again' } }),
    true,
    'a second reply is swallowed',
  );
  assert.equal(client.settle({ type: 'meta', seq: 3 }), false);
  assert.equal(client.settle(null), false);
  const c = client.request({ kind: 'fail' });
  client.settle({ type: 'reply', seq: 3, ok: false });
  await assert.rejects(c, /fail failed/);
});

it('the envelope: seq and body checked, nothing else allowed', () => {
  const body = (b: unknown): Validated<{ n: number }> =>
    typeof b === 'object' && b && 'n' in b
      ? { ok: true, value: b as { n: number } }
      : { ok: false, reason: 'bad body' };
  assert.deepEqual(validateRequest({ type: 'request', seq: 4, body: { n: 1 } }, body), {
    ok: true,
    value: { type: 'request', seq: 4, body: { n: 1 } },
  });
  assert.equal(validateRequest({ type: 'request', seq: -1, body: { n: 1 } }, body).ok, false);
  assert.equal(validateRequest({ type: 'request', seq: 1.5, body: { n: 1 } }, body).ok, false);
  assert.equal(validateRequest({ type: 'request', seq: 1, body: {} }, body).ok, false);
  assert.deepEqual(validateRequest({ type: 'request', seq: 1, body: { n: 1 }, path: '/etc' }, body), {
    ok: false,
    reason: 'request: unexpected field "path"',
  });
});

it('the host end: a table with one handler per kind, each called with the body, the seq and the context', async () => {
  const calls: string[] = [];
  const table: HandlerTable<Body, Replies, { panel: string }> = {
    echo: async (b, seq, cx) => (calls.push(`echo ${seq} ${cx.panel}`), { text: b.text }),
    fail: async () => {
      throw new Error('no such entry');
    },
  };
  assert.deepEqual(await dispatch(table, { kind: 'echo', text: 'a' }, 4, { panel: 'tree' }), { text: 'a' });
  await assert.rejects(dispatch(table, { kind: 'fail' }, 5, { panel: 'tree' }), /no such entry/);
  assert.deepEqual(calls, ['echo 4 tree']);
  // The compare view's requests take the same shape (the panel holds such a table): a kind left out does not compile.
  // @ts-expect-error every kind of CompareRequest needs its handler
  const partial: HandlerTable<CompareRequest, CompareReplies, undefined> = { rows: async () => [] };
  assert.equal(Object.keys(partial).length, 1);
});
