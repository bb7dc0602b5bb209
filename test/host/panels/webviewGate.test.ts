import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WebviewGate } from '../../../src/host/panels/webviewGate.js';

describe('webview gate', () => {
  it('passes valid messages and names what is wrong with invalid ones (answering requests that carry a seq)', () => {
    const gate = new WebviewGate();
    const ok = gate.check({ type: 'request', seq: 3, body: { kind: 'getEntry', id: 'a1b2c3d4' } });
    assert.ok(ok.ok);
    const bad = gate.check({ type: 'request', seq: 4, body: { kind: 'getEntry', id: '../../etc/passwd' } });
    assert.ok(!bad.ok);
    assert.equal(bad.replySeq, 4);
    assert.match(bad.reason, /id must be an entry id/);
    const path = gate.check({ type: 'request', seq: 5, body: { kind: 'fork', id: 'a1', file: '/tmp/x.jsonl' } });
    assert.ok(!path.ok && /unexpected field "file"/.test(path.reason));
    const noSeq = gate.check({ type: 'bogus' });
    assert.ok(!noSeq.ok && noSeq.replySeq === undefined);
  });

  it('drops oversized messages without answering', () => {
    const gate = new WebviewGate({ perSecond: 300, maxBytes: 1000 });
    const r = gate.check({ type: 'request', seq: 1, body: { kind: 'rename', name: 'x'.repeat(2000) } });
    assert.ok(!r.ok && r.replySeq === undefined && /2\d{3} bytes rejected/.test(r.reason));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.ok(!gate.check(cyclic).ok, 'a value JSON cannot measure is refused');
  });

  it('drops a flood, warns once per flood, and lets messages through again a second later', () => {
    let now = 1_000_000;
    const gate = new WebviewGate({ perSecond: 5, maxBytes: 1000 }, () => now);
    const ready = { type: 'ready' };
    for (let i = 0; i < 5; i++) assert.ok(gate.check(ready).ok);
    const dropped = [gate.check(ready), gate.check(ready), gate.check(ready)];
    assert.deepEqual(
      dropped.map((r) => r.ok),
      [false, false, false],
    );
    assert.deepEqual(
      dropped.map((r) => !r.ok && r.warn),
      [true, false, false],
      'one warning per flood',
    );
    now += 1001;
    assert.ok(gate.check(ready).ok);
  });
});
