// pi's own models, for a model picker and to check a model before anything is written: a headless
// `pi --mode rpc --no-session` (nothing is written anywhere) asked `get_available_models` (the models pi
// can use: configured, with credentials) and `get_state` (the model a new session gets), then stopped.
import type { PiProgram } from '../platform/piProgram.js';
import { PiProcessError, RpcChild } from './rpcChild.js';
import type { RunModel } from './runTurn.js';

export interface PiModel extends RunModel {
  /** pi's display name, when the model has one. */
  name?: string;
  reasoning?: boolean;
  contextWindow?: number;
  maxTokens?: number;
  /** USD per million tokens, as pi's models.json gives them. */
  cost?: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

export interface PiModels {
  models: PiModel[];
  /** The model pi gives a new session (its settings' default), when it has one. */
  defaultModel?: RunModel;
}

export interface ListModelsOptions {
  pi: PiProgram;
  env?: NodeJS.ProcessEnv;
  /** pi's working folder (its project settings count): the session's. Default: this process's. */
  cwd?: string;
  signal?: AbortSignal;
  /** How long pi may take to start and answer (default 120 s). */
  timeoutMs?: number;
}

type Raw = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function modelOf(m: Raw): PiModel | undefined {
  const provider = str(m.provider);
  const id = str(m.id);
  if (!provider || !id) return undefined;
  const c = m.cost as Raw | undefined;
  return {
    provider,
    id,
    ...(str(m.name) ? { name: str(m.name) } : {}),
    ...(typeof m.reasoning === 'boolean' ? { reasoning: m.reasoning } : {}),
    ...(num(m.contextWindow) !== undefined ? { contextWindow: num(m.contextWindow) } : {}),
    ...(num(m.maxTokens) !== undefined ? { maxTokens: num(m.maxTokens) } : {}),
    ...(c && typeof c === 'object'
      ? {
          cost: {
            input: num(c.input) ?? 0,
            output: num(c.output) ?? 0,
            cacheRead: num(c.cacheRead) ?? 0,
            cacheWrite: num(c.cacheWrite) ?? 0,
          },
        }
      : {}),
  };
}

export async function listModels(opts: ListModelsOptions): Promise<PiModels> {
  if (opts.signal?.aborted) throw new Error('cancelled');
  const child = RpcChild.start({ pi: opts.pi, args: ['--no-session'], cwd: opts.cwd ?? process.cwd(), env: opts.env });
  const stop = () => void child.stop();
  opts.signal?.addEventListener('abort', stop, { once: true });
  try {
    const timeout = opts.timeoutMs ?? 120_000;
    const state = (await child.send({ type: 'get_state' }, timeout)) as { model?: Raw } | undefined;
    const data = (await child.send({ type: 'get_available_models' }, timeout)) as { models?: unknown } | undefined;
    const models = (Array.isArray(data?.models) ? (data.models as Raw[]) : [])
      .map(modelOf)
      .filter((m): m is PiModel => !!m);
    const def = state?.model ? modelOf(state.model) : undefined;
    return { models, ...(def ? { defaultModel: { provider: def.provider, id: def.id } } : {}) };
  } catch (e) {
    if (opts.signal?.aborted) throw new Error('cancelled', { cause: e });
    if (e instanceof PiProcessError) throw new PiProcessError(`pi did not list its models: ${e.message}`, { cause: e });
    throw e;
  } finally {
    opts.signal?.removeEventListener('abort', stop);
    await child.stop();
  }
}

/** pi's words when it does not have a model (what its `set_model` answers). */
export function modelNotFound(m: RunModel): string {
  return `Model not found: ${m.provider}/${m.id}`;
}
