// What sessions are called (src/core/sessionTitle.ts): a fork or clone that still carries its source's
// name or first message reads "… (fork)", in pi-tree's forks and clones and in pi's own; a name given
// after forking is shown as it is; sessions that are not forks are unchanged.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { Session } from '../../../src/core/session/session.js';
import { SessionInfoCache } from '../../../src/core/listing/sessionInfo.js';
import { infoTitle, sessionTitle } from '../../../src/core/listing/sessionTitle.js';
import { loadPi } from '../../support/pi.js';
import { assistant, sessionText, tempDir, user } from '../../support/tmp.js';

describe('session titles', () => {
  it('the rule: inherited name or first message → "(fork)"; an own name or no parent → as it is', () => {
    const created = Date.UTC(2026, 10, 2);
    const fork = { parentSessionPath: '/s/a.jsonl', created, firstMessage: 'Make the reader stream' };
    assert.equal(sessionTitle({ ...fork, name: 'Reader', nameTime: created - 1000 }), 'Reader (fork)');
    assert.equal(sessionTitle({ ...fork, name: 'Reader, take two', nameTime: created + 1000 }), 'Reader, take two');
    assert.equal(sessionTitle(fork), 'Make the reader stream (fork)');
    assert.equal(sessionTitle({ ...fork, name: 'Reader', nameTime: created - 1000, ownFirstMessage: 'Try mmap after all' }), 'Try mmap after all', 'what it went on with');
    assert.equal(sessionTitle({ created, firstMessage: 'Make the reader stream', name: 'Reader', nameTime: 0 }), 'Reader');
    assert.equal(sessionTitle({ ...fork, firstMessage: 'x'.repeat(200) }, 40).length, 40);
  });

  it("pi-tree's fork and clone of a named session are told apart from it, and from each other once one is renamed", async () => {
    const agentDir = tempDir();
    const repo = new SessionRepository({ agentDir });
    const cwd = '/home/dev/project';
    const src = await repo.create(cwd);
    const s = await Session.open(src);
    const msg = (role: 'user' | 'assistant', text: string) => ({ ...((role === 'user' ? user('x', null, text) : assistant('x', null, text)).message as object) }) as never;
    await s.appendMessage(msg('user', 'Make the reader stream'));
    await s.appendMessage(msg('assistant', 'ok'));
    await s.setName('Reader');
    const u2 = await s.appendMessage(msg('user', 'Now add tests'));
    const { file: forked } = await repo.fork(s, u2);
    const cloned = await repo.clone(s, s.leafId);
    const cache = new SessionInfoCache();
    const title = async (f: string) => infoTitle((await cache.get(f))!);
    assert.equal(await title(src), 'Reader');
    assert.equal(await title(forked), 'Reader (fork)');
    assert.equal(await title(cloned), 'Reader (fork)');
    // The user goes on in the fork: it is called by its own first message, and differs from the clone.
    const f = await Session.open(forked);
    await f.appendMessage(msg('user', 'Add tests with a 100k file'));
    assert.equal(await title(forked), 'Add tests with a 100k file');
    await (await Session.open(cloned)).setName('Reader, second try');
    assert.equal(await title(cloned), 'Reader, second try');
  });

  it("pi's own /fork (createBranchedSession) of an unnamed session: first message (fork)", async () => {
    const dir = tempDir();
    const file = join(dir, '2026-11-01T09-00-00-000Z_01990000-0000-7000-8000-000000000001.jsonl');
    (await import('node:fs')).writeFileSync(file, sessionText([user('u1', null, 'Make the reader stream'), assistant('a1', 'u1', 'ok'), user('u2', 'a1', 'more')]));
    const { SessionManager } = await loadPi();
    const sm = SessionManager.open(file, dir);
    sm.createBranchedSession('a1');
    const made = readdirSync(dir).filter((f) => f !== file.slice(dir.length + 1));
    assert.equal(made.length, 1);
    const info = (await new SessionInfoCache().get(join(dir, made[0])))!;
    assert.equal(info.parentSessionPath, file);
    assert.equal(infoTitle(info), 'Make the reader stream (fork)');
  });
});
