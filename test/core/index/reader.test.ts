import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { describe, it } from 'node:test';
import { BufferSource } from '../../../src/core/index/byteSource.js';
import { classifyLine, NotASessionError, readSession } from '../../../src/core/index/reader.js';
import { Session } from '../../../src/core/session/session.js';
import { assistant, entry, sessionText, tempFile, user } from '../../support/tmp.js';

async function openUnchanged(file: string) {
  const before = readFileSync(file);
  let result: Session | Error;
  try {
    result = await Session.open(file);
  } catch (e) {
    result = e as Error;
  }
  assert.ok(readFileSync(file).equals(before), 'opening never changes the file');
  return { result };
}

describe('reading hostile files: a clear result, the bytes unchanged', () => {
  it('empty file', async () => {
    const { result } = await openUnchanged(tempFile(''));
    assert.ok(result instanceof NotASessionError);
    assert.match(result.message, /empty/);
  });

  it('binary garbage', async () => {
    const { result } = await openUnchanged(tempFile(randomBytes(256 * 1024)));
    assert.ok(result instanceof NotASessionError, String(result));
  });

  it('header-less file (entries only)', async () => {
    const { result } = await openUnchanged(
      tempFile(
        sessionText([user('u1', null, 'x')])
          .split('\n')
          .slice(1)
          .join('\n'),
      ),
    );
    assert.ok(result instanceof NotASessionError);
    assert.match(result.message, /not a pi session header/);
  });

  it('leading garbage lines before the header are skipped with diagnostics (as pi)', async () => {
    const { result } = await openUnchanged(tempFile(`not json\n\n${sessionText([user('u1', null, 'x')])}`));
    assert.ok(result instanceof Session);
    assert.equal(result.leafId, 'u1');
    assert.deepStrictEqual(
      result.diagnostics.filter((d) => d.code === 'malformed-json').map((d) => d.line),
      [1],
    );
  });

  it('a v4 mutation log is refused with a clear message', async () => {
    const v4 = `${JSON.stringify({ kind: 'header', version: 4, id: 'x', createdAt: 1, cwd: '/' })}\n${JSON.stringify({ kind: 'entry', seq: 1 })}\n`;
    const { result } = await openUnchanged(tempFile(v4));
    assert.ok(result instanceof NotASessionError);
    assert.match(result.message, /v4/);
  });

  it('BOM and CRLF', async () => {
    const bom = await openUnchanged(
      tempFile(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(sessionText([user('u1', null, 'x')]))])),
    );
    assert.ok(bom.result instanceof Session);
    assert.ok(bom.result.diagnostics.some((d) => d.code === 'bom'));
    const crlf = await openUnchanged(
      tempFile(sessionText([user('u1', null, 'x'), assistant('a1', 'u1', 'y')]).replace(/\n/g, '\r\n')),
    );
    assert.ok(crlf.result instanceof Session);
    assert.equal(crlf.result.leafId, 'a1');
    assert.equal((await crlf.result.buildContext()).messages.length, 2);
  });

  it('malformed middle lines, non-objects, entries without ids: skipped, each named by line', async () => {
    const text =
      sessionText([user('u1', null, 'x')]) +
      'garbage{\n42\n{"type":"message"}\n' +
      `${JSON.stringify(assistant('a1', 'u1', 'y'))}\n`;
    const { result } = await openUnchanged(tempFile(text));
    assert.ok(result instanceof Session);
    assert.equal(result.leafId, 'a1');
    assert.deepStrictEqual(
      result.diagnostics.map((d) => [d.line, d.code]),
      [
        [3, 'malformed-json'],
        [4, 'not-an-object'],
        [5, 'invalid-entry'],
      ],
    );
  });

  it('a v2 line without an id is skipped and named, as in v3 (it crashed every read with a TypeError)', async () => {
    const v2 =
      sessionText([user('u1', null, 'x')]).replace('"version":3', '"version":2') +
      '{"type":"message","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[],"timestamp":2}}\n';
    const { result } = await openUnchanged(tempFile(v2));
    assert.ok(result instanceof Session);
    assert.equal(result.leafId, 'u1');
    assert.deepStrictEqual(
      result.diagnostics.filter((d) => d.severity === 'warning').map((d) => [d.line, d.code]),
      [[3, 'invalid-entry']],
    );
    assert.match(String(result.readOnly), /would drop the line/, 'no rewrite would lose it');
  });

  it('cycles, self-parents, missing parents and duplicate ids are reported and never hang', async () => {
    const text = sessionText([
      user('u1', null, 'root'),
      user('c1', 'c2', 'cycle a'),
      user('c2', 'c1', 'cycle b'),
      user('s1', 's1', 'self'),
      user('o1', 'ghost', 'orphan'),
      user('u1', 'c1', 'duplicate id'),
    ]);
    const { result } = await openUnchanged(tempFile(text));
    assert.ok(result instanceof Session);
    const codes = new Set(result.diagnostics.map((d) => d.code));
    assert.ok(codes.has('duplicate-id') && codes.has('self-parent'));
    assert.ok(result.index.hasCycles());
    assert.ok(result.diagnostics.some((d) => d.code === 'cycle'));
    const ctx = await result.buildContext();
    assert.ok(ctx.path.length <= 3, 'path walk stops at the cycle');
    const roots = result.index
      .roots()
      .map((r) => r.id)
      .sort();
    assert.ok(roots.includes('s1') && roots.includes('o1'));
    // every live entry is reachable from a root (nothing disappears from the tree)
    const seen = new Set<string>();
    const stack = [...result.index.roots()];
    while (stack.length) {
      const r = stack.pop()!;
      if (seen.has(r.id)) continue;
      seen.add(r.id);
      stack.push(...result.index.childrenOf(r.id));
    }
    assert.equal(seen.size, result.index.size);
  });

  it('a 60 MB single line is read', async () => {
    const big = 'x'.repeat(60 * 1024 * 1024);
    const text = sessionText([user('u1', null, 'x'), { ...assistant('a1', 'u1', big) }]);
    const { result } = await openUnchanged(tempFile(text));
    assert.ok(result instanceof Session);
    assert.equal(result.leafId, 'a1');
    const ctx = await result.buildContext();
    assert.equal((ctx.messages[1].content as { text: string }[])[0].text.length, big.length);
  });

  it('a line longer than the limit is skipped with a diagnostic, not assembled', async () => {
    const src = new BufferSource(() =>
      Buffer.from(sessionText([user('u1', null, 'x'), assistant('a1', 'u1', 'y'.repeat(5000)), user('u2', 'u1', 'z')])),
    );
    const loaded = await readSession(src, { maxLineBytes: 1000 });
    assert.ok(loaded.index.diagnostics.some((d) => d.code === 'line-too-long' && d.line === 3));
    assert.equal(loaded.index.leafId, 'u2');
  });

  it('a 200k-deep chain opens, walks and builds context without recursion limits', async () => {
    const file = tempFile('');
    const fd = openSync(file, 'w');
    writeSync(fd, sessionText([]));
    let parent: string | null = null;
    let chunk = '';
    for (let i = 0; i < 200_000; i++) {
      const id = i.toString(16).padStart(8, '0');
      chunk += `{"type":"message","id":"${id}","parentId":${parent ? `"${parent}"` : 'null'},"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"m${i}","timestamp":1}}\n`;
      parent = id;
      if (chunk.length > 1 << 20) {
        writeSync(fd, chunk);
        chunk = '';
      }
    }
    writeSync(fd, chunk);
    closeSync(fd);
    const { result } = await openUnchanged(file);
    assert.ok(result instanceof Session);
    assert.equal(result.index.size, 200_000);
    assert.equal(result.index.branch(result.leafId).length, 200_000);
    assert.equal(result.index.roots().length, 1);
    assert.ok(!result.index.hasCycles());
    const ctx = await result.buildContext();
    assert.equal(ctx.messages.length, 200_000);
  });

  it('a 500 MB file is streamed: opened and its context built without holding the file in memory', async () => {
    const file = tempFile('');
    const fd = openSync(file, 'w');
    writeSync(fd, sessionText([]));
    const body = 'x'.repeat(10_000);
    let parent: string | null = null;
    let written = 0;
    for (let i = 0; written < 500 * 1024 * 1024; i++) {
      let chunk = '';
      for (let k = 0; k < 100; k++, i++) {
        const id = i.toString(16).padStart(8, '0');
        chunk += `{"type":"message","id":"${id}","parentId":${parent ? `"${parent}"` : 'null'},"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"toolResult","toolCallId":"t","toolName":"read","content":[{"type":"text","text":"${body}"}],"isError":false,"timestamp":1}}\n`;
        parent = id;
      }
      // a compaction now and then keeps the model context (which is built whole) realistic
      const cid = `c${i.toString(16).padStart(7, '0')}`;
      chunk += `{"type":"compaction","id":"${cid}","parentId":"${parent}","timestamp":"2026-01-01T00:00:00.000Z","summary":"s","firstKeptEntryId":"${parent}","tokensBefore":1}\n`;
      parent = cid;
      written += writeSync(fd, chunk);
    }
    closeSync(fd);
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    try {
      const s = await Session.open(file);
      const ctx = await s.buildContext();
      assert.ok(s.index.size > 50_000);
      assert.equal(ctx.messages[0].role, 'compactionSummary');
    } finally {
      clearInterval(timer);
    }
    const grew = (peak - rss0) / 1024 / 1024;
    assert.ok(
      grew < 200,
      `peak memory grew by ${grew.toFixed(0)} MB for a ${(written / 1024 / 1024).toFixed(0)} MB file`,
    );
  });

  it('fast path and full parse agree on message lines', () => {
    const e = assistant('abcd1234', 'ffff0000', 'hello "quoted" \\ text');
    const line = Buffer.from(JSON.stringify(e));
    const fast = classifyLine(line, 0, line.length, 7, 100, []);
    assert.equal(fast?.entry, undefined, 'pi-shaped message lines take the fast path');
    const reordered = Buffer.from(JSON.stringify({ message: e.message, ...e }));
    const slow = classifyLine(reordered, 0, reordered.length, 7, 100, []);
    assert.deepStrictEqual({ ...fast, entry: undefined, length: 0 }, { ...slow, entry: undefined, length: 0 });
    const weird = Buffer.from(
      JSON.stringify(entry('message', 'a"b', null, { message: { role: 'user', content: 'x' } })),
    );
    assert.equal(classifyLine(weird, 0, weird.length, 1, 0, [])?.id, 'a"b');
  });
});
