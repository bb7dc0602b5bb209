// The loopback model and pi configuration of the Ask-from-here suites: per-model behaviour ("loop-model"
// answers "answer: <prompt>", "other-model" answers "other: <prompt>", "broken-model" fails with a 400),
// and a prompt containing "slow" answered in pieces held after the first until the test opens `hold`,
// so pi is mid-answer for as long as a case needs, however slow the machine.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PiProgram } from '../../src/core/platform/piProgram.js';
import {
  completionSse,
  gate,
  startLoopback,
  type Gate,
  type Loopback,
  type RecordedRequest,
  type Reply,
} from './loopbackOpenAI.js';
import { makePiEnv, NODE24, PI_CLI, type PiEnv } from './piRpc.js';

/** The real pi 1.6.0 as a program pi-tree starts (Node 24 and pi's script: no shell). */
export const PI_PROGRAM: PiProgram = { program: NODE24, args: [PI_CLI] };

export const BROKEN_ERROR = 'the model is broken';

/** Assistant steps since the last user message (0: the turn's first model call). */
export function stepsDone(req: RecordedRequest): number {
  const msgs = (req.body?.messages ?? []) as { role: string }[];
  let n = 0;
  for (let i = msgs.length - 1; i >= 0 && msgs[i].role !== 'user'; i--) if (msgs[i].role === 'assistant') n++;
  return n;
}

export function lastUserText(req: RecordedRequest): string {
  const msgs = (req.body?.messages ?? []) as { role: string; content: unknown }[];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    return ((m.content ?? []) as { text?: string }[]).map((c) => c.text ?? '').join('');
  }
  return '';
}

export interface AskLoop {
  lb: Loopback;
  pe: PiEnv;
  /** Opens the current hold and puts a new one in its place, for the next slow answers. */
  newHold(): Gate;
}

export async function startAskLoop(settings: Record<string, unknown> = {}): Promise<AskLoop> {
  let hold = gate();
  const lb = await startLoopback((req): Reply => {
    const model = req.body?.model as string | undefined;
    const user = lastUserText(req);
    if (model === 'broken-model') return { kind: 'json', status: 400, body: { error: { message: BROKEN_ERROR } } };
    if (user.includes('slow')) return completionSse('slow answer '.repeat(20), { pieces: 20, heldUntil: hold.opened });
    return completionSse(`${model === 'other-model' ? 'other' : 'answer'}: ${user}`);
  });
  // (no automatic retry: a failed model call ends the turn at once)
  const pe = makePiEnv(lb, { retry: { enabled: false }, compaction: { enabled: false }, ...settings });
  const modelsFile = join(pe.agentDir, 'models.json');
  const models = JSON.parse(readFileSync(modelsFile, 'utf8'));
  const extra = { contextWindow: 128000, maxTokens: 4096, cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 } };
  models.providers.loop.models.push({ id: 'other-model', ...extra }, { id: 'broken-model', ...extra });
  writeFileSync(modelsFile, JSON.stringify(models));
  return {
    lb,
    pe,
    newHold: () => {
      hold.open();
      hold = gate();
      return hold;
    },
  };
}

/**
 * What a kill -9 of pi-tree leaves at the end of the session: pi 1.6.0 takes its stdin's EOF as its
 * orderly stop (the answer so far written whole, stopReason "aborted"), but it exits at once when a write
 * to its stdout fails (output-guard.js), so when it had an event to write first the prompt is the last
 * line. Either way whole lines, never a partial answer passed off as finished.
 */
export function lastIsWhole(last: { message?: { role?: string; stopReason?: string } }): boolean {
  return last.message?.role === 'user' || last.message?.stopReason === 'aborted';
}
