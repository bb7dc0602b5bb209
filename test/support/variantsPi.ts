// A project for runs of variants with the real pi 1.6.0: a working folder (the user's own git
// repository), a session whose first turn pi ran with the bridge (so the code at its node is a
// checkpoint), and a loopback model whose answer to the variants' prompt depends on the model asked:
// "loop-model" writes answer.txt = "ok", "other-model" writes "bad", "slow-model" answers in pieces
// held until the test opens `hold`, "broken-model" fails with a 400. Every model request is counted while it is held (`inFlight`).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import {
  completionSse,
  gate,
  startLoopback,
  toolCallsSse,
  type Gate,
  type Loopback,
  type Reply,
} from './loopbackOpenAI.js';
import { BROKEN_ERROR, lastUserText, PI_PROGRAM, stepsDone } from './askPi.js';
import { BRIDGE, makePiEnv, PiRpc, type PiEnv } from './piRpc.js';

export { BRIDGE, PI_PROGRAM };

export const VARIANT_PROMPT = 'write the answer';

export interface VariantsPi {
  lb: Loopback;
  pe: PiEnv;
  /** The user's session and the node the variants start from. */
  file: string;
  nodeId: string;
  /** A user message under the node (a second turn's prompt). */
  userId: string;
  /** Opens the slow model's current hold and sets a new one. */
  newHold(): Gate;
  /** When set, every first request of a variant's turn waits on it (the test counts them meanwhile). */
  firstHold?: Gate;
  /** First requests held now, and the most at once. */
  inFlight: { now: number; max: number };
  stop(): Promise<void>;
}

export async function startVariantsPi(): Promise<VariantsPi> {
  let hold = gate();
  let vp: VariantsPi;
  const lb = await startLoopback(async (req): Promise<Reply> => {
    const model = req.body?.model as string | undefined;
    const user = lastUserText(req);
    const done = stepsDone(req);
    if (user === 'write the app')
      return done === 0
        ? toolCallsSse([{ name: 'write', arguments: { path: 'src/app.ts', content: 'export const app = 1;\n' } }])
        : completionSse('app written');
    if (user !== VARIANT_PROMPT) return completionSse(`answer: ${user}`);
    if (model === 'broken-model') return { kind: 'json', status: 400, body: { error: { message: BROKEN_ERROR } } };
    if (model === 'slow-model') return completionSse('slow answer '.repeat(20), { pieces: 20, heldUntil: hold.opened });
    if (done === 0) {
      const held = vp.firstHold;
      if (held) {
        vp.inFlight.now++;
        vp.inFlight.max = Math.max(vp.inFlight.max, vp.inFlight.now);
        await held.opened;
        vp.inFlight.now--;
      }
      return toolCallsSse([
        { name: 'write', arguments: { path: 'answer.txt', content: model === 'other-model' ? 'bad\n' : 'ok\nfine\n' } },
      ]);
    }
    return completionSse(`${model}: wrote it`);
  });
  const pe = makePiEnv(lb, { retry: { enabled: false }, compaction: { enabled: false } });
  const modelsFile = join(pe.agentDir, 'models.json');
  const models = JSON.parse(readFileSync(modelsFile, 'utf8'));
  const extra = { contextWindow: 128000, maxTokens: 4096, cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 } };
  models.providers.loop.models.push(
    { id: 'other-model', ...extra },
    { id: 'slow-model', ...extra },
    { id: 'broken-model', ...extra },
  );
  writeFileSync(modelsFile, JSON.stringify(models));
  writeFileSync(join(pe.workDir, 'README.md'), 'hello\n');
  const g = (...a: string[]) =>
    execFileSync('git', a, {
      cwd: pe.workDir,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'u',
        GIT_AUTHOR_EMAIL: 'u@x',
        GIT_COMMITTER_NAME: 'u',
        GIT_COMMITTER_EMAIL: 'u@x',
      },
    });
  g('init', '-q');
  g('add', '-A');
  g('commit', '-q', '-m', 'user commit');
  const sessions = join(pe.workDir, '..', 'sessions');
  mkdirSync(sessions, { recursive: true });
  const file = join(sessions, '2026-03-01T10-00-00-000Z_019b8f3a-0000-7000-8000-00000000c0de.jsonl');
  const pi = PiRpc.start(file, pe);
  try {
    await pi.ready();
    await pi.prompt('write the app');
    const nodeId = (await pi.leaf())!;
    await pi.prompt('a second question');
    const { entries } = await pi.entries();
    const userId = entries.find((e) => e.parentId === nodeId && e.message?.role === 'user')!.id as string;
    vp = {
      lb,
      pe,
      file,
      nodeId,
      userId,
      inFlight: { now: 0, max: 0 },
      newHold: () => {
        hold.open();
        hold = gate();
        return hold;
      },
      async stop() {
        hold.open();
        vp.firstHold?.open();
        await lb.close();
      },
    };
    return vp;
  } finally {
    await pi.stop();
  }
}
