import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { EntryNotFoundError, Session } from '../../../src/core/session/session.js';
import { FileChangedError, JsonlStorage, MemoryStorage } from '../../../src/core/session/storage.js';
import { assistant, entry, lines, sessionText, tempFile, user } from '../../support/tmp.js';

const base = () => [
  user('u1', null, 'one'),
  assistant('a1', 'u1', 'r1'),
  user('u2', 'a1', 'two'),
  assistant('a2', 'u2', 'r2'),
];

describe('Session appends', () => {
  it('chains parentIds from the leaf and advances it; ids are 8 hex and unique', async () => {
    const file = tempFile(sessionText([]));
    const s = await Session.open(file);
    assert.equal(s.leafId, null);
    const id1 = await s.appendMessage({ role: 'user', content: 'a', timestamp: 1 });
    const id2 = await s.appendMessage({ role: 'assistant', content: [], timestamp: 2 });
    assert.match(id1, /^[0-9a-f]{8}$/);
    assert.notEqual(id1, id2);
    const ls = lines(file);
    assert.equal(ls[1].parentId, null);
    assert.equal(ls[2].parentId, id1);
    assert.equal(s.leafId, id2);
    assert.deepStrictEqual(Object.keys(ls[1]), ['type', 'id', 'parentId', 'timestamp', 'message']);
    assert.ok(readFileSync(file, 'utf8').endsWith('}\n'));
  });

  it('writes a missing final newline before appending (the torn fragment stays a skipped line)', async () => {
    const file = tempFile(sessionText(base()) + '{"type":"message","id":"zz');
    const s = await Session.open(file);
    assert.equal(s.leafId, 'a2');
    assert.ok(s.diagnostics.some((d) => d.code === 'torn-last-line'));
    await s.setName('named');
    const text = readFileSync(file, 'utf8');
    assert.ok(text.includes('"id":"zz\n{"type":"session_info"'));
    const again = await Session.open(file);
    assert.equal(again.name, 'named');
    assert.ok(again.diagnostics.some((d) => d.code === 'malformed-json'));
  });

  it('an entry another writer appends between the read and the append is the new parent (the change is built again)', async () => {
    // pi (which takes no lock) appends its answer right after pi-tree read the file for this change
    class PiWritesFirst extends MemoryStorage {
      piLine: string | undefined = `${JSON.stringify(assistant('p1', 'a2', 'from pi'))}\n`;
      override async append(text: string, expectedSize?: number): Promise<void> {
        if (this.piLine) {
          await super.append(this.piLine);
          this.piLine = undefined;
        }
        return super.append(text, expectedSize);
      }
    }
    const storage = new PiWritesFirst(sessionText(base()));
    const s = await Session.fromStorage(storage);
    await s.setName('named');
    const ls = storage
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepStrictEqual(
      ls.slice(-2).map((e) => [e.type, e.id === 'p1' ? 'p1' : e.parentId]),
      [
        ['message', 'p1'],
        ['session_info', 'p1'],
      ],
      "the name hangs off pi's answer, not the leaf pi-tree read first",
    );
    assert.equal(s.leafId, ls[ls.length - 1].id);
  });

  it('concurrent calls are serialized; each parent is the previous entry', async () => {
    const file = tempFile(sessionText(base()));
    const s = await Session.open(file);
    const ids = await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.appendMessage({ role: 'user', content: `m${i}`, timestamp: i })),
    );
    const ls = lines(file).slice(5);
    assert.equal(ls.length, 20);
    ls.forEach((e, i) => assert.equal(e.parentId, i === 0 ? 'a2' : ids[i - 1]));
  });

  it('a failed write rejects that call only and does not block later ones', async () => {
    const storage = new MemoryStorage(sessionText(base()));
    const s = await Session.fromStorage(storage);
    storage.failNextAppend = new Error('disk full');
    const p1 = s.setLabel('u1', 'x');
    const p2 = s.setName('after');
    await assert.rejects(p1, /disk full/);
    await p2;
    assert.equal(s.name, 'after');
    assert.equal(s.index.labels.size, 0);
    const last = JSON.parse(storage.text().trim().split('\n').pop()!);
    assert.equal(last.parentId, 'a2', 'the failed label left no trace: the name hangs under the old leaf');
  });

  it('follows what another writer appended before its own append', async () => {
    const file = tempFile(sessionText(base()));
    const s = await Session.open(file);
    appendFileSync(file, `${JSON.stringify(user('x1', 'a2', 'from pi'))}\n`);
    await s.appendMessage({ role: 'assistant', content: [], timestamp: 1 });
    const ls = lines(file);
    assert.equal(ls[ls.length - 1].parentId, 'x1');
    const changes: string[] = [];
    s.onChange((c) => changes.push(c.kind));
    appendFileSync(file, `${JSON.stringify(user('x2', ls[ls.length - 1].id as string, 'more'))}\n`);
    const c = await s.refresh();
    assert.equal(c?.kind, 'appended');
    assert.equal(s.leafId, 'x2');
    assert.deepStrictEqual(changes, ['appended']);
  });
});

describe('labels and names', () => {
  it('set, last wins, clear with empty or absent, unknown target throws; labels hang under the leaf', async () => {
    const file = tempFile(sessionText(base()));
    const s = await Session.open(file);
    await s.setLabel('u1', 'first');
    await s.setLabel('u1', '  second ');
    assert.equal(s.index.labels.get('u1')?.label, 'second');
    const ls = lines(file);
    assert.deepStrictEqual(Object.keys(ls[ls.length - 1]), [
      'type',
      'id',
      'parentId',
      'timestamp',
      'targetId',
      'label',
    ]);
    assert.equal(ls[ls.length - 2].parentId, 'a2');
    await s.setLabel('u1', '');
    assert.equal(s.index.labels.has('u1'), false);
    assert.equal('label' in lines(file).pop()!, false, 'clearing omits the key, as pi does for undefined');
    await assert.rejects(s.setLabel('nope', 'x'), EntryNotFoundError);
    const again = await Session.open(file);
    assert.equal(again.index.labels.has('u1'), false);
  });

  it('session name: newlines become spaces, trimmed, empty clears; last session_info wins', async () => {
    const file = tempFile(sessionText(base()));
    const s = await Session.open(file);
    await s.setName(' my\nsession\r\n name ');
    assert.equal(s.name, 'my session  name', 'exactly pi: each newline run becomes one space');
    assert.equal(lines(file).pop()!.name, 'my session  name');
    await s.setName('   ');
    assert.equal(s.name, undefined);
  });
});

describe('leaf records (moveTo)', () => {
  it('jump and continue: the record hangs under the target, the next entry continues from the target', async () => {
    const file = tempFile(sessionText(base()));
    const s = await Session.open(file);
    const r = await s.moveTo('a1');
    assert.equal(r.moved, true);
    assert.equal(s.leafId, 'a1');
    const rec = lines(file).pop()!;
    assert.deepStrictEqual(rec, {
      type: 'leaf',
      id: r.leafRecordId,
      parentId: 'a1',
      timestamp: rec.timestamp,
      targetId: 'a1',
      fromId: 'a2',
    });
    const id = await s.appendMessage({ role: 'user', content: 'new branch', timestamp: 3 });
    assert.equal(lines(file).pop()!.parentId, 'a1');
    assert.equal((await Session.open(file)).leafId, id);
    assert.deepStrictEqual(
      s.index
        .childrenOf('a1')
        .map((x) => x.id)
        .filter((x) => x !== r.leafRecordId),
      ['u2', id],
    );
  });

  it('a file ending on a jump resumes at the target', async () => {
    const file = tempFile(sessionText(base()));
    await (await Session.open(file)).moveTo('u1');
    const s = await Session.open(file);
    assert.equal(s.leafId, 'u1');
    assert.deepStrictEqual((await s.buildContext()).path, ['u1']);
  });

  it('jump to root: targetId null, next entry is a new root', async () => {
    const file = tempFile(sessionText(base()));
    const s = await Session.open(file);
    await s.moveTo(null);
    assert.equal(s.leafId, null);
    const rec = lines(file).pop()!;
    assert.equal(rec.parentId, null);
    assert.equal(rec.targetId, null);
    assert.equal((await Session.open(file)).leafId, null);
    const id = await s.appendMessage({ role: 'user', content: 'fresh', timestamp: 5 });
    assert.equal(lines(file).pop()!.parentId, null);
    assert.deepStrictEqual((await s.buildContext()).path, [id]);
  });

  it('branch summary after a jump: under the target, fromId = old leaf, leaf = summary', async () => {
    const file = tempFile(sessionText(base()));
    const s = await Session.open(file);
    const r = await s.moveTo('a1', {
      summary: 'SUM',
      details: { readFiles: ['a'], modifiedFiles: [] },
      fromHook: false,
    });
    const [leaf, bs] = lines(file).slice(-2);
    assert.equal(leaf.type, 'leaf');
    assert.deepStrictEqual(Object.keys(bs), [
      'type',
      'id',
      'parentId',
      'timestamp',
      'fromId',
      'summary',
      'details',
      'fromHook',
    ]);
    assert.equal(bs.parentId, 'a1');
    assert.equal(bs.fromId, 'a2');
    assert.equal(s.leafId, r.summaryId);
    const ctx = await s.buildContext();
    assert.deepStrictEqual(
      ctx.messages.map((m) => m.role),
      ['user', 'assistant', 'branchSummary'],
    );
  });

  it('two jumps in a row: the last one wins, on reload too', async () => {
    const file = tempFile(sessionText(base()));
    const s = await Session.open(file);
    await s.moveTo('u1');
    await s.moveTo('u2');
    assert.equal(s.leafId, 'u2');
    const recs = lines(file).slice(-2);
    assert.equal(recs[0].fromId, 'a2');
    assert.equal(recs[1].fromId, 'u1');
    assert.equal((await Session.open(file)).leafId, 'u2');
  });

  it('jumping to where the leaf already is writes nothing; unknown targets throw', async () => {
    const file = tempFile(sessionText(base()));
    const before = readFileSync(file);
    const s = await Session.open(file);
    assert.equal((await s.moveTo('a2')).moved, false);
    await assert.rejects(s.moveTo('missing'), /Entry missing not found/);
    assert.deepStrictEqual(readFileSync(file), before);
  });

  it('reads harness-style leaf records (parent = old leaf) by their targetId', async () => {
    const s = await Session.inMemory(sessionText([...base(), entry('leaf', 'lf1', 'a2', { targetId: 'u1' })]));
    assert.equal(s.leafId, 'u1');
    const s2 = await Session.inMemory(
      sessionText([...base(), entry('leaf', 'lf1', 'a2', { targetId: 'u1' }), user('u9', 'u1', 'x')]),
    );
    assert.equal(s2.leafId, 'u9');
    const s3 = await Session.inMemory(sessionText([...base(), entry('leaf', 'lf1', 'a2', { targetId: 'ghost' })]));
    assert.equal(s3.leafId, 'a2');
    assert.ok(s3.diagnostics.some((d) => d.code === 'leaf-target-missing'));
  });
});

describe('migration on first write', () => {
  it('a v1 file is read in memory, rewritten atomically as v3 on the first change, original kept', async () => {
    const v1 = [
      JSON.stringify({ type: 'session', id: 'old-1', timestamp: '2025-01-01T00:00:00.000Z', cwd: '/p' }),
      JSON.stringify({
        type: 'message',
        timestamp: '2025-01-01T00:00:01.000Z',
        message: { role: 'user', content: 'hi', timestamp: 1 },
      }),
      JSON.stringify({
        type: 'message',
        timestamp: '2025-01-01T00:00:02.000Z',
        message: { role: 'hookMessage', content: 'x', timestamp: 2 },
      }),
      JSON.stringify({
        type: 'compaction',
        timestamp: '2025-01-01T00:00:03.000Z',
        summary: 'S',
        firstKeptEntryIndex: 1,
        tokensBefore: 9,
      }),
      '',
    ].join('\n');
    const file = tempFile(v1);
    const s = await Session.open(file);
    assert.equal(s.legacy, true);
    assert.deepStrictEqual(readFileSync(file, 'utf8'), v1, 'opening never writes');
    const ids = s.index.live().map((r) => r.id);
    assert.deepStrictEqual(
      (await Session.open(file)).index.live().map((r) => r.id),
      ids,
      'in-memory ids are stable across loads',
    );
    await s.setName('migrated');
    assert.equal(readFileSync(`${file}.v1.bak`, 'utf8'), v1);
    const ls = lines(file);
    assert.equal(ls[0].version, 3);
    assert.deepStrictEqual(Object.keys(ls[0]), ['type', 'id', 'timestamp', 'cwd', 'version']);
    assert.deepStrictEqual(Object.keys(ls[1]), ['type', 'timestamp', 'message', 'id', 'parentId']);
    assert.equal(ls[1].parentId, null);
    assert.equal(ls[2].parentId, ls[1].id);
    assert.equal((ls[2].message as { role: string }).role, 'custom');
    assert.equal(ls[3].firstKeptEntryId, ls[1].id);
    assert.equal('firstKeptEntryIndex' in ls[3], false);
    assert.equal(ls[4].type, 'session_info');
    assert.equal(ls[4].parentId, ls[3].id);
    assert.equal(s.legacy, false);
    assert.equal(existsSync(`${file}.v1.bak.1`), false);
  });

  const v1Text = (...extra: string[]) =>
    [
      JSON.stringify({ type: 'session', id: 'old-1', timestamp: '2025-01-01T00:00:00.000Z', cwd: '/p' }),
      JSON.stringify({
        type: 'message',
        timestamp: '2025-01-01T00:00:01.000Z',
        message: { role: 'user', content: 'hi', timestamp: 1 },
      }),
      ...extra,
      JSON.stringify({
        type: 'message',
        timestamp: '2025-01-01T00:00:02.000Z',
        message: { role: 'assistant', content: [], timestamp: 2 },
      }),
      '',
    ].join('\n');

  it('a v1 file is not rewritten by a change that is refused or has nothing to write', async () => {
    const v1 = v1Text();
    const file = tempFile(v1);
    const s = await Session.open(file);
    await assert.rejects(s.setLabel('deadbeef', 'x'), EntryNotFoundError);
    await assert.rejects(s.moveTo('deadbeef'), EntryNotFoundError);
    assert.deepStrictEqual(await s.moveTo(s.leafId), { moved: false, leafId: s.leafId });
    assert.equal(readFileSync(file, 'utf8'), v1, 'the file is as it was');
    assert.equal(existsSync(`${file}.v1.bak`), false, 'no backup: nothing was rewritten');
    assert.equal(s.legacy, true);
  });

  it('a v1 file with lines pi-tree cannot read is not rewritten (they would be dropped): the change is refused, naming them', async () => {
    const v1 = v1Text('{"type":"message", garbage', '[1, 2]');
    const file = tempFile(v1);
    const s = await Session.open(file);
    assert.match(
      s.readOnly ?? '',
      /rewritten in format v3 on its first change, which would drop the lines pi-tree cannot read \(3, 4\)/,
    );
    await assert.rejects(s.setName('x'), /read-only/);
    assert.equal(readFileSync(file, 'utf8'), v1);
    assert.equal(existsSync(`${file}.v1.bak`), false);
  });

  it('read-only files refuse writes and stay unchanged (BOM, future version)', async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(sessionText(base()))]);
    const f1 = tempFile(bom);
    const s1 = await Session.open(f1);
    assert.equal(s1.leafId, 'a2');
    assert.ok(s1.readOnly);
    await assert.rejects(s1.setName('x'), /read-only/);
    assert.deepStrictEqual(readFileSync(f1), bom);
    const f2 = tempFile(
      sessionText(base(), { type: 'session', version: 7, id: 'x', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' }),
    );
    const s2 = await Session.open(f2);
    assert.ok(s2.readOnly);
    await assert.rejects(s2.moveTo('u1'), /read-only/);
  });

  it('a file rewritten under an open session is read again', async () => {
    const file = tempFile(sessionText(base()));
    const s = await Session.open(file);
    writeFileSync(file, sessionText([user('n1', null, 'new content')]));
    const c = await s.refresh();
    assert.equal(c?.kind, 'reloaded');
    assert.equal(s.leafId, 'n1');
  });
});

describe('file storage', () => {
  it('an append to a file that is not the size read writes nothing and says so (FileChangedError)', async () => {
    const text = sessionText(base());
    const file = tempFile(text);
    const storage = new JsonlStorage(file);
    await assert.rejects(storage.append('{"x":1}\n', text.length - 1), FileChangedError);
    assert.equal(readFileSync(file, 'utf8'), text);
    await storage.append('{"x":1}\n', Buffer.byteLength(text));
    assert.equal(readFileSync(file, 'utf8'), `${text}{"x":1}\n`);
  });
});
