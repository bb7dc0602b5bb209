// pi-tree's session filter reads the same message text pi's /resume searches: SessionTextIndex gives
// exactly pi 1.6.0's allMessagesText (SessionManager.list) for generated sessions of every entry kind,
// also after pi-tree and another writer appended to them.
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SessionTextIndex } from '../../src/core/listing/sessionText.js';
import { Session } from '../../src/core/session/session.js';
import { generateSession } from '../support/generate.js';
import { loadPi } from '../support/pi.js';
import { tempDir } from '../support/tmp.js';

describe("session text is pi's allMessagesText", () => {
  it('for generated sessions, and again after appends', async () => {
    const dir = tempDir();
    const cwd = '/home/dev/project';
    const files: string[] = [];
    for (const seed of [1, 2, 3]) {
      const g = generateSession({
        seed,
        entries: 300 + seed * 100,
        cwd,
        compactions: 1,
        labels: 2,
        largeOutputRate: 0.05,
      });
      const file = join(dir, `2026-11-0${seed}T10-00-00-000Z_${g.header.id as string}.jsonl`);
      writeFileSync(file, g.text);
      files.push(file);
    }
    const { SessionManager } = await loadPi();
    const idx = new SessionTextIndex();
    const compare = async () => {
      const theirs = new Map(
        (await SessionManager.list(cwd, dir)).map((t: { path: string; allMessagesText: string }) => [
          t.path,
          t.allMessagesText,
        ]),
      );
      for (const f of files) assert.equal((await idx.get(f)).raw, theirs.get(f), f);
    };
    await compare();
    // pi-tree labels and renames (not message text), another writer adds a turn: read incrementally.
    const s = await Session.open(files[0]);
    await s.setName('named');
    const leaf = s.leafId;
    appendFileSync(
      files[0],
      `${JSON.stringify({ type: 'message', id: 'beefcafe', parentId: leaf, timestamp: '2026-11-05T10:00:00.000Z', message: { role: 'user', content: [{ type: 'text', text: 'a late question' }], timestamp: 1 } })}\n`,
    );
    await compare();
    assert.match((await idx.get(files[0])).raw, /a late question$/);
  });
});
