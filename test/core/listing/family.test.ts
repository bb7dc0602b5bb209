// Where a fork or clone parts from the session it came from (attachPoint): the last entry of the child, in
// file order, that the parent holds with the same id, type and time; found over the record numbers,
// giving the event loop its turns.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attachPoint } from '../../../src/core/listing/family.js';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { Session } from '../../../src/core/session/session.js';
import { SessionIndex } from '../../../src/core/index/sessionIndex.js';
import { SessionBuilder } from '../../support/sessionBuilder.js';
import { tempDir } from '../../support/tmp.js';

/** u1 a1 u2 a2 u3 a3 */
function straight() {
  const b = new SessionBuilder();
  const ids = [b.user('one'), b.assistant({ text: 'one done' }), b.user('two'), b.assistant({ text: 'two done' }), b.user('three'), b.assistant({ text: 'three done' })];
  return { b, ids };
}

const more = (s: Session, text: string) => s.appendMessage({ role: 'user', content: [{ type: 'text', text }], timestamp: Date.now() });

describe('attachPoint', () => {
  it('a fork parts at the entry before the message it was made at; a clone at the entry it copied to', async () => {
    const { b, ids } = straight();
    const s = await Session.open(b.write(tempDir('pi-attach-')));
    const repo = new SessionRepository({ env: {} });
    const fork = await Session.open((await repo.fork(s, ids[4])).file);
    await more(fork, 'in the fork');
    assert.equal(await attachPoint(s.index, fork.index), ids[3]);
    const clone = await Session.open(await repo.clone(s, ids[5]));
    await more(clone, 'in the clone');
    await more(clone, 'and again');
    assert.equal(await attachPoint(s.index, clone.index), ids[5]);
    // the other way round: the last entry of the parent the clone holds
    assert.equal(await attachPoint(clone.index, s.index), ids[5]);
  });

  it('a session sharing nothing (same ids, other times) has none', async () => {
    const { b } = straight();
    const other = new SessionBuilder({ start: '2026-02-01T00:00:00.000Z' });
    other.user('one');
    other.assistant({ text: 'elsewhere' });
    const s = await Session.inMemory(b.text());
    const o = await Session.inMemory(other.text());
    assert.equal(o.index.idOf(0), s.index.idOf(0), 'the builder numbers ids alike');
    assert.equal(await attachPoint(s.index, o.index), null);
  });

  it('shared entries that are not a prefix: the last live one in file order counts', async () => {
    const { b, ids } = straight();
    const s = await Session.inMemory(b.text());
    const lines = b.text().split('\n');
    const entry = (id: string) => JSON.parse(lines.find((l) => l.includes(`"id":"${id}"`))!);
    const own = (id: string, parentId: string | null, timestamp: string) => ({ type: 'message', id, parentId, timestamp, message: { role: 'user', content: 'own', timestamp: 1 } });
    const child = [
      { ...b.header, id: 'child-session' },
      own('f0000001', null, '2026-03-01T00:00:00.000Z'),
      entry(ids[5]), // held by the parent as it is, but replaced below: not live
      entry(ids[0]),
      entry(ids[1]),
      entry(ids[2]),
      { ...entry(ids[3]), timestamp: '2026-03-01T00:00:01.000Z' }, // the parent's id at another time
      { ...entry(ids[5]), timestamp: '2026-03-01T00:00:02.000Z' }, // the later record of ids[5] wins
      { ...entry(ids[4]), type: 'custom', customType: 'x' }, // the parent's id and time, another type
      own('f0000002', 'f0000001', '2026-03-01T00:00:03.000Z'),
    ];
    const c = await Session.inMemory(child.map((e) => `${JSON.stringify(e)}\n`).join(''));
    assert.equal(await attachPoint(s.index, c.index), ids[2]);
  });

  it('walks the record numbers (no record object per entry) and gives the event loop its turns', async () => {
    const header = { type: 'session', version: 3, id: 'x', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' } as const;
    const make = (n: number, from: number) => {
      const ix = new SessionIndex(header, n);
      for (let i = 0; i < n; i++) ix.add({ id: (from + i).toString(16).padStart(8, '0'), parentId: null, type: 'message', time: i, line: i + 2, offset: -1, length: 0, seq: i });
      return ix;
    };
    const parent = make(20_000, 0);
    const child = make(20_000, 0x10000000); // shares nothing: walked whole
    let views = 0;
    for (const ix of [parent, child]) {
      const view = ix.view.bind(ix);
      ix.view = (i: number) => (views++, view(i));
    }
    await new Promise((r) => setTimeout(r, 15)); // the current slice is used up
    let turned = false;
    setImmediate(() => (turned = true));
    assert.equal(await attachPoint(parent, child), null);
    assert.equal(views, 0);
    assert.ok(turned, 'the event loop had a turn during the walk');
  });
});
