// Migrating a v1/v2 file (the rewrite before pi-tree's first write to it) must change the session the
// user has, in place: through a symlink it rewrites the link's target, and it keeps the file's mode.
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Session } from '../../../src/core/session/session.js';
import { tempDir } from '../../support/tmp.js';

const v1 = [
  { type: 'session', id: '01990000-0000-7000-8000-00000000000a', timestamp: '2026-11-01T09:00:00.000Z', cwd: '/p' },
  { type: 'message', timestamp: '2026-11-01T09:00:01.000Z', message: { role: 'user', content: 'hello', timestamp: 1 } },
  {
    type: 'message',
    timestamp: '2026-11-01T09:00:02.000Z',
    message: { role: 'assistant', content: [{ type: 'text', text: 'hi' }], timestamp: 2 },
  },
]
  .map((e) => `${JSON.stringify(e)}\n`)
  .join('');

describe('migration rewrite in place', () => {
  it('a session reached through a symlink: the target is migrated, the link stays a link, the backup is beside the target', async () => {
    const real = tempDir('real-');
    const links = tempDir('links-');
    const target = join(real, 's.jsonl');
    writeFileSync(target, v1);
    const link = join(links, 's.jsonl');
    symlinkSync(target, link);
    const s = await Session.open(link);
    await s.setName('renamed');
    assert.ok(lstatSync(link).isSymbolicLink(), 'the link is still a link');
    assert.equal(readlinkSync(link), target);
    const text = readFileSync(target, 'utf8');
    assert.equal(JSON.parse(text.split('\n')[0]).version, 3, 'the real file is v3 now');
    assert.match(text, /"name":"renamed"/);
    assert.equal(readFileSync(`${target}.v1.bak`, 'utf8'), v1);
    // pi opening the real file or the link reads the same session
    assert.equal(readFileSync(link, 'utf8'), text);
  });

  it('keeps the file mode (not 0600)', async () => {
    const file = join(tempDir(), 's.jsonl');
    writeFileSync(file, v1);
    chmodSync(file, 0o644);
    const s = await Session.open(file);
    await s.setLabel((await s.getBranch(s.leafId))[0].id, 'x');
    assert.equal(statSync(file).mode & 0o777, 0o644);
    assert.equal(JSON.parse(readFileSync(file, 'utf8').split('\n')[0]).version, 3);
  });
});
