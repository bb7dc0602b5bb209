// The seam between the editor's "Ask from here" and the core that runs pi (core/runs/ on the `ask`
// branch: askFrom through the pi running the session or a headless pi, listModels). The host's flow
// (askFlow.ts: Restricted Mode, read-only, the live question, progress with Cancel, a busy pi) talks
// only to this interface; piAskService.ts implements it over the core, and the tests use a fake.
import type * as vscode from 'vscode';
import type { Session } from '../../core/session/session.js';
import type { ModelList, ModelRef } from '../../protocol.js';

/** One question: pi continues `session` (its file `file`) from `entryId` with `prompt`. */
export interface AskQuestion {
  session: Session;
  file: string;
  entryId: string;
  prompt: string;
  /** The model of the turn; undefined: the session's own. */
  model?: ModelRef;
  /**
   * How long a pi that runs the session may be waited for while it is busy with a turn (ms); past it,
   * nothing is asked and PiBusyError is thrown (the flow asks the user whether to wait longer).
   */
  waitMs: number;
}

/** What a turn reports while it runs (core/runs/turnEvents.ts TurnEvent, the same union). */
export type AskEvent =
  | { kind: 'started'; via: 'running' | 'headless'; pid: number }
  | { kind: 'text' | 'thinking'; delta: string }
  | { kind: 'tool'; phase: 'start' | 'end'; name: string; id: string; isError?: boolean }
  | { kind: 'retry'; attempt: number; maxAttempts: number; delayMs: number; error: string }
  | { kind: 'compaction'; phase: 'start' | 'end' }
  | { kind: 'ended'; aborted: boolean };

export interface AskAnswer {
  /** The assistant entry holding the answer (null when pi wrote none). */
  answerId: string | null;
  answer: string;
  /** The session's leaf after the turn. */
  leafId: string | null;
  via: 'running' | 'headless';
  pid: number;
}

export interface AskService {
  /**
   * Runs one turn and resolves once it has ended. `token` cancels it: pi aborts the turn (what it wrote
   * stays) and the promise rejects with AskCancelledError. Failures reject with an Error worded for
   * the user (pi's own words where pi gave them).
   */
  ask(q: AskQuestion, token: vscode.CancellationToken, onEvent?: (e: AskEvent) => void): Promise<AskAnswer>;
  /** pi's models for the picker (pi started in the session's folder: its project settings count). */
  models(session: Session, token: vscode.CancellationToken): Promise<ModelList>;
}

/** A pi with the bridge runs the session and stayed busy for `waitMs`: nothing was asked. */
export class PiBusyError extends Error {
  override name = 'PiBusyError';
  constructor(readonly pid: number | undefined) {
    super(`pi${pid ? ` (pid ${pid})` : ''} is busy with a turn or a compaction, so nothing was asked yet`);
  }
}

/** The turn was cancelled (by the user); what pi wrote of it stays in the session. */
export class AskCancelledError extends Error {
  override name = 'AskCancelledError';
  constructor(message = 'cancelled') {
    super(message);
  }
}
