// The header of a session file (src/core/index/sessionHeader.ts): the line that decides it, a head cut
// before that line decides nothing, and the reads are bounded, stop at the deciding line and refuse what
// is not a regular file without blocking on it. pi's own answers: test/interop/sessionHeader.test.ts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findHeader, HEADER_READ_MAX, readHead, readHeader } from '../../../src/core/index/sessionHeader.js';
import { tempDir } from '../../support/tmp.js';

const HEADER = { type: 'session', version: 3, id: 'h1', timestamp: '2026-11-01T09:00:00.000Z', cwd: '/p' };
const header = JSON.stringify(HEADER);
const entry =
  '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-11-01T09:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}';

describe('findHeader', () => {
  it('the first line that parses to a truthy value decides; `end` is just after it', () => {
    const text = `\n \r\nnot json\nnull\n${header}\n${entry}\n`;
    const found = findHeader(Buffer.from(text), false)!;
    assert.deepEqual(found.header, HEADER);
    assert.equal(found.end, text.indexOf(entry));
    const no = findHeader(Buffer.from(`\n${entry}\n${header}\n`), false)!;
    assert.equal(no.header, null, 'an entry first: no session');
    assert.equal(no.end, 1 + entry.length + 1);
  });

  it('undecided while only blank and unparsable lines are there, or the deciding line is cut', () => {
    assert.equal(findHeader(Buffer.from('\n\nnot json\n'), false), undefined);
    assert.equal(findHeader(Buffer.from(`\n${header}`), false), undefined, 'the line may go on past the head');
    assert.deepEqual(
      findHeader(Buffer.from(`\n${header}`), true)?.header,
      HEADER,
      'the whole file: its last line is complete',
    );
    assert.equal(findHeader(Buffer.alloc(0), true), undefined);
  });

  it("a byte-order mark is passed over only when asked (pi-tree's reader shows such a file read-only)", () => {
    const text = Buffer.from(`\uFEFF${header}\n${entry}\n`);
    assert.equal(findHeader(text, false)?.header, null, 'to pi the mark breaks the header line');
    assert.deepEqual(findHeader(text, false, true)?.header, HEADER);
  });
});

describe('readHead and readHeader', { timeout: 60_000 }, () => {
  const dir = tempDir('pi-tree-header-');
  const file = (name: string, text: string | Buffer) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('stop at the line that decides; read at most the bound', async () => {
    const blanks = '\n'.repeat(10_000);
    const late = file('late.jsonl', `${blanks}${header}\n${entry.repeat(1)}\n${'x'.repeat(200_000)}\n`);
    const head = await readHead(late);
    assert.ok(
      head.length < HEADER_READ_MAX && head.length >= blanks.length + header.length + 1,
      `${head.length} bytes`,
    );
    assert.deepEqual(readHeader(late), HEADER);
    const garbage = file('garbage.jsonl', Buffer.alloc(3 * HEADER_READ_MAX, 0x61));
    assert.equal((await readHead(garbage)).length, HEADER_READ_MAX);
    assert.equal((await readHead(garbage, 1000)).length, 1000);
    assert.equal(readHeader(garbage), undefined);
    const beyond = file('beyond.jsonl', `${'\n'.repeat(HEADER_READ_MAX)}${header}\n`);
    assert.equal(readHeader(beyond), undefined, 'a header past the bound is not looked for');
    assert.deepEqual(readHeader(beyond, 2 * HEADER_READ_MAX), HEADER);
  });

  it('refuse a FIFO, a directory and a path that is no string, at once', async () => {
    const fifo = join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    const sub = join(dir, 'sub.jsonl');
    mkdirSync(sub);
    for (const p of [fifo, sub]) {
      assert.equal(readHeader(p), undefined);
      await assert.rejects(readHead(p), /not a regular file/);
    }
    assert.equal(
      readHeader({ href: `file://${fifo}`, protocol: 'file:' } as never),
      undefined,
      'a crafted parentSession that fs would take for a URL',
    );
    assert.equal(readHeader(join(dir, 'missing.jsonl')), undefined);
  });
});
