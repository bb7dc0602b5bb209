// The sidebar's rows against pi's own /resume list (SessionManager.list, pi 1.6.0) on damaged sessions:
// torn lines (a crash mid-append, then more appended), garbage and NUL bytes, message lines broken after
// a valid head, duplicate and escaped keys, entries without content, CRLF, blank lines, a last line
// without "\n" (complete or cut), forks, and long lines across the reader's 1 MiB reads. Every fact a
// row shows must be pi's. (Shapes that make pi drop a whole file — a message without a message object,
// a non-string name — are left out: pi throws on them, a row does not.)
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { encodeCwd, SessionRepository } from '../../src/core/session/repository.js';
import { SessionInfoCache, type SessionInfo } from '../../src/core/listing/sessionInfo.js';
import { generateSession, mulberry32 } from '../support/generate.js';
import { loadPi } from '../support/pi.js';
import { tempDir } from '../support/tmp.js';

const CWD = '/home/dev/damaged';

type Line = Buffer;

/** Garbage that never holds "\r" (pi's line reader splits on a lone "\r"; pi-tree, like pi's writer, on "\n" only). */
function garbage(rnd: () => number, n: number): Buffer {
  const pool = Buffer.from('{}[]":,\\ \u0000\u0001\u00ff\u0080tnfx0-9e.');
  return Buffer.from(Array.from({ length: n }, () => pool[Math.floor(rnd() * pool.length)]));
}

const msg = (id: string, parentId: string | null, ts: string, message: Record<string, unknown>) =>
  Buffer.from(JSON.stringify({ type: 'message', id, parentId, timestamp: ts, message }));

/** One session's lines, damaged by the seed. */
function damaged(seed: number): { lines: Line[]; header: Record<string, unknown> } {
  const rnd = mulberry32(seed);
  const big = seed % 5 === 0; // long tool outputs: the file crosses the reader's 1 MiB reads
  const g = generateSession({
    seed,
    entries: big ? 400 : 30 + (seed % 40),
    cwd: CWD,
    largeOutputRate: big ? 0.6 : 0.05,
    start: Date.UTC(2026, 10, 1) + seed * 3_600_000,
  });
  const header = { ...g.header };
  if (seed % 7 === 3) header.parentSession = `/somewhere/parent-${seed}.jsonl`;
  const lines: Line[] = [Buffer.from(JSON.stringify(header)), ...g.entries.map((e) => Buffer.from(JSON.stringify(e)))];
  // Before the header: values pi skips (falsy), or one that makes the file no session (a truthy non-header).
  if (seed % 13 === 0) lines.unshift(Buffer.from('null'), Buffer.from('0'), Buffer.from('""'));
  if (seed % 17 === 0) lines.unshift(Buffer.from('"not a header"'));
  const late = new Date(Date.UTC(2027, 0, 1) + seed * 1000).toISOString();
  const ops = 1 + Math.floor(rnd() * 6);
  for (let k = 0; k < ops; k++) {
    const first = lines.findIndex((l) => l[0] === 0x7b) + 1; // damage after the header
    const at = first + Math.floor(rnd() * (lines.length - first));
    const op = Math.floor(rnd() * 14);
    const l = lines[at];
    switch (op) {
      case 0: // torn: cut mid-line, the next line appended right after it
        if (at + 1 < lines.length)
          lines.splice(at, 2, Buffer.concat([l.subarray(0, Math.floor(rnd() * l.length)), lines[at + 1]]));
        break;
      case 1:
        lines.splice(at, 0, garbage(rnd, 1 + Math.floor(rnd() * 300)));
        break;
      case 2: // a block of NULs where a line was (a crash before the data reached the disk)
        lines[at] = Buffer.alloc(l.length);
        break;
      case 3: {
        // one byte of the body broken after a valid head
        const b = Buffer.from(l);
        const i = Math.min(b.length - 3, 90 + Math.floor(rnd() * Math.max(1, b.length - 90)));
        if (i > 0) b[i] = Buffer.from('"\\\u0001}{,')[Math.floor(rnd() * 6)];
        lines[at] = b;
        break;
      }
      case 4: // a duplicate "type" key: JSON.parse keeps the last
        lines.splice(
          at,
          0,
          Buffer.from(
            `{"type":"label","id":"dup${k}","parentId":null,"timestamp":"${late}","targetId":"x","type":"message","message":{"role":"user","content":"duplicate type ${seed}","timestamp":${Date.parse(late)}}}`,
          ),
        );
        lines.splice(
          at,
          0,
          Buffer.from(
            `{"type":"message","id":"dm${k}","parentId":null,"timestamp":"${late}","message":{"role":"user","content":"then a label"},"type":"label"}`,
          ),
        );
        break;
      case 5: // escaped keys and types
        lines.splice(
          at,
          0,
          Buffer.from(
            `{"type":"sess\\u0069on_info","id":"n${k}","parentId":null,"timestamp":"${late}","name":"escaped ${seed}"}`,
          ),
        );
        lines.splice(
          at,
          0,
          Buffer.from(
            `{"type":"message","id":"er${k}","parentId":null,"timestamp":"${late}","message":{"role":"assistant","r\\u006fle":"user","content":"x","timestamp":${Date.parse(late) + 5}}}`,
          ),
        );
        break;
      case 6: // an assistant message without content: counted, no activity (pi's isMessageWithContent)
        lines.splice(at, 0, msg(`nc${k}`, null, late, { role: 'assistant', timestamp: Date.parse(late) + 99_000 }));
        break;
      case 7:
        lines[at] = Buffer.concat([l, Buffer.from('\r')]); // CRLF
        break;
      case 8:
        lines.splice(at, 0, Buffer.from(''), Buffer.from(' \t'));
        break;
      case 9: // names: set, blank (clears), set again
        lines.splice(
          at,
          0,
          Buffer.from(
            JSON.stringify({
              type: 'session_info',
              id: `s${k}`,
              parentId: null,
              timestamp: late,
              name: rnd() < 0.3 ? '  ' : ` name ${seed}.${k} `,
            }),
          ),
        );
        break;
      case 10: // times as strings, entry times invalid, empty content then a first message
        lines.splice(at, 0, msg(`t${k}`, null, 'not a time', { role: 'user', content: '', timestamp: 'soon' }));
        lines.splice(
          at,
          0,
          msg(`u${k}`, null, late, {
            role: 'user',
            content: [{ type: 'image' }, { type: 'text', text: `late ${seed}` }],
            timestamp: `${late}`,
          }),
        );
        break;
      case 11: // a message line of ~60 KB (still assembled: under the 64 KiB limit)
        lines.splice(
          at,
          0,
          msg(`w${k}`, null, late, {
            role: 'toolResult',
            toolCallId: 'x',
            content: [{ type: 'text', text: 'w'.repeat(60_000) }],
            timestamp: 1,
          }),
        );
        break;
      case 12: // other entry types in other shapes
        lines.splice(
          at,
          0,
          Buffer.from(
            `{"id":"o${k}","type":"message","parentId":null,"timestamp":"${late}","message":{"content":"key order","role":"user"}}`,
          ),
        );
        lines.splice(
          at,
          0,
          Buffer.from(
            `{"type":"custom","id":"c${k}","parentId":null,"timestamp":"${late}","data":{"type":"message","a":[1,2,{"b":null}]}}`,
          ),
        );
        break;
      case 13: // a fork's own message (written after the fork) and copied ones (before)
        lines.splice(
          at,
          0,
          msg(`f${k}`, null, late, { role: 'user', content: `own ${seed}`, timestamp: Date.parse(late) }),
        );
        break;
    }
  }
  return { lines, header };
}

function fileText(lines: Line[], seed: number): Buffer {
  const body = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
  const end = seed % 4;
  // a last line without "\n": complete (pi counts it) or cut (nobody does)
  if (end === 1) return body.subarray(0, body.length - 1);
  if (end === 2)
    return Buffer.concat([body, lines[lines.length - 1].subarray(0, Math.floor(lines[lines.length - 1].length / 2))]);
  return body;
}

function facts(i: Record<string, unknown> & { created: Date; modified: Date }) {
  return {
    id: i.id,
    cwd: i.cwd,
    name: i.name,
    parentSessionPath: i.parentSessionPath,
    created: i.created.getTime(),
    modified: i.modified.getTime(),
    messageCount: i.messageCount,
    firstMessage: i.firstMessage,
  };
}

describe('listing damaged sessions: the rows pi shows', { timeout: 120_000 }, () => {
  it('60 damaged sessions, cold and after growth: every row equals pi 1.6.0', async () => {
    const agentDir = tempDir('agent-');
    const dir = join(agentDir, 'sessions', encodeCwd(CWD));
    mkdirSync(dir, { recursive: true });
    const made = new Map<string, { lines: Line[]; seed: number }>();
    for (let seed = 1; seed <= 60; seed++) {
      const { lines, header } = damaged(seed);
      const file = join(dir, `2026-11-01T00-00-${String(seed).padStart(2, '0')}-000Z_${header.id as string}.jsonl`);
      writeFileSync(file, fileText(lines, seed));
      made.set(file, { lines, seed });
    }
    const { SessionManager } = await loadPi();
    const repo = new SessionRepository({ agentDir, env: {}, cache: new SessionInfoCache() });
    const compare = async (what: string) => {
      const ours = await repo.list(CWD);
      const theirs = (await SessionManager.list(CWD, dir)) as (Record<string, unknown> & {
        path: string;
        created: Date;
        modified: Date;
      })[];
      const piPaths = new Set(theirs.map((t) => t.path));
      assert.equal(
        ours.length,
        theirs.length,
        `${what}: as many rows; pi dropped seeds ${ours.filter((o) => !piPaths.has(o.path)).map((o) => made.get(o.path)?.seed)}`,
      );
      assert.ok(ours.length >= 52, `${what}: most damaged files are still sessions (${ours.length})`);
      const mine = new Map(ours.map((o) => [o.path, o]));
      for (const t of theirs) {
        const o = mine.get(t.path) as SessionInfo;
        assert.ok(o, `${what}: ${t.path}`);
        assert.deepEqual(
          facts(o as unknown as Record<string, unknown> & { created: Date; modified: Date }),
          facts(t),
          `${what}: ${t.path} (seed ${made.get(t.path)?.seed})`,
        );
      }
      // pi's order too (newest activity first)
      assert.deepEqual(
        ours.map((o) => o.modified.getTime()),
        theirs.map((t) => t.modified.getTime()),
      );
    };
    await compare('cold');
    // Grown: more lines appended (some damaged, some cut mid-line), read from where the last read stopped.
    for (const [file, { lines, seed }] of made) {
      if (seed % 3) continue;
      const more = damaged(seed + 1000).lines.slice(1, 12);
      const cut =
        seed % 2
          ? Buffer.from(
              `{"type":"message","id":"cut${seed}","parentId":null,"timestamp":"2027-02-01T00:00:00.000Z","mess`,
            )
          : Buffer.alloc(0);
      writeFileSync(file, Buffer.concat([fileText(lines, 0), ...more.flatMap((l) => [l, Buffer.from('\n')]), cut]));
    }
    await compare('grown');
  });
});
