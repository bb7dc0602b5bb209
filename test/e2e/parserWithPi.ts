// The e2e fixture of the scenarios that drive a running pi: a loopback model (answers "answer N", a
// summary prompt "SUMMARY N by the model of pi.") and pi 1.6.0 with the bridge on a four-entry session
// ("Plan the parser" → "Tokenize first…" → "Now write the tokenizer" → "Here is the tokenizer."), in the
// scenario's agent dir and workspace. Call it inside a describe(); pass `options` to scenario().
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { sessionDirFor, sessionFileName } from '../../scripts/lib/demoSessions.js';
import { waitForBridge } from '../piExtension/helpers.js';
import { completionSse, startLoopback, type Loopback } from '../support/loopbackOpenAI.js';
import { assistantOf, makePiEnv, PiRpc, sessionBuilder, writeSession } from '../support/piRpc.js';
import type { ScenarioOptions } from './harness.js';

export interface ParserWithPi {
  /** The running pi (set once the scenario's sessions are written). */
  pi: PiRpc | undefined;
  /** The session's entries: u1, a1, u2, a2. */
  ids: Record<'u1' | 'a1' | 'u2' | 'a2', string>;
  /** Scenario options: pi as the summary model, the session written and pi started on it. */
  options: ScenarioOptions;
}

/** `sessionId`: the session file's id (each scenario file its own). */
export function parserWithPi(sessionId: string): ParserWithPi {
  let lb: Loopback | undefined;
  before(async () => {
    lb = await startLoopback((req, n) =>
      completionSse(
        JSON.stringify(req.body?.messages ?? []).includes('<conversation>')
          ? `SUMMARY ${n} by the model of pi.`
          : `answer ${n}`,
      ),
    );
  });
  after(async () => {
    await fx.pi?.stop();
    await lb?.close();
  });
  const fx: ParserWithPi = {
    pi: undefined,
    ids: { u1: '', a1: '', u2: '', a2: '' },
    options: {
      settings: { 'piTree.summary.provider': 'pi' },
      sessions: async ({ agentDir, workspace }) => {
        const pe = makePiEnv(lb!, {}, { agentDir, workDir: workspace });
        const b = sessionBuilder(workspace);
        fx.ids.u1 = b.user('Plan the parser');
        fx.ids.a1 = assistantOf(b, 'Tokenize first, then build the tree.');
        fx.ids.u2 = b.user('Now write the tokenizer');
        fx.ids.a2 = assistantOf(b, 'Here is the tokenizer.');
        mkdirSync(sessionDirFor(agentDir, workspace), { recursive: true });
        const file = writeSession(
          b,
          join(sessionDirFor(agentDir, workspace), sessionFileName('2026-03-01T10:00:00.000Z', sessionId)),
        );
        fx.pi = PiRpc.start(file, pe);
        await waitForBridge(file, pe.env, fx.pi);
      },
    },
  };
  return fx;
}
