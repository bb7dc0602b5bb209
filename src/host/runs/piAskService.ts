// AskService over pi-tree's run core (core/runs/: askFrom, listModels). The core's functions come in as
// `AskCore` (activate.ts hands the real ones, tests a fake), so this file only finds the user's pi, turns a VS Code token into
// an AbortSignal, and words the core's failures for the user: a busy pi becomes PiBusyError (the flow
// asks whether to wait), a cancelled turn AskCancelledError, pi's refusals and failures pi's own words.
import { dirname } from 'node:path';
import type * as vscode from 'vscode';
import { BridgeError } from '../../core/piClient/client.js';
import { findBridge, PiUnresponsiveError, type DiscoveryOptions } from '../../core/piClient/discovery.js';
import { findPi, PiNotFoundError, type PiProgram } from '../../core/platform/piProgram.js';
import type { Session } from '../../core/session/session.js';
import type { ModelList, ModelRef } from '../../protocol.js';
import {
  AskCancelledError,
  PiBusyError,
  type AskAnswer,
  type AskEvent,
  type AskQuestion,
  type AskService,
} from './askService.js';

/**
 * The core functions this service calls, by their names in core/runs/ (askFrom.ts, listModels.ts):
 * the parts of their options and results it uses. The compiler checks the real ones against it where
 * activate.ts hands them over.
 */
export interface AskCore {
  askFrom(o: {
    sessionFile: string;
    entryId: string;
    prompt: string;
    model?: ModelRef;
    pi?: PiProgram;
    env?: NodeJS.ProcessEnv;
    discovery?: DiscoveryOptions;
    waitMs?: number;
    signal?: AbortSignal;
    onEvent?: (e: AskEvent) => void;
  }): Promise<{
    via: 'running' | 'headless';
    pid: number;
    answerId: string | null;
    answer: string;
    leafId: string | null;
  }>;
  listModels(o: { pi: PiProgram; env?: NodeJS.ProcessEnv; cwd?: string; signal?: AbortSignal }): Promise<{
    models: { provider: string; id: string; name?: string }[];
    defaultModel?: ModelRef;
  }>;
}

export interface PiAskDeps {
  /** The run core (a fake in tests). */
  core: AskCore;
  /** The `piTree.piCommand` setting. */
  piCommand(): string;
  /** Where running pis' bridges are recorded (the registry's places). */
  discoveryDirs: string[];
  env?: NodeJS.ProcessEnv;
}

/** How long the list of a folder's models is kept (pi's configuration rarely changes meanwhile). */
const MODELS_TTL_MS = 5 * 60_000;

export function createAskService(deps: PiAskDeps): AskService {
  const env = () => deps.env ?? process.env;
  const discovery = (): DiscoveryOptions => ({ env: env(), dirs: deps.discoveryDirs });
  /** The user's pi, never one planted in the session's folder or its working folder (findPi's rule). */
  const userPi = (session: Session, file: string) =>
    findPi(deps.piCommand(), {
      env: env(),
      avoid: [dirname(file), String(session.header.cwd ?? '')].filter(Boolean),
    }).then(
      (p): PiProgram | Error => p,
      (e: Error) => e,
    );
  const modelCache = new Map<string, { at: number; list: Promise<ModelList> }>();

  return {
    async ask(q: AskQuestion, token: vscode.CancellationToken, onEvent?: (e: AskEvent) => void): Promise<AskAnswer> {
      const core = deps.core;
      const pi = await userPi(q.session, q.file);
      if (token.isCancellationRequested)
        throw new AskCancelledError('Cancelled before pi was asked: nothing was asked.');
      const signal = toSignal(token);
      try {
        const r = await core.askFrom({
          sessionFile: q.file,
          entryId: q.entryId,
          prompt: q.prompt,
          ...(q.model ? { model: q.model } : {}),
          pi: pi instanceof Error ? undefined : pi,
          env: env(),
          discovery: discovery(),
          waitMs: q.waitMs,
          signal,
          onEvent,
        });
        return { answerId: r.answerId, answer: r.answer, leafId: r.leafId, via: r.via, pid: r.pid };
      } catch (e) {
        if (token.isCancellationRequested) throw new AskCancelledError(cancelledText(e));
        if (e instanceof BridgeError && e.code === 'busy') {
          const pid = await findBridge(q.file, discovery()).then(
            (b) => b?.record.pid,
            () => undefined,
          );
          throw new PiBusyError(pid);
        }
        throw new Error(askErrorText(e, pi instanceof Error ? pi : undefined), { cause: e });
      }
    },

    async models(session: Session, token: vscode.CancellationToken): Promise<ModelList> {
      const core = deps.core;
      const cwd = String(session.header.cwd ?? '');
      const kept = modelCache.get(cwd);
      if (kept && Date.now() - kept.at < MODELS_TTL_MS) return kept.list;
      const list = (async (): Promise<ModelList> => {
        const pi = await userPi(session, session.path ?? '');
        if (pi instanceof Error)
          throw new Error(`pi's models cannot be listed: ${pi.message} Set piTree.piCommand.`, { cause: pi });
        const r = await core.listModels({ pi, env: env(), ...(cwd ? { cwd } : {}), signal: toSignal(token) });
        return {
          models: r.models.map((m) => ({ provider: m.provider, id: m.id, ...(m.name ? { name: m.name } : {}) })),
          ...(r.defaultModel ? { defaultModel: { provider: r.defaultModel.provider, id: r.defaultModel.id } } : {}),
        };
      })();
      modelCache.set(cwd, { at: Date.now(), list });
      // A failure is not kept: the next picker asks again.
      list.catch(() => modelCache.get(cwd)?.list === list && modelCache.delete(cwd));
      return list;
    },
  };
}

function toSignal(token: vscode.CancellationToken): AbortSignal {
  const ac = new AbortController();
  if (token.isCancellationRequested) ac.abort();
  token.onCancellationRequested(() => ac.abort());
  return ac.signal;
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The core's TurnError (core/runs/runTurn.ts), told by its name and code. */
function turnCode(e: unknown): string | undefined {
  const code = e instanceof Error && e.name === 'TurnError' ? (e as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

function cancelledText(e: unknown): string {
  return turnCode(e) === 'cancelled'
    ? `Cancelled: ${messageOf(e)}`
    : 'Cancelled: pi aborted the turn; what it wrote of it stays in the session.';
}

/** A failure of the core in words for the user; `noPi`: why the user's pi was not found, if it was not. */
export function askErrorText(e: unknown, noPi?: Error): string {
  const msg = messageOf(e);
  if (e instanceof PiUnresponsiveError) return `${msg}. Resume it (fg in its terminal), then ask again.`;
  if (e instanceof PiNotFoundError) return `${msg} Set piTree.piCommand.`;
  if (e instanceof Error && e.name === 'AskInputError' && noPi && /no pi program/.test(msg)) {
    return `No pi with the pi-tree bridge runs this session, and pi-tree cannot start one: ${noPi.message} Set piTree.piCommand.`;
  }
  if (e instanceof BridgeError) return `pi refused: ${msg}`;
  switch (turnCode(e)) {
    case 'start':
      return `pi did not start: ${msg}`;
    case 'refused':
      return `pi refused the prompt: ${msg}. Nothing was asked.`;
    case 'failed':
      return `The model call failed: ${msg}. What pi wrote of the turn stays in the session.`;
    case 'exited':
      return `pi stopped during the turn: ${msg}`;
    default:
      return msg;
  }
}
