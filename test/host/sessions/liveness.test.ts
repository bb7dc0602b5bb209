// "Live" (src/host/sessions/liveness.ts): only a session another writer appended to within the window;
// never one that merely appeared (copied into the folder, restored, written whole by pi a while ago),
// never pi-tree's own appends — also after the shared Session that made them was released.
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Liveness } from '../../../src/host/sessions/liveness.js';
import { SessionStore } from '../../../src/host/sessions/sessionStore.js';
import { assistant, sessionText, tempDir, tempFile, user } from '../../support/tmp.js';

const line = (id: string, parent: string, text: string) => `${JSON.stringify(user(id, parent, text))}\n`;

function setup(windowMs = 120_000) {
  const store = new SessionStore();
  let now = Date.now();
  const live = new Liveness({
    ownWrite: (p, size) => store.lastWriteWasOurs(p, size),
    windowMs: () => windowMs,
    now: () => now,
  });
  return { store, live, advance: (ms: number) => (now += ms) };
}

describe('liveness', () => {
  it('files copied into the folder are not live, however new their mtime', () => {
    const { live } = setup();
    const src = tempFile(sessionText([user('u1', null, 'a'), assistant('a1', 'u1', 'b')]));
    const dir = tempDir();
    for (let i = 0; i < 5; i++) {
      const copy = join(dir, `copy-${i}.jsonl`);
      copyFileSync(src, copy);
      assert.equal(live.isLive(copy), false, 'first seen: not live');
      assert.equal(live.isLive(copy), false, 'seen again, unchanged: not live');
    }
  });

  it('an append by another writer makes it live for the window, then not', () => {
    const { live, advance } = setup(60_000);
    const file = tempFile(sessionText([user('u1', null, 'a')]));
    assert.equal(live.isLive(file), false);
    appendFileSync(file, line('u2', 'u1', 'pi appends'));
    assert.equal(live.isLive(file), true);
    advance(30_000);
    assert.equal(live.isLive(file), true, 'still within the window');
    advance(31_000);
    assert.equal(live.isLive(file), false, 'the window has passed');
  });

  it("pi-tree's own writes never make it live: from an open tree, and after the session was released (a rename from the sidebar)", async () => {
    const { store, live } = setup();
    const file = tempFile(sessionText([user('u1', null, 'a')]));
    assert.equal(live.isLive(file), false);
    // A rename as the sidebar does it: acquire, write, release.
    const a = await store.acquire(file);
    await a.session.setName('renamed by pi-tree');
    a.release();
    assert.equal(live.isLive(file), false, 'the rename is ours');
    // A label from an open tree (the session stays held).
    const b = await store.acquire(file);
    await b.session.setLabel('u1', 'mine');
    assert.equal(live.isLive(file), false);
    // Then pi appends: live.
    appendFileSync(file, line('u2', 'u1', 'pi again'));
    assert.equal(live.isLive(file), true);
    b.release();
  });

  it('an older look at the file (a list cache) does not reset what was seen; a rewrite does', () => {
    const { live } = setup();
    const file = tempFile(sessionText([user('u1', null, 'a')]));
    const before = statSync(file);
    live.isLive(file);
    appendFileSync(file, line('u2', 'u1', 'b'));
    assert.equal(live.isLive(file), true);
    assert.equal(live.observe(file, before.size, before.mtimeMs), true, 'the stale, smaller size is ignored');
    // A migration rewrites it smaller and newer: a new baseline, not live.
    const st = statSync(file);
    utimesSync(file, new Date(), new Date(st.mtimeMs + 5000));
    assert.equal(live.observe(file, before.size - 10, st.mtimeMs + 5000), false);
  });
});
