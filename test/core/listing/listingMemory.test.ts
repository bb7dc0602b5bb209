// Listing reads what a row needs with bounded memory (issue #13 item 5): sparse 1 GB sessions whose
// first message is one huge line are listed with their counts and first message right, in a process
// whose own peak RSS stays small (the old listing buffered up to 512 MB of such a line per file, 16
// files at once).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { encodeCwd } from '../../../src/core/session/repository.js';
import { tempDir } from '../../support/tmp.js';

const LISTER = join(__dirname, '..', '..', 'support', 'listInfo.ts');
const GB = 1024 * 1024 * 1024;

function hugeSession(dir: string, i: number): string {
  const file = join(dir, `2026-11-0${i + 1}T09-00-00-000Z_0199000${i}-0000-7000-8000-000000000001.jsonl`);
  const header = {
    type: 'session',
    version: 3,
    id: `0199000${i}-0000-7000-8000-000000000001`,
    timestamp: `2026-11-0${i + 1}T09:00:00.000Z`,
    cwd: '/work/big',
  };
  // A user message whose text is ~1 GB: its start, then a sparse hole of NUL bytes, then its end.
  writeFileSync(
    file,
    `${JSON.stringify(header)}\n{"type":"message","id":"big${i}","parentId":null,"timestamp":"2026-11-0${i + 1}T09:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"HUGE paste \\u00e9 number ${i}`,
  );
  truncateSync(file, GB);
  appendFileSync(file, `"}],"timestamp":${Date.UTC(2026, 10, i + 1, 9, 0, 1)}}}\n`);
  const t = Date.UTC(2026, 10, i + 1, 9, 5, 0);
  appendFileSync(
    file,
    `${JSON.stringify({ type: 'message', id: `a${i}`, parentId: `big${i}`, timestamp: new Date(t).toISOString(), message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }], timestamp: t } })}\n`,
  );
  appendFileSync(
    file,
    `${JSON.stringify({ type: 'session_info', id: `n${i}`, parentId: `a${i}`, timestamp: new Date(t).toISOString(), name: i === 0 ? 'named big' : undefined })}\n`,
  );
  return file;
}

describe('listing memory', { timeout: 120_000 }, () => {
  it('sparse 1 GB sessions with a huge first line: right rows, peak RSS bounded', () => {
    const agent = tempDir('agent-');
    const dir = join(agent, 'sessions', encodeCwd('/work/big'));
    mkdirSync(dir, { recursive: true });
    const files = [0, 1, 2, 3].map((i) => hugeSession(dir, i));
    const r = spawnSync(process.execPath, ['--import', 'tsx', LISTER, agent], { encoding: 'utf8', maxBuffer: 1 << 24 });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      maxRssMb: number;
      infos: { path: string; messageCount: number; firstMessage: string; name?: string; modified: string }[];
    };
    assert.equal(out.infos.length, 4);
    for (const [i, f] of files.entries()) {
      const info = out.infos.find((x) => x.path === f)!;
      assert.equal(info.messageCount, 2, 'the huge message is counted');
      assert.match(info.firstMessage, new RegExp(`^HUGE paste é number ${i}`), 'its text starts the row');
      assert.equal(info.modified, new Date(Date.UTC(2026, 10, i + 1, 9, 5, 0)).toISOString());
      assert.equal(info.name, i === 0 ? 'named big' : undefined);
    }
    // tsx's loader and the test's modules take ~100 MB; the listing itself holds a few MB per file.
    assert.ok(out.maxRssMb < 250, `peak RSS ${Math.round(out.maxRssMb)} MB`);
  });
});
