// A run of N variants (variantRun.ts' shapes): one prompt tried N times from one node, at most `jobs`
// at once (slots.ts). Each variant: its folder and forked session made (variants.ts), its turn run by a
// headless pi in that folder and the files it changed against the code at the node (variantTurn.ts),
// then the user's check (variantCheck.ts). The record follows: running (with
// pi's pid) → done | failed.
//
// From a user message the variants go instead of it (forked at its parent, the prompt beside it), as
// Ask from here and pi's /tree re-edit do; from any other entry, after it.
//
// The request is checked before anything is written (the prompt, the counts, the entry, the session's
// folder, the models pi has): a bad one rejects `done` with a VariantsInputError, or throws at once
// for what needs no reading. One variant's failure never stops the others; a cancel aborts that
// variant's pi (what it wrote stays, as whole lines) or takes it off the queue.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { codeUnknownAt, readCheckpointSettings, sessionCode } from '../checkpoints/index.js';
import { listModels, modelNotFound } from '../runs/listModels.js';
import type { RunModel } from '../runs/runTurn.js';
import { moveTarget } from '../session/moveTarget.js';
import { Session } from '../session/session.js';
import { runCheck } from './variantCheck.js';
import { updateVariant, type VariantRecord } from './variantRecords.js';
import type { VariantOutcome, VariantsRequest, VariantsRun } from './variantRun.js';
import { makeVariant } from './variants.js';
import { slots } from './slots.js';
import { changesOf, ranOf, variantTurn } from './variantTurn.js';

/** The most variants one run makes (each is a folder and a pi). */
export const MAX_VARIANTS = 8;
/** The most pis at once. */
export const MAX_JOBS = 8;
export const DEFAULT_JOBS = 2;

/** Bad input: nothing was written. */
export class VariantsInputError extends Error {
  override name = 'VariantsInputError';
}

const modelName = (m: RunModel) => `${m.provider}/${m.id}`;
const wholeIn = (v: number, lo: number, hi: number) => Number.isInteger(v) && v >= lo && v <= hi;

/** The checks that need no reading: throws VariantsInputError. Returns the models of the tries (undefined: pi's default). */
function checkRequest(req: VariantsRequest): (RunModel | undefined)[] {
  if (!req.prompt.trim()) throw new VariantsInputError('the prompt is empty; nothing was made');
  if (req.jobs !== undefined && !wholeIn(req.jobs, 1, MAX_JOBS))
    throw new VariantsInputError(`jobs must be a whole number from 1 to ${MAX_JOBS}, not ${req.jobs}`);
  if (req.check !== undefined && !req.check.trim()) throw new VariantsInputError('the check command is empty');
  if (req.models) {
    if (!wholeIn(req.models.length, 1, MAX_VARIANTS))
      throw new VariantsInputError(`give from 1 to ${MAX_VARIANTS} models, not ${req.models.length}`);
    for (const m of req.models)
      if (!m || typeof m.provider !== 'string' || !m.provider || typeof m.id !== 'string' || !m.id)
        throw new VariantsInputError('a model must be PROVIDER/ID');
    return [...req.models];
  }
  const n = req.count ?? 1;
  if (!wholeIn(n, 1, MAX_VARIANTS))
    throw new VariantsInputError(`count must be a whole number from 1 to ${MAX_VARIANTS}, not ${n}`);
  return Array.from({ length: n }, () => undefined);
}

/** The checks that read: the session, the entry, its folder, the models. Returns the open session and the node the variants fork at. */
async function checkSources(
  req: VariantsRequest,
  models: (RunModel | undefined)[],
): Promise<{ session: Session; forkAt: string }> {
  const file = resolve(req.sessionFile);
  let session: Session;
  try {
    session = await Session.open(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new VariantsInputError(code === 'ENOENT' ? `${file}: no such file` : `${file}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  if (!session.index.get(req.entryId))
    throw new VariantsInputError(`no entry ${req.entryId} in ${file}; nothing was made`);
  // (from a user message the prompt goes instead of it, beside it under its parent, as Ask from here asks)
  const { leaf: forkAt } = await moveTarget(session, req.entryId);
  if (forkAt === null)
    throw new VariantsInputError(
      `${req.entryId} is the session's first message: a variant forks after an entry, and there is none before it; nothing was made`,
    );
  const cwd = session.header.cwd;
  if (!cwd || !existsSync(cwd))
    throw new VariantsInputError(`the session's folder ${cwd || '(none)'} is not there; nothing was made`);
  // Every variant's folder needs the code at the node: asked once, so an unknown one is one message.
  const settings = readCheckpointSettings(req.agentDir);
  const unknown = await codeUnknownAt(sessionCode(session, { agentDir: req.agentDir, settings, env: req.env }), forkAt);
  if (unknown) throw new VariantsInputError(`${unknown}; nothing was made`);
  const wanted = models.filter((m): m is RunModel => !!m);
  if (wanted.length) {
    const { models: has } = await listModels({ pi: req.pi, env: req.env, cwd, signal: req.signal });
    const missing = wanted.find((m) => !has.some((h) => h.provider === m.provider && h.id === m.id));
    if (missing)
      throw new VariantsInputError(
        `${modelNotFound(missing)} (pi lists ${has.length ? has.map(modelName).join(', ') : 'no models'}); nothing was made`,
      );
  }
  if (req.signal?.aborted) throw new VariantsInputError('cancelled before anything was made');
  return { session, forkAt };
}

export function runVariants(req: VariantsRequest): VariantsRun {
  const models = checkRequest(req);
  const gate = slots(req.jobs ?? DEFAULT_JOBS);
  const outcomes: VariantOutcome[] = models.map((m, index) => ({
    index,
    ...(m ? { model: modelName(m) } : {}),
    phase: 'queued',
    check: null,
  }));
  const controllers = models.map(() => new AbortController());
  const cancelAll = () => controllers.forEach((c) => c.abort());
  if (req.signal?.aborted) cancelAll();
  req.signal?.addEventListener('abort', cancelAll, { once: true });

  const emit = (index: number, patch: Partial<VariantOutcome>) => {
    outcomes[index] = { ...outcomes[index], ...patch };
    const outcome = outcomes[index];
    try {
      req.onProgress?.({ kind: 'outcome', outcome });
    } catch {
      // the listener's own problem
    }
  };

  const record = (rec: VariantRecord, patch: Parameters<typeof updateVariant>[3]) => {
    try {
      updateVariant(req.agentDir, rec.project, rec.id, {
        ...patch,
        ...(patch.state === 'running' ? {} : { pid: undefined }),
      });
    } catch {
      // the run goes on: a record that cannot be written only lags (the session and folder are there)
    }
  };

  const one = async (session: Session, forkAt: string, index: number): Promise<void> => {
    const signal = controllers[index].signal;
    const model = models[index];
    const cancelledNow = () =>
      emit(index, { phase: 'cancelled', error: 'cancelled before it started; nothing was made' });
    // (a cancel while queued ends the wait: that variant never takes a slot)
    if (!(await gate.take(signal))) return cancelledNow();
    const t0 = performance.now();
    const ms = () => Math.round(performance.now() - t0);
    const steps: NonNullable<VariantOutcome['steps']> = {};
    let lap = t0;
    const step = (name: keyof typeof steps) => {
      const now = performance.now();
      steps[name] = Math.round(now - lap);
      lap = now;
    };
    let rec: VariantRecord | undefined;
    try {
      emit(index, { phase: 'preparing' });
      rec = await makeVariant({
        agentDir: req.agentDir,
        source: session,
        entryId: forkAt,
        prompt: req.prompt,
        ...(model ? { model: modelName(model) } : {}),
        env: req.env,
        signal,
      });
      step('prepare');
      emit(index, { phase: 'running', variantId: rec.id, session: rec.sessionFile, folder: rec.folder });
      const made = rec;
      const { turn, turnError } = await variantTurn(req, made, model, signal, {
        running: (pid) => record(made, { state: 'running', pid }),
        delta: (delta) => req.onProgress?.({ kind: 'delta', index, delta }),
      });
      step('turn');
      const files = turn ? await changesOf(req, made) : undefined;
      if (files) step('files');
      const ran = ranOf(turn, files);
      if (turnError) {
        const cancelled = turnError.code === 'cancelled' && signal.aborted;
        const error = files?.error ? `${turnError.message}; ${files.error}` : turnError.message;
        record(made, { state: 'failed', error, leafId: turn?.leafId ?? null });
        emit(index, { ...ran, phase: cancelled ? 'cancelled' : 'failed', error, ms: ms(), steps });
        return;
      }
      let check = null;
      if (req.check) {
        emit(index, { ...ran, phase: 'checking' });
        check = await runCheck({
          command: req.check,
          cwd: made.folder,
          env: req.env,
          timeoutMs: req.checkTimeoutMs,
          signal,
        });
        step('check');
      }
      record(made, { state: 'done', leafId: turn!.leafId, ...(files?.error ? { error: files.error } : {}) });
      // (its turn ran whole; a cancel that stopped its check leaves the check unanswered: cancelled)
      const stopped = check !== null && signal.aborted;
      const error = [stopped ? 'cancelled during its check' : undefined, files?.error].filter(Boolean).join('; ');
      emit(index, {
        ...ran,
        check,
        phase: stopped ? 'cancelled' : 'done',
        ...(error ? { error } : {}),
        ms: ms(),
        steps,
      });
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      if (rec) record(rec, { state: 'failed', error });
      emit(index, {
        phase: signal.aborted ? 'cancelled' : 'failed',
        error: signal.aborted ? `cancelled: ${error}` : error,
        ms: ms(),
        steps,
      });
    } finally {
      gate.give();
    }
  };

  const done = (async () => {
    try {
      const { session, forkAt } = await checkSources(req, models);
      await Promise.all(models.map((_, i) => one(session, forkAt, i)));
      return [...outcomes];
    } finally {
      req.signal?.removeEventListener('abort', cancelAll);
    }
  })();
  return {
    get outcomes() {
      return outcomes;
    },
    cancel(index?: number) {
      if (index === undefined) return cancelAll();
      controllers[index]?.abort();
    },
    done,
  };
}
