// One variant's turn and what it left: its headless pi run in the variant's folder (runs/runTurn.ts,
// with pi-tree's bridge so its checkpoints are taken), the answer, tokens and cost, and the files it
// changed against the code at the node (the checkpoints door's folderChanges).
import { folderChanges, readCheckpointSettings } from '../checkpoints/index.js';
import { runTurn, TurnError, type RunModel, type TurnResult } from '../runs/runTurn.js';
import type { VariantRecord } from './variantRecords.js';
import type { VariantOutcome, VariantsRequest } from './variantRun.js';

/** What the turn tells as it goes: pi's pid once it runs, and each piece of the answer. */
export interface TurnListener {
  running(pid: number | undefined): void;
  delta(text: string): void;
}

/**
 * Runs the variant's turn. A turn that failed or was cancelled is `turnError`, with what pi wrote up to
 * then in `turn` (if anything); any other failure throws.
 */
export async function variantTurn(
  req: VariantsRequest,
  made: VariantRecord,
  model: RunModel | undefined,
  signal: AbortSignal,
  on: TurnListener,
): Promise<{ turn?: TurnResult; turnError?: TurnError }> {
  try {
    const turn = await runTurn({
      pi: req.pi,
      sessionFile: made.sessionFile!,
      cwd: made.folder,
      prompt: req.prompt,
      model,
      env: req.env,
      signal,
      piArgs: req.bridge ? ['-e', req.bridge] : [],
      beforePrompt: (pi) => void on.running(pi.pid),
      onEvent: (e) => {
        if (e.kind !== 'text' || !e.delta) return;
        try {
          on.delta(e.delta);
        } catch {
          // the listener's own problem
        }
      },
    });
    return { turn };
  } catch (e) {
    if (!(e instanceof TurnError)) throw e;
    return { ...(e.result ? { turn: e.result } : {}), turnError: e };
  }
}

/** What a turn left, for its outcome: the answer, its tokens and cost, and the files changed. */
export function ranOf(
  turn: TurnResult | undefined,
  files: { files?: VariantOutcome['files'] } | undefined,
): Partial<VariantOutcome> {
  return {
    ...(turn
      ? {
          answerId: turn.answerId,
          answer: turn.answer,
          leafId: turn.leafId,
          tokens: tokensOf(turn),
          ...(turn.cost !== undefined ? { cost: turn.cost } : {}),
        }
      : {}),
    ...(files?.files ? { files: files.files } : {}),
  };
}

function tokensOf(t: TurnResult): VariantOutcome['tokens'] {
  const u = t.usage;
  if (!u) return undefined;
  return {
    input: u.input,
    output: u.output,
    cacheRead: u.cacheRead,
    cacheWrite: u.cacheWrite,
    total: u.totalTokens ?? u.input + u.output + u.cacheRead + u.cacheWrite,
  };
}

/** The files the variant changed since the node (an error in words when they cannot be told: the run goes on). */
export async function changesOf(
  req: VariantsRequest,
  rec: VariantRecord,
): Promise<{ files?: VariantOutcome['files']; error?: string }> {
  if (!rec.code) return { error: 'its files cannot be compared: the variant has no checkout' };
  try {
    return {
      files: await folderChanges({
        agentDir: req.agentDir,
        settings: readCheckpointSettings(req.agentDir),
        folder: rec.folder,
        sessionId: rec.id,
        baseTree: rec.code.tree,
        env: req.env,
      }),
    };
  } catch (e) {
    return { error: `its files could not be compared: ${(e as Error).message}` };
  }
}
