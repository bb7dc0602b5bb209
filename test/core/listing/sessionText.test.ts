// A session's whole message text for list filters (src/core/sessionText.ts): what pi's /resume
// searches (user and assistant text, joined by spaces), read incrementally as the file grows, bounded
// per session and in total, and used by arrangeSessions so a word in any message finds the session.
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SessionInfoCache } from '../../../src/core/listing/sessionInfo.js';
import { arrangeSessions } from '../../../src/core/listing/sessionList.js';
import { SessionTextIndex } from '../../../src/core/listing/sessionText.js';
import { assistant, entry, sessionText, tempFile, user } from '../../support/tmp.js';

const toolResult = (id: string, parentId: string, text: string) => ({
  type: 'message',
  id,
  parentId,
  timestamp: '2026-11-01T09:30:00.000Z',
  message: {
    role: 'toolResult',
    toolCallId: 'c1',
    toolName: 'read',
    content: [{ type: 'text', text }],
    isError: false,
    timestamp: 1,
  },
});

describe('session message text (filters search every message, as pi does)', () => {
  it('is the text of every user and assistant message, joined by spaces; tool output and summaries are not', async () => {
    const file = tempFile(
      sessionText([
        user('u1', null, 'Make the reader stream'),
        assistant('a1', 'u1', 'Looking at it'),
        toolResult('r1', 'a1', 'SECRET tool output'),
        entry('branch_summary', 'b1', 'r1', { fromId: 'a1', summary: 'summary text' }),
        assistant('a2', 'b1', 'Use a zeppelin-shaped buffer'),
      ]),
    );
    const idx = new SessionTextIndex();
    const t = await idx.get(file);
    assert.equal(t.raw, 'Make the reader stream Looking at it Use a zeppelin-shaped buffer');
    assert.equal(t.lower.includes('zeppelin'), true);
    assert.equal(idx.get(file) instanceof Promise, true);
    assert.equal(await idx.get(file), t, 'unchanged file: the same text object (cached)');
  });

  it('reads only what was appended; a file that shrank is read again', async () => {
    const file = tempFile(sessionText([user('u1', null, 'first')]));
    const idx = new SessionTextIndex();
    assert.equal((await idx.get(file)).raw, 'first');
    appendFileSync(file, `${JSON.stringify(assistant('a1', 'u1', 'second'))}\n`);
    assert.equal((await idx.get(file)).raw, 'first second');
    // A line still being written is not text yet.
    appendFileSync(file, JSON.stringify(user('u2', 'a1', 'third')).slice(0, 40));
    assert.equal((await idx.get(file)).raw, 'first second');
    writeFileSync(file, sessionText([user('x1', null, 'rewritten')]));
    assert.equal((await idx.get(file)).raw, 'rewritten');
  });

  it('is bounded: per session and in total (least recently used sessions go first)', async () => {
    const idx = new SessionTextIndex({ perSession: 50, total: 120 });
    const long = tempFile(sessionText([user('u1', null, 'x'.repeat(200)), assistant('a1', 'u1', 'never kept')]));
    assert.equal((await idx.get(long)).raw.length, 50);
    const files = [0, 1, 2].map((i) => tempFile(sessionText([user('u1', null, `session ${i} ${'y'.repeat(30)}`)])));
    for (const f of files) await idx.get(f);
    assert.ok(idx.size <= 120, `held ${idx.size}`);
    assert.equal(idx.peek(long), undefined, 'the oldest was evicted');
    assert.ok(idx.peek(files[2]), 'the newest is kept');
    // An evicted session is simply read again when asked.
    assert.equal((await idx.get(long)).raw.length, 50);
  });

  it('a message too long to assemble still gives the text at its start', async () => {
    const big = `needle-at-start ${'z'.repeat(5 * 1024 * 1024)}`;
    const file = tempFile(
      sessionText([user('u1', null, 'short'), user('u2', 'u1', big), assistant('a1', 'u2', 'after')]),
    );
    const t = await new SessionTextIndex().get(file);
    assert.match(t.raw, /^short needle-at-start z+ after$/);
    assert.ok(t.raw.length < 100_000, 'not the whole 5 MB');
  });

  it('a filter finds a session by a word in any message, not only the first (pi /resume semantics)', async () => {
    const a = tempFile(
      sessionText([
        user('u1', null, 'Refactor the CLI'),
        assistant('a1', 'u1', 'ok'),
        user('u2', 'a1', 'now the zeppelin parser'),
      ]),
    );
    const b = tempFile(sessionText([user('u1', null, 'Fix the docs'), assistant('a1', 'u1', 'done')]));
    const cache = new SessionInfoCache();
    const infos = [(await cache.get(a))!, (await cache.get(b))!];
    const idx = new SessionTextIndex();
    const texts = new Map([
      [a, await idx.get(a)],
      [b, await idx.get(b)],
    ]);
    const found = (q: string, withText = true) =>
      arrangeSessions(infos, 'threaded', q, undefined, withText ? (i) => texts.get(i.path) : undefined).map(
        (n) => n.info.path,
      );
    assert.deepEqual(found('zeppelin'), [a]);
    assert.deepEqual(found('zeppelin', false), [], 'the first message alone does not have it');
    assert.deepEqual(found('"zeppelin parser"'), [a], 'phrases');
    assert.deepEqual(found('re:zeppelin\\s+parser'), [a], 'regex over the raw text');
    assert.deepEqual(found('done'), [b]);
    assert.deepEqual(found('nowhere'), []);
  });
});
