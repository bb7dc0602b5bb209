// What sessions are called (src/core/listing/sessionTitle.ts): a fork or clone that still carries its
// source's name or first message reads "… (fork 2 · 10:20)" / "… (clone 1 · 10:31)" — which it is
// (core/listing/forkKind.ts), which of its source's, when it was made — in pi-tree's forks and clones and
// in pi's own; a name given after forking is shown as it is; sessions that are not forks are unchanged.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { Session } from '../../../src/core/session/session.js';
import { SessionInfoCache } from '../../../src/core/listing/sessionInfo.js';
import { familyPlaces, forkMark, infoTitle, sessionTitle } from '../../../src/core/listing/sessionTitle.js';
import { ForkKinds } from '../../../src/core/listing/forkKind.js';
import { SessionNames } from '../../../src/host/sessions/sessionNames.js';
import { loadPi } from '../../support/pi.js';
import { assistant, sessionText, tempDir, user } from '../../support/tmp.js';

describe('session titles', () => {
  it('the rule: inherited name or first message → "(fork 1 · time)"; an own name or no parent → as it is', () => {
    const created = new Date(2026, 10, 2, 10, 20).getTime(); // local time, as the title shows it
    const fork = { parentSessionPath: '/s/a.jsonl', created, firstMessage: 'Make the reader stream' };
    assert.equal(sessionTitle({ ...fork, name: 'Reader', nameTime: created - 1000 }), 'Reader (fork · 10:20)');
    assert.equal(sessionTitle({ ...fork, name: 'Reader, take two', nameTime: created + 1000 }), 'Reader, take two');
    assert.equal(sessionTitle(fork), 'Make the reader stream (fork · 10:20)');
    assert.equal(
      sessionTitle({ ...fork, place: { kind: 'fork', n: 2, of: 2 } }),
      'Make the reader stream (fork 2 · 10:20)',
    );
    assert.equal(
      sessionTitle({ ...fork, place: { kind: 'clone', n: 1, of: 1 } }),
      'Make the reader stream (clone 1 · 10:20)',
    );
    // Numbered from the first on: a fork keeps its name when a sibling is made.
    const first = sessionTitle({ ...fork, place: { kind: 'fork', n: 1, of: 1 } });
    assert.equal(first, 'Make the reader stream (fork 1 · 10:20)');
    assert.equal(sessionTitle({ ...fork, place: { kind: 'fork', n: 1, of: 2 } }), first);
    // A fork made before the first message holds none: it reads as its source, never "(no messages)".
    assert.equal(
      sessionTitle({ ...fork, firstMessage: '', sourceText: 'Reader', place: { kind: 'fork', n: 1, of: 1 } }),
      'Reader (fork 1 · 10:20)',
    );
    assert.equal(forkMark({ kind: 'clone', n: 3, of: 4 }, created), 'clone 3 · 10:20');
    assert.equal(
      sessionTitle({ ...fork, name: 'Reader', nameTime: created - 1000, ownFirstMessage: 'Try mmap after all' }),
      'Try mmap after all',
      'what it went on with',
    );
    assert.equal(
      sessionTitle({ created, firstMessage: 'Make the reader stream', name: 'Reader', nameTime: 0 }),
      'Reader',
    );
    assert.equal(sessionTitle({ ...fork, firstMessage: 'x'.repeat(200) }, 40).length, 40);
  });

  it("pi-tree's fork and clone of a named session are told apart from it, and from each other once one is renamed", async () => {
    const agentDir = tempDir();
    const repo = new SessionRepository({ agentDir });
    const cwd = '/home/dev/project';
    const src = await repo.create(cwd);
    const s = await Session.open(src);
    const msg = (role: 'user' | 'assistant', text: string) =>
      ({ ...((role === 'user' ? user('x', null, text) : assistant('x', null, text)).message as object) }) as never;
    await s.appendMessage(msg('user', 'Make the reader stream'));
    await s.appendMessage(msg('assistant', 'ok'));
    await s.setName('Reader');
    const u2 = await s.appendMessage(msg('user', 'Now add tests'));
    const { file: forked } = await repo.fork(s, u2);
    const cloned = await repo.clone(s, s.leafId);
    const cache = new SessionInfoCache();
    const title = async (f: string) => infoTitle((await cache.get(f))!);
    assert.equal(await title(src), 'Reader');
    assert.match(await title(forked), /^Reader \(fork · \d\d:\d\d\)$/);
    // Told apart: the fork went back before "Now add tests", the clone copied up to the leaf.
    const kinds = new ForkKinds();
    const infos = [(await cache.get(forked))!, (await cache.get(cloned))!];
    assert.equal(await kinds.kindOf(infos[0]), 'fork');
    assert.equal(await kinds.kindOf(infos[1]), 'clone');
    const places = familyPlaces(infos, (p) => kinds.peek(p));
    assert.match(infoTitle(infos[0], 80, places.get(forked)), /^Reader \(fork 1 · \d\d:\d\d\)$/);
    assert.match(infoTitle(infos[1], 80, places.get(cloned)), /^Reader \(clone 1 · \d\d:\d\d\)$/);
    // A second fork: the two are numbered, oldest first.
    const { file: forked2 } = await repo.fork(s, u2);
    const infos2 = [...infos, (await cache.get(forked2))!];
    await kinds.kindOf(infos2[2]);
    const places2 = familyPlaces(infos2, (p) => kinds.peek(p));
    assert.deepEqual(
      [places2.get(forked), places2.get(forked2), places2.get(cloned)],
      [
        { kind: 'fork', n: 1, of: 2 },
        { kind: 'fork', n: 2, of: 2 },
        { kind: 'clone', n: 1, of: 1 },
      ],
    );
    // The user goes on in the fork: it is called by its own first message, and differs from the clone.
    const f = await Session.open(forked);
    await f.appendMessage(msg('user', 'Add tests with a 100k file'));
    assert.equal(await title(forked), 'Add tests with a 100k file');
    await (await Session.open(cloned)).setName('Reader, second try');
    assert.equal(await title(cloned), 'Reader, second try');
  });

  it('a fork made before the first message reads as its source in the sidebar (SessionNames), not "(no messages)"', async () => {
    const agentDir = tempDir();
    const repo = new SessionRepository({ agentDir });
    const src = await repo.create('/home/dev/project');
    const s = await Session.open(src);
    const u1 = await s.appendMessage({ ...(user('x', null, 'Make the reader stream').message as object) } as never);
    await s.appendMessage({ ...(assistant('x', null, 'ok').message as object) } as never);
    const { file: forked } = await repo.fork(s, u1);
    const cache = new SessionInfoCache();
    const infos = [(await cache.get(src))!, (await cache.get(forked))!];
    assert.equal(infos[1].messageCount, 0);
    const names = new SessionNames();
    await names.update(infos);
    assert.match(names.title(infos[1]), /^Make the reader stream \(fork 1 · \d\d:\d\d\)$/);
    await s.setName('Reader');
    await names.update([(await cache.get(src))!, infos[1]]);
    assert.match(names.title(infos[1]), /^Reader \(fork 1 · \d\d:\d\d\)$/);
  });

  it("pi's own /fork (createBranchedSession) of an unnamed session: first message (fork)", async () => {
    const dir = tempDir();
    const file = join(dir, '2026-11-01T09-00-00-000Z_01990000-0000-7000-8000-000000000001.jsonl');
    (await import('node:fs')).writeFileSync(
      file,
      sessionText([user('u1', null, 'Make the reader stream'), assistant('a1', 'u1', 'ok'), user('u2', 'a1', 'more')]),
    );
    const { SessionManager } = await loadPi();
    const sm = SessionManager.open(file, dir);
    sm.createBranchedSession('a1');
    const made = readdirSync(dir).filter((f) => f !== file.slice(dir.length + 1));
    assert.equal(made.length, 1);
    const info = (await new SessionInfoCache().get(join(dir, made[0])))!;
    assert.equal(info.parentSessionPath, file);
    assert.match(infoTitle(info), /^Make the reader stream \(fork · \d\d:\d\d\)$/);
    assert.equal(await new ForkKinds().kindOf(info), 'fork', "pi's /fork before a user message is a fork");
    // pi's /clone (createBranchedSession at the leaf) is a clone.
    const sm2 = SessionManager.open(file, dir);
    const cloneFile = sm2.createBranchedSession('u2');
    const cloneInfo = (await new SessionInfoCache().get(cloneFile))!;
    assert.equal(await new ForkKinds().kindOf(cloneInfo), 'clone');
  });
});
