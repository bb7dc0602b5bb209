// A second pi-tree writer in its own process, for the lock tests. Run with `node --import tsx`.
//   lockWriter.ts hold FILE MARKER RELEASE  take the session's write lock, write MARKER, wait until the
//                                           file RELEASE exists, append one entry under the leaf seen
//                                           when the lock was taken, release
//   lockWriter.ts append FILE N TAG         append N user messages, one write at a time
import { existsSync, writeFileSync } from 'node:fs';
import { toLine } from '../../src/core/format/jsonl.js';
import { Session } from '../../src/core/session/session.js';
import { until } from '../../scripts/lib/until.js';

async function main(): Promise<void> {
  const [mode, file, a, b] = process.argv.slice(2);
  const s = await Session.open(file);
  if (mode === 'hold') {
    await s.storage.withLock(async () => {
      await s.refresh();
      const parentId = s.leafId;
      writeFileSync(a, `${Date.now()}\n`);
      await until(() => existsSync(b), 120_000, `the release file ${b}`);
      await s.storage.append(
        toLine({
          type: 'message',
          id: 'holder01',
          parentId,
          timestamp: new Date().toISOString(),
          message: { role: 'user', content: 'from the holder', timestamp: Date.now() },
        }),
      );
    });
    return;
  }
  if (mode === 'append') {
    for (let i = 0; i < Number(a); i++)
      await s.appendMessage({ role: 'user', content: `${b} ${i}`, timestamp: Date.now() } as never);
    return;
  }
  throw new Error(`unknown mode ${mode}`);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
