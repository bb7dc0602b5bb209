// The header of a session file as pi 1.6.0 finds it (SessionManager.open: the first line that parses
// to a truthy value, blank and unparsable lines passed over) against pi-tree's one rule for it
// (src/core/index/sessionHeader.ts), its bounded read of a file's header and its whole read (Session.open).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readHead, readHeader } from '../../src/core/index/sessionHeader.js';
import { Session } from '../../src/core/session/session.js';
import { piOpenCopy } from '../support/pi.js';
import { tempDir } from '../support/tmp.js';

const HEADER = {
  type: 'session',
  version: 3,
  id: '019b8f3a-0000-7000-8000-0000000000e1',
  timestamp: '2026-11-01T09:00:00.000Z',
  cwd: '/home/dev/p',
  parentSession: '/home/dev/parent.jsonl',
};
const ENTRY = {
  type: 'message',
  id: 'u0000001',
  parentId: null,
  timestamp: '2026-11-01T09:00:01.000Z',
  message: { role: 'user', content: 'hi', timestamp: 1 },
};
const header = JSON.stringify(HEADER);
const entry = JSON.stringify(ENTRY);

/** File texts and whether pi takes HEADER for their header (false: pi refuses the file). */
const CASES: [string, string, boolean][] = [
  ['as pi writes it', `${header}\n${entry}\n`, true],
  ['a blank line first', `\n${header}\n${entry}\n`, true],
  ['blank lines with spaces, tabs and "\\r" first', ` \t\r\n\r\n${header}\n${entry}\n`, true],
  ['a line that does not parse first', `{"type":"session",\n${header}\n${entry}\n`, true],
  ['NUL bytes first', `\u0000\u0000\n${header}\n${entry}\n`, true],
  ['falsy values first (null, 0, false, "")', `null\n0\nfalse\n""\n${header}\n${entry}\n`, true],
  ['the header with CRLF', `${header}\r\n${entry}\r\n`, true],
  ['the header with leading spaces', `  ${header}\n${entry}\n`, true],
  ['only the header, without "\\n"', header, true],
  ['a string first', `"hello"\n${header}\n${entry}\n`, false],
  ['an array first', `[]\n${header}\n${entry}\n`, false],
  ['an entry first', `${entry}\n${header}\n`, false],
  ['a header without a string id first', `{"type":"session","id":7}\n${header}\n${entry}\n`, false],
  ['a UTF-8 byte-order mark', `\uFEFF${header}\n${entry}\n`, false],
];

/** pi's header of `file`, or null when pi refuses it. */
async function piHeader(file: string): Promise<Record<string, unknown> | null> {
  try {
    const { sm } = await piOpenCopy(file);
    return sm.getHeader();
  } catch (e) {
    assert.match(String(e), /not a valid .* session/);
    return null;
  }
}

describe('interop with pi 1.6.0: the session header', () => {
  const dir = tempDir('pi-header-');
  CASES.forEach(([what, text, isSession], k) => {
    it(`${what}: ${isSession ? 'the header pi takes' : 'no session, as to pi'}`, async () => {
      const file = join(dir, `case-${k}.jsonl`);
      writeFileSync(file, text);
      const pi = await piHeader(file);
      assert.deepEqual(pi, isSession ? HEADER : null, 'pi');
      assert.deepEqual(readHeader(file) ?? null, pi, 'the bounded read');
      const head = await readHead(file);
      assert.ok(head.length <= Buffer.byteLength(text), 'the head read stops at the end of the file');
      if (what.includes('byte-order mark')) return; // pi-tree's whole read shows such a file read-only
      const whole = await Session.open(file).then(
        (s) => ({ ...s.header }),
        () => null,
      );
      assert.deepEqual(whole, pi, 'the whole read');
    });
  });
});
