// A FIFO (or socket, or directory) named *.jsonl must never hang pi-tree: a plain open() of a FIFO
// waits for a writer forever and holds one of libuv's four pool threads while it does.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { NotRegularFileError } from '../../../src/core/index/byteSource.js';
import { encodeCwd, SessionRepository } from '../../../src/core/session/repository.js';
import { Session } from '../../../src/core/session/session.js';
import { sessionText, tempDir, user } from '../../support/tmp.js';

function dirWithFifos(n: number): { agentDir: string; dir: string; fifos: string[]; good: string } {
  const agentDir = tempDir('agent-');
  const dir = join(agentDir, 'sessions', encodeCwd('/work/p'));
  mkdirSync(dir, { recursive: true });
  const good = join(dir, '2026-11-01T09-00-00-000Z_good.jsonl');
  writeFileSync(
    good,
    sessionText([user('u1', null, 'a real one')], {
      type: 'session',
      version: 3,
      id: 'good',
      timestamp: '2026-11-01T09:00:00.000Z',
      cwd: '/work/p',
    }),
  );
  const fifos = Array.from({ length: n }, (_, i) => join(dir, `2026-11-01T09-00-0${i}-000Z_fifo${i}.jsonl`));
  execFileSync('mkfifo', fifos);
  mkdirSync(join(dir, 'adir.jsonl'));
  return { agentDir, dir, fifos, good };
}

describe('non-regular files named *.jsonl', { timeout: 20_000 }, () => {
  it('listing skips FIFOs and directories promptly, with a reason for each; more FIFOs than pool threads', async () => {
    const { agentDir, fifos, good } = dirWithFifos(6);
    const skipped = new Map<string, string>();
    const repo = new SessionRepository({ agentDir, env: {} });
    const list = await repo.list('/work/p', { onSkip: (f, why) => skipped.set(f, why) });
    assert.deepStrictEqual(
      list.map((i) => i.path),
      [good],
    );
    for (const f of fifos) assert.match(skipped.get(f) ?? '', /FIFO \(named pipe\), not a regular file/);
    // and again through listAll, with the pool still free (nothing is left blocked from the first run)
    assert.equal((await repo.listAll()).length, 1);
  });

  it('opening a FIFO fails at once with a clear error; so does writing to a session that became one', async () => {
    const { fifos, dir } = dirWithFifos(1);
    await assert.rejects(
      Session.open(fifos[0]),
      (e: unknown) =>
        e instanceof NotRegularFileError && /is a FIFO \(named pipe\), not a regular file/.test(e.message),
    );
    await assert.rejects(Session.open(join(dir, 'adir.jsonl')), /is a directory, not a regular file/);
    // a session that became a FIFO after it was opened: the write fails at once, nothing blocks
    const s = await Session.open(join(dir, '2026-11-01T09-00-00-000Z_good.jsonl'));
    renameSync(fifos[0], s.path!);
    await assert.rejects(
      s.appendMessage({ role: 'user', content: 'x', timestamp: 1 } as never),
      /FIFO \(named pipe\), not a regular file/,
    );
  });
});
