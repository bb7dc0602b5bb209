// Ask from here: a new turn from any node of a session, with a prompt (and a model, if given). When a pi
// with pi-tree's bridge runs the session, that pi does it (askRunning.ts): its leaf moves, the turn is its
// own. Otherwise a headless pi does (runTurn.ts): pi-tree first moves the session's leaf to the node the
// way pi's /tree does, by appending its leaf record (Session.moveTo: parentId = the node, so pi resumes
// there), then pi runs the turn under it.
//
// Asking from a user message asks INSTEAD of it: pi's /tree puts the leaf on the message's parent and
// gives its text back to edit, so the new prompt goes beside the message (a sibling, under its parent),
// as if that message had been edited and sent again. Asking from any other entry asks after it.
//
// Checked before anything is written: the entry exists, the prompt is not empty, a given model is one pi
// has (headless: a `pi --no-session` lists them; running: the bridge checks), a running pi that does not
// answer is an error (never "no pi"). When the headless turn never starts (pi refused the prompt: no API
// key, say), the leaf is put back where it was.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { findBridge, type DiscoveryOptions, type LiveBridgeInfo } from '../piClient/discovery.js';
import { verifyBridge } from '../piClient/peer.js';
import type { SessionEntry, Usage } from '../format/types.js';
import type { PiProgram } from '../platform/piProgram.js';
import { moveTarget } from '../session/moveTarget.js';
import { EntryNotFoundError, Session } from '../session/session.js';
import { askRunning } from './askRunning.js';
import { listModels, modelNotFound } from './listModels.js';
import { runTurn, TurnError, type RunModel } from './runTurn.js';
import type { TurnEvent } from './turnEvents.js';

export interface AskFromOptions {
  sessionFile: string;
  /** The node to ask from (a user message: instead of it; see the file's comment). */
  entryId: string;
  prompt: string;
  /** The model for the turn; default: the one the session uses. */
  model?: RunModel;
  /** The user's pi (findPi), to run the turn when no pi runs the session. Without it only a running pi is used. */
  pi?: PiProgram;
  /** For pi and for finding a running pi (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where to look for a running pi (its bridge); default: the environment's places. */
  discovery?: DiscoveryOptions;
  /** A running pi busy with a turn: how long to wait for it to finish (default 0: refused with BridgeError `busy`). */
  waitMs?: number;
  /** Cancels; a turn under way is aborted by pi (what pi wrote of it stays). */
  signal?: AbortSignal;
  /** Progress: started (via which pi), the answer streaming, tools, the end. */
  onEvent?: (e: TurnEvent) => void;
}

export interface AskResult {
  /** Which pi ran the turn: the one running the session, or a headless one pi-tree started. */
  via: 'running' | 'headless';
  pid: number;
  /** The assistant entry that holds the answer (null when pi wrote none). */
  answerId: string | null;
  /** The answer's text. */
  answer: string;
  /** The session's leaf after the turn (pi's). */
  leafId: string | null;
  /** Where the prompt went in: the node, or a user message's parent. */
  fromLeafId: string | null;
  /** The node is a user message: the prompt was asked instead of it (beside it, under its parent). */
  insteadOfUserMessage: boolean;
  /** The user message pi appended for the prompt. */
  promptId?: string;
  /** Everything pi appended for the turn, in file order. */
  entries: SessionEntry[];
  stopReason?: string;
  usage?: Usage;
  cost?: number;
  ms: number;
}

/** Bad input: nothing was written. */
export class AskInputError extends Error {
  override name = 'AskInputError';
}

/** Entry types that add nothing to the model's context: a pi that resumes past them stands at the same node. */
const SILENT = new Set(['thinking_level_change', 'model_change', 'leaf', 'label', 'session_info', 'custom', 'usage']);

/**
 * Whether pi, opening the file now, stands at `leaf`: pi 1.6.0 resumes at the file's last entry line (of
 * any type; a pi-tree leaf record's parent is its target), and entries that add nothing to the context
 * past `leaf` (pi's own startup entries, say) leave it at the same node.
 */
function piStandsAt(session: Session, leaf: string | null): boolean {
  const ix = session.index;
  const path = ix.branchIdx(ix.count - 1);
  let k = path.length - 1;
  while (k >= 0 && ix.idOf(path[k]) !== leaf && SILENT.has(ix.typeOf(path[k]))) k--;
  return leaf === null ? k < 0 : k >= 0 && ix.idOf(path[k]) === leaf;
}

export async function askFrom(o: AskFromOptions): Promise<AskResult> {
  const file = resolve(o.sessionFile);
  const env = o.env ?? process.env;
  if (!o.prompt.trim()) throw new AskInputError('the prompt is empty; nothing was asked');
  const session = await Session.open(file);
  if (!session.index.get(o.entryId)) throw new EntryNotFoundError(o.entryId);
  const { leaf } = await moveTarget(session, o.entryId);
  const instead = leaf !== o.entryId;
  const live = await findBridge(file, { env, ...o.discovery });
  if (live) return askThroughRunning(live, file, env, o, instead);
  const { cwd, pi } = await checkHeadless(session, env, o);
  return askHeadless(session, { file, env, cwd, pi, leaf, instead }, o);
}

/** The pi running the session asks (its bridge checks the model); its leaf moves, the turn is its own. */
async function askThroughRunning(
  live: LiveBridgeInfo,
  file: string,
  env: NodeJS.ProcessEnv,
  o: AskFromOptions,
  instead: boolean,
): Promise<AskResult> {
  verifyBridge(live, file, env);
  const r = await askRunning(live, {
    file,
    entryId: o.entryId,
    prompt: o.prompt,
    model: o.model,
    waitMs: o.waitMs,
    signal: o.signal,
    onEvent: o.onEvent,
  });
  return {
    via: 'running',
    pid: r.pid,
    answerId: r.answerId ?? null,
    answer: r.answer,
    leafId: r.leafId,
    fromLeafId: r.fromLeafId,
    insteadOfUserMessage: instead,
    promptId: r.promptId,
    entries: r.entries,
    stopReason: r.stopReason,
    usage: r.usage,
    cost: r.cost,
    ms: r.ms,
  };
}

/** Before a headless turn writes anything: the session's folder, a writable session, a pi, a model pi has. */
async function checkHeadless(
  session: Session,
  env: NodeJS.ProcessEnv,
  o: AskFromOptions,
): Promise<{ cwd: string; pi: PiProgram }> {
  const cwd = session.header.cwd;
  if (!cwd || !existsSync(cwd))
    throw new AskInputError(
      `the session's folder ${cwd || '(none)'} no longer exists; pi cannot run the session without it; nothing was asked`,
    );
  if (session.readOnly) throw new AskInputError(`this session is read-only: ${session.readOnly}; nothing was asked`);
  if (!o.pi)
    throw new AskInputError(
      'no pi with the pi-tree bridge runs this session, and no pi program was given to start one',
    );
  if (o.model) {
    const { models } = await listModels({ pi: o.pi, env, cwd, signal: o.signal });
    if (!models.some((m) => m.provider === o.model!.provider && m.id === o.model!.id))
      throw new TurnError('refused', modelNotFound(o.model));
  }
  if (o.signal?.aborted) throw new TurnError('cancelled', 'cancelled before anything was written');
  return { cwd, pi: o.pi };
}

/** Where a headless turn goes in: the file, the node pi resumes at (`leaf`), and how to run pi there. */
interface HeadlessPlace {
  file: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  pi: PiProgram;
  leaf: string | null;
  instead: boolean;
}

/** pi-tree moves the leaf (its leaf record), then a headless pi runs the turn; a turn never started puts the leaf back. */
async function askHeadless(session: Session, at: HeadlessPlace, o: AskFromOptions): Promise<AskResult> {
  const { leaf } = at;
  const previousLeafId = session.leafId;
  const moved = await session.moveTo(leaf);
  if (!piStandsAt(session, leaf)) {
    // (pi-tree's leaf is there, but the file's last line would put pi elsewhere: an older writer's record)
    throw new AskInputError(
      `pi would resume this session elsewhere than ${leaf ?? 'the start'}, where pi-tree shows its leaf; move the leaf away and back once, then ask again; nothing was asked`,
    );
  }
  try {
    const r = await runTurn({
      pi: at.pi,
      sessionFile: at.file,
      cwd: at.cwd,
      prompt: o.prompt,
      model: o.model,
      env: at.env,
      signal: o.signal,
      onEvent: o.onEvent,
      // pi resumes at the file's last line: it must still be the move (another writer may have appended since).
      beforePrompt: async () => {
        await session.refresh();
        if (!piStandsAt(session, leaf))
          throw new TurnError(
            'refused',
            `the session changed while pi started (its leaf is now ${session.leafId ?? '(empty)'}, not ${leaf ?? '(empty)'}); nothing was asked`,
          );
      },
    });
    return {
      via: 'headless',
      pid: r.pid,
      answerId: r.answerId ?? null,
      answer: r.answer,
      leafId: r.leafId,
      fromLeafId: leaf,
      insteadOfUserMessage: at.instead,
      promptId: r.promptId,
      entries: r.entries,
      stopReason: r.stopReason,
      usage: r.usage,
      cost: r.cost,
      ms: r.ms,
    };
  } catch (e) {
    // Nothing was asked: the leaf goes back where it was, unless something else moved it meanwhile.
    const notAsked =
      e instanceof TurnError && (e.code === 'start' || e.code === 'refused' || (e.code === 'cancelled' && !e.result));
    if (notAsked && moved.moved) {
      await session.refresh();
      if (piStandsAt(session, leaf)) await session.moveTo(previousLeafId).catch(() => undefined);
    }
    throw e;
  }
}
