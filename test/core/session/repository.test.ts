import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { encodeCwd, SessionRepository } from '../../../src/core/session/repository.js';
import { Session } from '../../../src/core/session/session.js';
import { assistant, entry, lines, sessionText, tempDir, user } from '../../support/tmp.js';

describe('pi directory layout', () => {
  it('encodes cwd like pi', () => {
    assert.equal(encodeCwd('/home/user/my proj:x'), '--home-user-my proj-x--');
    assert.equal(encodeCwd('/a/../b/rel/'), '--b-rel--');
  });

  it('agent dir from PI_CODING_AGENT_DIR (tilde expanded); flat custom dir from env or setting, filtered by cwd', async () => {
    const r1 = new SessionRepository({ env: { PI_CODING_AGENT_DIR: '~/x' } });
    assert.ok(r1.agentDir.endsWith('/x') && !r1.agentDir.includes('~'));
    assert.equal(r1.dirFor('/p'), join(r1.agentDir, 'sessions', '--p--'));
    const flat = tempDir();
    const header = (cwd: string, id: string) => ({
      type: 'session',
      version: 3,
      id,
      timestamp: '2026-01-01T00:00:00.000Z',
      cwd,
    });
    writeFileSync(join(flat, 'a.jsonl'), sessionText([user('u1', null, 'in p')], header('/p', 'a')));
    writeFileSync(join(flat, 'b.jsonl'), sessionText([user('u1', null, 'in q')], header('/q', 'b')));
    writeFileSync(join(flat, 'c.txt'), 'x');
    const r2 = new SessionRepository({ env: { PI_CODING_AGENT_SESSION_DIR: flat } });
    assert.equal(r2.dirFor('/anything'), flat);
    assert.deepStrictEqual(
      (await r2.list('/p')).map((i) => i.id),
      ['a'],
    );
    assert.equal((await r2.listAll()).length, 2);
    const r3 = new SessionRepository({ env: {}, sessionDir: flat });
    assert.deepStrictEqual(
      (await r3.list('/q')).map((i) => i.id),
      ['b'],
    );
  });

  it('listAll reads sub-directories of the sessions root, not files lying in it', async () => {
    const agentDir = tempDir();
    const root = join(agentDir, 'sessions');
    mkdirSync(join(root, '--p--'), { recursive: true });
    writeFileSync(join(root, '--p--', 'x.jsonl'), sessionText([user('u1', null, 'a')]));
    writeFileSync(join(root, 'loose.jsonl'), sessionText([user('u1', null, 'b')]));
    assert.equal((await new SessionRepository({ agentDir }).listAll()).length, 1);
  });

  it('a cached row vouched for by `unchanged` is used without a stat; one not vouched for is checked and read again', async () => {
    const agentDir = tempDir();
    const repo = new SessionRepository({ agentDir });
    const dir = repo.dirFor('/p');
    mkdirSync(dir, { recursive: true });
    const f = join(dir, 'x.jsonl');
    writeFileSync(f, sessionText([user('u1', null, 'before')]));
    const asked: number[] = [];
    assert.equal(
      (await repo.list('/p', { unchanged: () => true }))[0].firstMessage,
      'before',
      'never read: read whatever is said',
    );
    appendFileSync(f, `${JSON.stringify(entry('session_info', 'n1', 'u1', { name: 'named' }))}\n`);
    const trusted = await repo.list('/p', { unchanged: (_f, at) => (asked.push(at), true) });
    assert.equal(trusted[0].name, undefined, 'vouched for: the cached row, so no stat saw the change');
    assert.ok(asked.length === 1 && asked[0] > 0, 'asked with the time the row was checked');
    assert.equal((await repo.list('/p', { unchanged: () => false }))[0].name, 'named');
  });
});

describe('create, fork, clone, delete', () => {
  const setup = () => {
    const agentDir = tempDir();
    const repo = new SessionRepository({ agentDir, env: {} });
    const dir = repo.dirFor('/work/p');
    mkdirSync(dir, { recursive: true });
    return { repo, dir };
  };

  it('create writes a v3 header with a UUIDv7 id named <ts>_<id>.jsonl', async () => {
    const { repo, dir } = setup();
    const f = await repo.create('/work/p');
    assert.equal(dirname(f), dir);
    const [h] = lines(f);
    assert.match(h.id as string, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(f.endsWith(`${(h.timestamp as string).replace(/[:.]/g, '-')}_${h.id as string}.jsonl`), true);
    await assert.rejects(repo.create('/work/p', { id: '../../evil' }), /Invalid session id/);
    // a session whose header has no cwd gives one without (not this process's folder), as clone copies it
    const empty = await repo.create('', { dir });
    assert.equal(lines(empty)[0].cwd, '');
  });

  it('clone re-chains the path without label and leaf records, re-emits labels with their timestamps, remaps compactions', async () => {
    const { repo, dir } = setup();
    const src = join(dir, 'src.jsonl');
    writeFileSync(
      src,
      sessionText([
        user('u1', null, 'one'),
        entry('label', 'l1', 'u1', { targetId: 'u1', label: 'first', timestamp: '2026-01-02T03:04:05.000Z' }),
        assistant('a1', 'l1', 'r1'),
        entry('label', 'l2', 'a1', { targetId: 'a1', label: 'x' }),
        entry('compaction', 'c1', 'l2', { summary: 'S', firstKeptEntryId: 'l2', tokensBefore: 3 }),
        entry('leaf', 'lf', 'c1', { targetId: 'c1', fromId: 'c1' }),
        user('u2', 'lf', 'two'),
        entry('label', 'l3', 'u2', { targetId: 'zz', label: 'off path' }),
      ]),
    );
    const s = await Session.open(src);
    const out = await repo.clone(s, 'u2');
    const ls = lines(out);
    assert.equal(ls[0].parentSession, src);
    assert.deepStrictEqual(
      ls.slice(1, 5).map((e) => [e.id, e.parentId]),
      [
        ['u1', null],
        ['a1', 'u1'],
        ['c1', 'a1'],
        ['u2', 'c1'],
      ],
    );
    assert.equal(ls[3].firstKeptEntryId, 'c1', 'pointed at a removed label: redirected to the next kept entry');
    const labels = ls.slice(5);
    assert.deepStrictEqual(
      labels.map((e) => [e.targetId, e.label]),
      [
        ['u1', 'first'],
        ['a1', 'x'],
      ],
    );
    assert.equal(labels[0].timestamp, '2026-01-02T03:04:05.000Z');
    assert.equal(labels[0].parentId, 'u2');
    assert.equal(labels[1].parentId, labels[0].id);
  });

  it('fork refuses non-user entries; a crafted header id cannot steer where files go', async () => {
    const { repo, dir } = setup();
    const src = join(dir, 'src.jsonl');
    writeFileSync(
      src,
      sessionText([user('u1', null, 'one'), assistant('a1', 'u1', 'r'), user('u2', 'a1', 'two')], {
        type: 'session',
        version: 3,
        id: '../../../../tmp/evil',
        timestamp: '2026-01-01T00:00:00.000Z',
        cwd: '/work/p',
      }),
    );
    const s = await Session.open(src);
    await assert.rejects(repo.fork(s, 'a1'), /not a user message/);
    const { file, text } = await repo.fork(s, 'u2');
    assert.equal(text, 'two');
    assert.equal(dirname(file), dir);
    assert.deepStrictEqual(readdirSync(dir).sort().length, 2);
  });

  it('delete moves the file to the trash (never unlinks), with a .trashinfo', async () => {
    const { repo, dir } = setup();
    const f = join(dir, 'gone.jsonl');
    writeFileSync(f, sessionText([user('u1', null, 'bye')]));
    const dataHome = tempDir();
    const old = process.env.XDG_DATA_HOME;
    process.env.XDG_DATA_HOME = dataHome;
    try {
      const dest = await repo.delete(f);
      assert.equal(existsSync(f), false);
      assert.ok(existsSync(dest));
      assert.match(readFileSync(join(dataHome, 'Trash', 'info', 'gone.jsonl.trashinfo'), 'utf8'), /Path=.*gone\.jsonl/);
      writeFileSync(f, 'again');
      const second = await repo.delete(f);
      assert.notEqual(second, dest, 'a second file of the same name gets its own slot');
    } finally {
      if (old === undefined) delete process.env.XDG_DATA_HOME;
      else process.env.XDG_DATA_HOME = old;
    }
  });
});

describe('newer formats are read-only: no fork or clone', () => {
  for (const version of [4, 5, 99]) {
    it(`v${version}: fork and clone refuse with a clear message and write nothing`, async () => {
      const dir = tempDir();
      const file = join(dir, 's.jsonl');
      writeFileSync(
        file,
        sessionText([user('u1', null, 'one'), assistant('a1', 'u1', 'r'), user('u2', 'a1', 'two')], {
          type: 'session',
          version,
          id: '01990000-0000-7000-8000-000000000009',
          timestamp: '2026-11-01T09:00:00.000Z',
          cwd: '/p',
        }),
      );
      const s = await Session.open(file);
      assert.match(s.readOnly ?? '', new RegExp(`v${version}`));
      const repo = new SessionRepository({ agentDir: tempDir(), env: {} });
      await assert.rejects(repo.clone(s, 'a1'), new RegExp(`Cannot clone this session: it is format v${version}`));
      await assert.rejects(repo.fork(s, 'u2'), new RegExp(`Cannot fork this session: it is format v${version}`));
      assert.deepStrictEqual(readdirSync(dir), ['s.jsonl']);
    });
  }
});
