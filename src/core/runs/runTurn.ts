// One turn of the user's own pi, headless: `pi --mode rpc --session FILE` (rpcChild.ts: an argument
// array, the session's folder as cwd, an orderly stop), optionally `set_model`, the prompt, pi's events
// followed until the run has settled (rpc.md "Run lifecycle": a successful prompt response only means pi
// took it), then pi stopped and the entries it appended read from the file. pi writes everything; pi-tree
// writes nothing here. Used by Ask from here (askFrom.ts) and by variants (each variant's turn).
//
// Failures are TurnErrors: `start` (pi did not start or answer: its stderr said why), `refused` (pi
// refused the model or the prompt before any turn ran: pi's words; nothing of the turn is written),
// `failed` (the turn ran and the model call failed: pi's words, the turn as written in `result`),
// `cancelled` (the caller's signal: pi aborted the turn, whatever it wrote stays, as whole lines),
// `exited` (pi died during the turn).
import { existsSync, statSync } from 'node:fs';
import type { SessionEntry } from '../format/types.js';
import type { PiProgram } from '../platform/piProgram.js';
import { PiCommandError, PiProcessError, RpcChild, type PiRecord } from './rpcChild.js';
import { readAppended, summarizeTurn, type TurnSummary } from './turnEntries.js';
import { turnEventOf, type TurnEvent } from './turnEvents.js';

/** A model as pi names it: `provider/id` (pi's models.json, `get_available_models`). */
export interface RunModel {
  provider: string;
  id: string;
}

export interface RunTurnOptions {
  /** The user's pi (findPi). */
  pi: PiProgram;
  /** The session pi runs the turn in (it appends to it; a file that does not exist yet pi creates). */
  sessionFile: string;
  /** pi's working folder: the session's (its header's cwd). */
  cwd: string;
  prompt: string;
  /** The model for the turn (pi's `set_model`; recorded in the session as pi records a model change). */
  model?: RunModel;
  /** Environment for pi (default process.env): PI_CODING_AGENT_DIR etc. select the user's configuration. */
  env?: NodeJS.ProcessEnv;
  /** Cancels: before the prompt, pi is stopped and nothing is prompted; during the turn, pi aborts it. */
  signal?: AbortSignal;
  /** Progress: started, the answer's text as it streams, tools, retries, the end. */
  onEvent?: (e: TurnEvent) => void;
  /** Every record pi writes on stdout (its RPC events as they are), for callers that want more. */
  onRecord?: (rec: PiRecord) => void;
  /** More arguments for pi, after pi-tree's (`-e EXTENSION`, say). */
  piArgs?: string[];
  /**
   * Runs once pi has opened the session, before the model is set and the prompt sent: `send` gives pi
   * more RPC commands (`set_thinking_level`, say; resolves with the response's data, rejects with pi's
   * words). A throw stops pi with nothing prompted.
   */
  beforePrompt?: (pi: PiHandle) => Promise<void> | void;
  /** How long pi may take to start and answer its first command (default 120 s: a loaded machine starts pi slowly). */
  startTimeoutMs?: number;
}

/** The headless pi of a turn, before its prompt. */
export interface PiHandle {
  pid: number;
  send(command: { type: string; [key: string]: unknown }): Promise<unknown>;
}

export interface TurnResult extends TurnSummary {
  /** pi's leaf after the turn: the last entry it appended (null when it appended none). */
  leafId: string | null;
  /** Every entry pi appended for the turn, in file order: the model change (with `model`), pi's system prompt (pi records it at a pi's first prompt), the prompt, the answer. */
  entries: SessionEntry[];
  /** The turn was aborted (cancelled). */
  aborted: boolean;
  /** From the start of pi to its exit. */
  ms: number;
  pid: number;
}

export type TurnErrorCode = 'start' | 'refused' | 'failed' | 'cancelled' | 'exited';

export class TurnError extends Error {
  override name = 'TurnError';
  constructor(
    readonly code: TurnErrorCode,
    message: string,
    /** What pi wrote of the turn (failed, cancelled, exited). */
    readonly result?: TurnResult,
  ) {
    super(message);
  }
}

/** How long pi may take to answer a command once it runs (set_model, prompt's preflight, abort). */
const REPLY_MS = 60_000;
/** How long pi may take to settle once it answered `abort` (it answers when idle: at once, in practice). */
const SETTLE_MS = 10_000;

export async function runTurn(opts: RunTurnOptions): Promise<TurnResult> {
  const t0 = performance.now();
  if (!opts.prompt.trim()) throw new TurnError('refused', 'the prompt is empty');
  if (opts.signal?.aborted) throw new TurnError('cancelled', 'cancelled before pi was started');
  let phase: 'starting' | 'prompted' | 'running' | 'settled' = 'starting';
  let settled: (aborted: boolean) => void = () => {};
  const settledP = new Promise<boolean>((r) => (settled = r));
  const child = RpcChild.start({
    pi: opts.pi,
    args: ['--session', opts.sessionFile, ...(opts.piArgs ?? [])],
    cwd: opts.cwd,
    env: opts.env,
    onRecord: (rec) => {
      safely(() => opts.onRecord?.(rec));
      if (phase === 'starting' || phase === 'settled') return;
      // (a run an extension started before ours would settle first: ours is the one with the prompt in it)
      if (
        phase === 'prompted' &&
        rec.type === 'message_start' &&
        (rec.message as { role?: unknown } | undefined)?.role === 'user'
      )
        phase = 'running';
      if (phase !== 'running') return;
      const ev = turnEventOf(rec);
      if (ev) safely(() => opts.onEvent?.(ev));
      if (rec.type === 'agent_settled') {
        phase = 'settled';
        settled(rec.aborted === true);
      }
    },
  });
  const pid = child.pid;
  let from = 0;
  const result = async (aborted: boolean): Promise<TurnResult> => {
    await child.stop();
    const entries = await readAppended(opts.sessionFile, from).catch(() => []);
    const last = entries.at(-1);
    return {
      ...summarizeTurn(entries),
      leafId: last ? last.id : null,
      entries,
      aborted,
      ms: Math.round(performance.now() - t0),
      pid,
    };
  };
  let onAbort = () => {};
  const cancelled = new Promise<void>((r) => {
    onAbort = () => r();
    if (opts.signal?.aborted) r();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    // Started: pi answers once it has opened the session (a start may take seconds; a broken one exits).
    try {
      await Promise.race([
        child.send({ type: 'get_state' }, opts.startTimeoutMs ?? 120_000),
        cancelled.then(() => {
          throw new TurnError('cancelled', 'cancelled before the prompt was sent; nothing was prompted');
        }),
      ]);
    } catch (e) {
      if (e instanceof TurnError) throw e;
      throw new TurnError('start', `pi did not start: ${(e as Error).message}`);
    }
    await opts.beforePrompt?.({ pid, send: (cmd) => child.send(cmd, REPLY_MS) });
    if (opts.signal?.aborted)
      throw new TurnError('cancelled', 'cancelled before the prompt was sent; nothing was prompted');
    await refuseCommand(child, opts.prompt);
    // (the turn's entries start here: the model change pi records for set_model is one of them)
    from = existsSync(opts.sessionFile) ? statSync(opts.sessionFile).size : 0;
    if (opts.model) await command(child, { type: 'set_model', provider: opts.model.provider, modelId: opts.model.id });
    phase = 'prompted';
    const taken = (await command(child, { type: 'prompt', message: opts.prompt })) as
      { disposition?: string } | undefined;
    if (taken?.disposition === 'handled') {
      phase = 'settled';
      throw new TurnError(
        'refused',
        'pi handled the prompt itself (an extension command, or an extension that takes such input): no turn ran',
      );
    }
    safely(() => opts.onEvent?.({ kind: 'started', via: 'headless', pid }));
    const end = await Promise.race([
      settledP,
      child.exited.then((why) => ({ exited: why })),
      cancelled.then(() => ({ cancel: true }) as const),
    ]);
    if (typeof end === 'object' && 'exited' in end)
      throw new TurnError('exited', `pi exited during the turn: ${end.exited}`, await result(false));
    if (typeof end === 'object' && 'cancel' in end) {
      // pi answers `abort` once it is idle again: the aborted message is written by then.
      await child.send({ type: 'abort' }, REPLY_MS).catch(() => undefined);
      // (its agent_settled comes with it; a pi that does not end the turn is stopped by result's stop)
      await within(Promise.race([settledP, child.exited]), SETTLE_MS);
      throw new TurnError(
        'cancelled',
        'cancelled: pi aborted the turn (what it wrote of it stays)',
        await result(true),
      );
    }
    const r = await result(end);
    if (r.stopReason === 'error')
      throw new TurnError('failed', r.errorMessage ?? 'the model call failed (pi recorded no message)', r);
    if (end) throw new TurnError('cancelled', 'pi aborted the turn (an extension, or pi itself)', r);
    return r;
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    await child.stop();
  }
}

/** Resolves when `p` does or after `ms`, whichever comes first. */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/**
 * pi runs a prompt that names one of its extension commands as that command, not as a turn (RPC
 * prompts always dispatch commands; templates and skills expand, as typed in pi): such a prompt is
 * refused before it is sent, as the bridge refuses it.
 */
async function refuseCommand(child: RpcChild, prompt: string): Promise<void> {
  const name = /^\/(\S+)/.exec(prompt)?.[1];
  if (!name) return;
  const data = (await command(child, { type: 'get_commands' })) as
    { commands?: { name?: unknown; source?: unknown }[] } | undefined;
  if ((data?.commands ?? []).some((c) => c.source === 'extension' && c.name === name)) {
    throw new TurnError('refused', `"/${name}" is a pi command, not a question: run it in pi; nothing was asked`);
  }
}

/** A caller's listener that throws does not break the turn (nor pi's protocol stream). */
function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // the listener's own problem
  }
}

/** Sends a command whose failure is pi refusing: a TurnError `refused` with pi's words (or `start` when pi is gone). */
async function command(child: RpcChild, cmd: { type: string; [key: string]: unknown }): Promise<unknown> {
  try {
    return await child.send(cmd, REPLY_MS);
  } catch (e) {
    if (e instanceof PiCommandError) throw new TurnError('refused', e.message);
    if (e instanceof PiProcessError) throw new TurnError('exited', e.message);
    throw e;
  }
}
