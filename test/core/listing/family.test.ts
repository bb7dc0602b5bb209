// Where a fork or clone parts from the session it came from (attachPoint): the last entry of the child, in
// file order, that the parent holds with the same id, type and time; found over the record numbers,
// giving the event loop its turns. And where familyOf looks for relatives: only in the session folders
// pi-tree lists, reading a bounded header of each file there, whatever a header's parentSession names.
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { endSlice } from '../../../src/core/listing/infoRead.js';
import { attachPoint, FAMILY_READ_MAX, familyOf, type FamilyScope } from '../../../src/core/listing/family.js';
import { HEADER_READ_MAX, readHead } from '../../../src/core/index/sessionHeader.js';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { Session } from '../../../src/core/session/session.js';
import { SessionIndex } from '../../../src/core/index/sessionIndex.js';
import { SessionInfoCache, type SessionInfo } from '../../../src/core/listing/sessionInfo.js';
import { SessionBuilder } from '../../support/sessionBuilder.js';
import { tempDir } from '../../support/tmp.js';

/** u1 a1 u2 a2 u3 a3 */
function straight() {
  const b = new SessionBuilder();
  const ids = [
    b.user('one'),
    b.assistant({ text: 'one done' }),
    b.user('two'),
    b.assistant({ text: 'two done' }),
    b.user('three'),
    b.assistant({ text: 'three done' }),
  ];
  return { b, ids };
}

const more = (s: Session, text: string) =>
  s.appendMessage({ role: 'user', content: [{ type: 'text', text }], timestamp: Date.now() });

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
    const own = (id: string, parentId: string | null, timestamp: string) => ({
      type: 'message',
      id,
      parentId,
      timestamp,
      message: { role: 'user', content: 'own', timestamp: 1 },
    });
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
      for (let i = 0; i < n; i++)
        ix.add({
          id: (from + i).toString(16).padStart(8, '0'),
          parentId: null,
          type: 'message',
          time: i,
          line: i + 2,
          offset: -1,
          length: 0,
          seq: i,
        });
      return ix;
    };
    const parent = make(20_000, 0);
    const child = make(20_000, 0x10000000); // shares nothing: walked whole
    let views = 0;
    for (const ix of [parent, child]) {
      const view = ix.view.bind(ix);
      ix.view = (i: number) => (views++, view(i));
    }
    endSlice(); // the walk's first check yields: no waiting on the clock
    let turned = false;
    setImmediate(() => (turned = true));
    assert.equal(await attachPoint(parent, child), null);
    assert.equal(views, 0);
    assert.ok(turned, 'the event loop had a turn during the walk');
  });
});

/** A file of `bytes` zero bytes that takes no disk (a hole), as a crafted 3 GB "session" would be. */
function sparse(file: string, bytes: number): string {
  const fd = openSync(file, 'w');
  try {
    ftruncateSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  return file;
}

/** A cache that records which files it is asked to read whole (and never reads the big ones). */
class SpyCache extends SessionInfoCache {
  readonly asked: string[] = [];
  override async get(path: string, signal?: AbortSignal): Promise<SessionInfo | null> {
    this.asked.push(path);
    return /big|huge|filler/.test(path) ? null : super.get(path, signal);
  }
}

/** The repository's folders, with every header read counted by file. */
function counted(repo: SessionRepository): FamilyScope & { bytes: Map<string, number> } {
  const bytes = new Map<string, number>();
  return {
    bytes,
    listsFolder: (dir) => repo.listsFolder(dir),
    readHead: async (file, max) => {
      const b = await readHead(file, max);
      bytes.set(file, (bytes.get(file) ?? 0) + b.length);
      return b;
    },
  };
}

describe('familyOf: where it looks', () => {
  const GB3 = 3 * 1024 ** 3;

  function setUp() {
    const agentDir = tempDir('pi-tree-agent-');
    const repo = new SessionRepository({ agentDir, env: {} });
    const folder = join(repo.sessionsRoot, '--work--');
    mkdirSync(folder, { recursive: true });
    return { repo, folder };
  }

  it('a crafted parentSession naming a folder pi-tree does not list: that folder is never read (a 3 GB file there is never opened)', async () => {
    const { repo, folder } = setUp();
    const outside = tempDir('pi-tree-outside-');
    const named = new SessionBuilder({ id: '019b8f3a-0000-7000-8000-00000000000a' });
    named.user('elsewhere');
    const namedFile = named.write(outside, 'parent.jsonl');
    sparse(join(outside, 'big.jsonl'), GB3);
    const crafted = new SessionBuilder();
    crafted.header.parentSession = namedFile;
    crafted.user('hello');
    const file = crafted.write(folder);
    const cache = new SpyCache();
    const scope = counted(repo);
    const fam = await familyOf(file, namedFile, cache, [], undefined, scope);
    assert.equal(fam.parent, undefined, 'no parent from outside the listed folders');
    const touched = [...cache.asked, ...scope.bytes.keys()].filter((p) => p.startsWith(outside));
    assert.deepEqual(touched, [], 'nothing in the folder the header named was read');
  });

  it('in a listed folder only a bounded header of each file is read; only relatives are read whole; the total is bounded', async () => {
    const { repo, folder } = setUp();
    const { b, ids } = straight();
    const src = await Session.open(b.write(folder));
    const clone = await repo.clone(src, ids[3]);
    const huge = sparse(join(folder, 'huge.jsonl'), GB3);
    const cache = new SpyCache();
    const scope = counted(repo);
    const fam = await familyOf(src.path!, undefined, cache, [], undefined, scope);
    assert.deepEqual(
      fam.children.map((c) => c.path),
      [clone],
    );
    assert.deepEqual(cache.asked, [clone], 'only the relative is read whole');
    assert.ok((scope.bytes.get(huge) ?? 0) <= HEADER_READ_MAX, `read ${scope.bytes.get(huge)} bytes of the 3 GB file`);

    // many headerless files: the reads stop at the lookup's bound
    for (let i = 0; i < 300; i++) sparse(join(folder, `filler-${i}.jsonl`), 1024 * 1024);
    const many = counted(repo);
    await familyOf(src.path!, undefined, new SpyCache(), [], undefined, many);
    const total = [...many.bytes.values()].reduce((x, y) => x + y, 0);
    assert.ok(total <= FAMILY_READ_MAX, `${total} bytes read in all`);
    assert.ok(many.bytes.size < 302, 'the reads stopped before the last files');
  });

  it('files that start with lines pi passes over (a blank line, a line that does not parse): parent and children found by their headers', async () => {
    const { repo, folder } = setUp();
    const { b, ids } = straight();
    const parentFile = b.write(folder);
    const src = await Session.open(parentFile);
    const clone = await repo.clone(src, ids[3]);
    const fork = (await repo.fork(src, ids[4])).file;
    writeFileSync(parentFile, `\n${readFileSync(parentFile, 'utf8')}`);
    writeFileSync(clone, `\n${readFileSync(clone, 'utf8')}`);
    writeFileSync(fork, `{"type":"session",\n${readFileSync(fork, 'utf8')}`);
    const fam = await familyOf(parentFile, undefined, new SessionInfoCache(), [], undefined, counted(repo));
    assert.deepEqual(fam.children.map((c) => c.path).sort(), [clone, fork].sort());
    for (const child of [clone, fork]) {
      const s = await Session.open(child);
      assert.equal(s.header.parentSession, parentFile);
      assert.equal(
        (await familyOf(child, parentFile, new SessionInfoCache(), [], undefined, counted(repo))).parent?.path,
        parentFile,
      );
    }
  });

  it('without a scope only the known sessions are looked at', async () => {
    const { repo, folder } = setUp();
    const { b, ids } = straight();
    const src = await Session.open(b.write(folder));
    await repo.clone(src, ids[3]);
    const cache = new SpyCache();
    const fam = await familyOf(src.path!, undefined, cache);
    assert.deepEqual(fam.children, []);
    assert.deepEqual(cache.asked, []);
  });
});
