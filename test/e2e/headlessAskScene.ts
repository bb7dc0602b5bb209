// The scene of an ask with no pi running the session: pi's settings pointed at the loopback model, the
// real pi 1.6.0 behind `piTree.piCommand` (pi-tree starts it for the turn), and a session of one
// exchange ("Read the config" / "It is in settings.json.") in pi's layout for the workspace.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sessionDirFor, sessionFileName } from '../../scripts/lib/demoSessions.js';
import type { Loopback } from '../support/loopbackOpenAI.js';
import { assistantOf, makePiEnv, piShim, sessionBuilder, writeSession } from '../support/piRpc.js';

/** Options for `scenario` (its loopback read when the sessions are made), and what the sessions step made. */
export function headlessAskScene(lb: () => Loopback, sessionId: string) {
  const made = { file: '', agentDir: '', bin: '', answer: '' };
  const options = {
    sessions: ({ agentDir, workspace }: { agentDir: string; workspace: string }) => {
      made.agentDir = agentDir;
      makePiEnv(lb(), { retry: { enabled: false }, compaction: { enabled: false } }, { agentDir, workDir: workspace });
      made.bin = piShim(join(agentDir, '..'));
      const b = sessionBuilder(workspace);
      b.user('Read the config');
      made.answer = assistantOf(b, 'It is in settings.json.');
      mkdirSync(sessionDirFor(agentDir, workspace), { recursive: true });
      made.file = writeSession(
        b,
        join(sessionDirFor(agentDir, workspace), sessionFileName('2026-03-01T10:00:00.000Z', sessionId)),
      );
    },
    settings: () => ({ 'piTree.piCommand': join(made.bin, 'pi') }),
    env: { PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
    timeout: 300_000,
  };
  return { made, options };
}
