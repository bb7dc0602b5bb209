// The listing's reader (src/core/infoRead.ts): lines far longer than its 1 MiB reads (their first bytes
// and last bytes, split across reads, give the row), a huge last line without "\n", a file appended to
// by another process while it is listed again and again (every row is pi's row for the bytes it saw),
// and the event loop's turns while thousands of lines are read.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, openSync, readSync, closeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { encodeCwd, SessionRepository } from '../../../src/core/session/repository.js';
import { SessionInfoCache, type SessionInfo } from '../../../src/core/listing/sessionInfo.js';
import { loadPi } from '../../support/pi.js';
import { assistant, entry, sessionText, tempDir, tempFile, user } from '../../support/tmp.js';
import { countTurns } from '../../support/loopTurns.js';

const MiB = 1024 * 1024;
const HEADER = {
  type: 'session',
  version: 3,
  id: '01990000-0000-7000-8000-0000000000aa',
  timestamp: '2026-11-01T09:00:00.000Z',
  cwd: '/work/long',
};

/** A message line of exactly `length` bytes (its text padded), ending `"timestamp":<t>}}`. */
function lineOf(
  role: 'user' | 'assistant' | 'toolResult',
  id: string,
  text: string,
  t: number,
  length: number,
): string {
  const make = (pad: number) =>
    JSON.stringify({
      type: 'message',
      id,
      parentId: null,
      timestamp: new Date(t).toISOString(),
      message: { role, content: [{ type: 'text', text: text + 'x'.repeat(pad) }], timestamp: t },
    });
  return make(length - Buffer.byteLength(make(0)));
}

describe('listing reader', { timeout: 120_000 }, () => {
  it('lines longer than a read: counted, first message from their head, time from a tail split across reads', async () => {
    const h = `${JSON.stringify(HEADER)}\n`;
    const t1 = Date.UTC(2026, 10, 1, 9, 1);
    const t2 = Date.UTC(2026, 10, 1, 9, 2);
    const first = `${lineOf('user', 'u1', 'A huge paste \\ "quoted" é', t1, 3 * MiB)}\n`;
    // The assistant line ends 20 bytes after a multiple of the 1 MiB read size: its tail (the time) is
    // read in two pieces.
    const start = Buffer.byteLength(h + first);
    const second = `${lineOf('assistant', 'a1', 'long answer', t2, 3 * MiB + 20 - (start % MiB))}\n`;
    assert.equal((start + second.length - 1) % MiB, 20, 'the newline lies 20 bytes into a read');
    const rest = sessionText(
      [entry('session_info', 'n1', 'a1', { name: 'after the long lines' }), user('u2', 'n1', 'small one')],
      HEADER,
    )
      .split('\n')
      .slice(1)
      .join('\n');
    const file = tempFile(h + first + second + rest);
    const cache = new SessionInfoCache();
    const info = (await cache.get(file))!;
    assert.equal(info.messageCount, 3);
    assert.match(info.firstMessage, /^A huge paste \\ "quoted" éxxx/);
    assert.ok(info.firstMessage.length < 70_000, 'the first message is cut at the head kept (64 KiB)');
    assert.equal(info.name, 'after the long lines');
    const u2 = JSON.parse(rest.split('\n')[1]) as { message: { timestamp: number } };
    assert.equal(info.modified.getTime(), Math.max(t2, u2.message.timestamp));
    // the oversize assistant line alone dates the row when it is the newest
    const only = tempFile(h + first + second);
    assert.equal((await cache.get(only))!.modified.getTime(), t2);
  });

  it('a huge last line without "\\n": counted as it is, not read again when the file grows', async () => {
    const t = Date.UTC(2026, 10, 1, 9, 3);
    const big = lineOf('toolResult', 't1', 'output', t, 2 * MiB + 123);
    const file = tempFile(`${JSON.stringify(HEADER)}\n${JSON.stringify(user('u1', null, 'hi'))}\n${big.slice(0, -40)}`);
    const cache = new SessionInfoCache();
    assert.equal((await cache.get(file))!.messageCount, 2);
    appendFileSync(file, `${big.slice(-40)}\n${JSON.stringify(user('u2', 't1', 'next'))}\n`);
    const grown = (await cache.get(file))!;
    assert.equal(grown.messageCount, 3, 'the huge line once, then the new message');
    assert.equal(grown.firstMessage, 'hi');
  });

  it('a file appended to while it is listed: every row is pi’s row for the bytes it saw', async () => {
    const agentDir = tempDir('agent-');
    const dir = join(agentDir, 'sessions', encodeCwd(HEADER.cwd));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, '2026-11-01T09-00-00-000Z_01990000-0000-7000-8000-0000000000aa.jsonl');
    writeFileSync(file, `${JSON.stringify(HEADER)}\n`);
    const { SessionManager } = await loadPi();
    // Another process appends 800 entries, each in two writes (a torn line until the second lands),
    // some of them long (60 KB: the file crosses the reader's 1 MiB reads), one every few ms at most.
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs'); const f = process.argv[1]; let i = 0, parent = null;
         const step = () => {
           if (i >= 800) return;
           const t = Date.UTC(2026, 10, 1, 10) + i * 1000;
           const role = ['user', 'assistant', 'toolResult'][i % 3];
           const text = (i % 50 === 7 ? 'L'.repeat(60000) : 'w'.repeat(i % 200)) + ' #' + i;
           const e = i % 97 === 5 ? { type: 'session_info', id: 'n' + i, parentId: parent, timestamp: new Date(t).toISOString(), name: 'name ' + i }
             : { type: 'message', id: 'e' + i, parentId: parent, timestamp: new Date(t).toISOString(), message: { role, content: [{ type: 'text', text }], timestamp: t } };
           const line = JSON.stringify(e) + '\\n'; const cut = Math.floor(line.length / 2);
           fs.appendFileSync(f, line.slice(0, cut));
           setImmediate(() => { fs.appendFileSync(f, line.slice(cut)); parent = e.id; i++; setTimeout(step, 2 + (i % 5)); });
         };
         step();`,
        file,
      ],
      { stdio: 'ignore' },
    );
    const done = new Promise<void>((resolve) => writer.on('exit', () => resolve()));
    let finished = false;
    void done.then(() => (finished = true));
    const repo = new SessionRepository({ agentDir, env: {}, cache: new SessionInfoCache() });
    const prefixDir = tempDir('prefix-');
    const checkAgainstPi = async (info: SessionInfo) => {
      // The bytes the row was read from (the file only grows): pi's row for them must be the same.
      const copy = join(prefixDir, 'prefix.jsonl');
      const bytes = Buffer.alloc(info.size);
      const fd = openSync(file, 'r');
      readSync(fd, bytes, 0, info.size, 0);
      closeSync(fd);
      writeFileSync(copy, bytes);
      const [theirs] = (await SessionManager.list(HEADER.cwd, prefixDir)) as {
        name?: string;
        messageCount: number;
        firstMessage: string;
        modified: Date;
      }[];
      assert.deepEqual(
        {
          name: info.name,
          messageCount: info.messageCount,
          firstMessage: info.firstMessage,
          modified: info.modified.getTime(),
        },
        {
          name: theirs.name,
          messageCount: theirs.messageCount,
          firstMessage: theirs.firstMessage,
          modified: theirs.modified.getTime(),
        },
        `at ${info.size} bytes`,
      );
    };
    let rounds = 0;
    let grew = 0;
    let last = 0;
    while (!finished) {
      const [info] = await repo.list(HEADER.cwd);
      rounds++;
      if (info.size !== last) grew++;
      last = info.size;
      await checkAgainstPi(info);
    }
    await done;
    const [final] = await repo.list(HEADER.cwd);
    await checkAgainstPi(final);
    assert.equal(final.messageCount, 800 - 9); // less the names (i % 97 === 5)
    assert.ok(grew >= 5 && rounds >= 5, `listed while it grew (${rounds} listings, ${grew} saw it grown)`);
  });

  it('gives the event loop turns while it reads (a shared extension host)', async () => {
    const agentDir = tempDir('agent-');
    const dir = join(agentDir, 'sessions', encodeCwd(HEADER.cwd));
    mkdirSync(dir, { recursive: true });
    const body = Array.from(
      { length: 400 },
      (_, i) =>
        `${JSON.stringify(i % 2 ? assistant(`a${i}`, null, 'x'.repeat(400)) : user(`u${i}`, null, 'y'.repeat(400)))}\n`,
    ).join('');
    for (let f = 0; f < 200; f++)
      writeFileSync(
        join(dir, `2026-11-01T09-00-00-000Z_0199000${String(f).padStart(5, '0')}.jsonl`),
        `${JSON.stringify({ ...HEADER, id: `s${f}` })}\n${body}`,
      );
    const turns = countTurns();
    const list = await new SessionRepository({ agentDir, env: {}, cache: new SessionInfoCache() }).list(HEADER.cwd);
    turns.stop();
    assert.equal(list.length, 200);
    assert.equal(list[0].messageCount, 400);
    // ~36 MB of lines take far longer than one 10 ms slice, so the listing yielded between slices
    assert.ok(turns.count >= 2, `event-loop turns during the listing: ${turns.count}`);
  });
});
