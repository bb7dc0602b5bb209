// A restore that kills its own process at a named step (for the crash tests): the line "killed at STEP"
// on stderr first, then SIGKILL, so the test knows the kill landed where it meant it to. With
// --conversation it moves the leaf as the CLI does: the files, then the leaf, then the record of it.
// Usage: tsx restoreKill.ts SESSION_FILE AGENT_DIR TARGET_ID STEP NTH [--conversation]
import { writeSync } from 'node:fs';
import { planCode, recordLeafMoved, sessionCode, writeCode } from '../../src/core/checkpoints/index.js';
import { onRestoreStep, type RestoreStep } from '../../src/core/checkpoints/restore/journalFiles.js';
import { Session } from '../../src/core/session/session.js';

async function main(): Promise<void> {
  const [file, agentDir, target, step, nth, flag] = process.argv.slice(2);
  let left = Number(nth);
  onRestoreStep((s: RestoreStep, detail: string) => {
    if (s === step && --left === 0) {
      writeSync(2, `killed at ${s} ${detail}\n`);
      process.kill(process.pid, 'SIGKILL');
    }
  });
  const session = await Session.open(file);
  const sc = sessionCode(session, { agentDir });
  const plan = await planCode(sc, target);
  const conversation = flag === '--conversation';
  const r = await writeCode(sc, plan, conversation ? { leaf: { targetId: target, fromId: session.leafId } } : {});
  if (conversation) {
    await session.moveTo(target);
    await recordLeafMoved(sc, r.journal, target);
  }
  writeSync(2, 'finished without a kill\n');
}
void main();
