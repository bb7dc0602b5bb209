import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SessionStore } from '../../../src/host/sessions/sessionStore.js';
import { assistant, sessionText, tempFile, user } from '../../support/tmp.js';

describe('session store (shared sessions of the host)', () => {
  it('one Session per file; an untrusted workspace makes every session read-only', async () => {
    const file = tempFile(sessionText([user('u1', null, 'a'), assistant('a1', 'u1', 'b')]));
    const store = new SessionStore();
    const a = await store.acquire(file);
    const b = await store.acquire(file);
    assert.equal(a.session, b.session);
    store.setWriteBlocked('the workspace is not trusted');
    const before = readFileSync(file);
    await assert.rejects(a.session.setName('x'), /read-only: the workspace is not trusted/);
    await assert.rejects(a.session.moveTo('u1'), /read-only/);
    assert.deepStrictEqual(readFileSync(file), before);
    const c = await store.acquire(tempFile(sessionText([user('u1', null, 'a')])));
    assert.ok(c.session.readOnly, 'sessions opened later are read-only too');
    store.setWriteBlocked(undefined);
    await a.session.setName('trusted now');
    assert.equal(a.session.name, 'trusted now');
    a.release();
    b.release();
    c.release();
  });

  it("tells pi-tree's own writes from other writers' (own writes do not make a session live)", async () => {
    const file = tempFile(sessionText([user('u1', null, 'a')]));
    const store = new SessionStore();
    const { session, release } = await store.acquire(file);
    await session.setLabel('u1', 'mine');
    assert.equal(store.lastWriteWasOurs(file, statSync(file).size), true);
    (await import('node:fs')).appendFileSync(file, `${JSON.stringify(user('u2', 'u1', 'from pi'))}\n`);
    assert.equal(store.lastWriteWasOurs(file, statSync(file).size), false);
    store.noteOwnFile('/x/forked.jsonl', 123);
    assert.equal(store.lastWriteWasOurs('/x/forked.jsonl', 123), true);
    assert.equal(store.lastWriteWasOurs('/x/forked.jsonl', 124), false);
    release();
  });
});
