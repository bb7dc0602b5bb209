// "Ask from here" on the host: what the tree's askFrom, cancelAsk and listModels requests do around
// the AskService (askService.ts). Refused in Restricted Mode (it starts pi) and for a read-only session;
// a session some pi writes without the bridge asks first (a second pi would write beside it); then one
// turn at a time per tree, under a cancellable progress notification whose Cancel (or the tree's)
// makes pi abort the turn. A pi with the bridge that is busy is waited for briefly, then the user is
// asked to wait longer or cancel, as moves do (piGateway.ts). While pi writes, the session is read
// again as pi reports (its appends show in the tree live, also where no folder watcher sees the file);
// pi's failures are shown in words and returned to the tree.
import * as vscode from 'vscode';
import type { Session } from '../../core/session/session.js';
import type { ModelList, ModelRef, Replies } from '../../protocol.js';
import { showError } from '../platform/log.js';
import type { SessionActions } from '../panels/sessionActions.js';
import { AskCancelledError, PiBusyError, type AskEvent, type AskService } from './askService.js';

/** What the flow needs of one tree. */
export interface AskContext {
  session: Session;
  file: string;
  actions: Pick<SessionActions, 'need' | 'checkWritable' | 'piRunning' | 'guard'>;
  ask: AskService;
  /** This tree's turn in flight. */
  asking: AskSlot;
}

/** How long a busy pi is waited for before the user is asked (as piGateway's first attempt). */
export const FIRST_WAIT_MS = 1500;
/** How long "Wait for pi" waits. */
export const LONG_WAIT_MS = 5 * 60_000;
/** How often the session is read again while pi reports progress. */
const FOLLOW_MS = 250;

const RESTRICTED = 'Ask from here is not available in Restricted Mode (it starts pi): trust this workspace first.';

/**
 * The one turn a tree runs at a time, and its cancellation. The turn outlives the tree: closing the
 * tree leaves pi's turn running, cancellable from its notification.
 */
export class AskSlot {
  private cts: vscode.CancellationTokenSource | undefined;

  get running(): boolean {
    return this.cts !== undefined;
  }

  /** A turn begins; throws while another runs. */
  start(): vscode.CancellationTokenSource {
    if (this.cts)
      throw new Error('pi is already answering a question asked from this tree: wait for it, or cancel it first.');
    this.cts = new vscode.CancellationTokenSource();
    return this.cts;
  }

  end(cts: vscode.CancellationTokenSource): void {
    if (this.cts === cts) this.cts = undefined;
    cts.dispose();
  }

  /** Cancels the turn in flight; false when none runs. */
  cancel(): boolean {
    if (!this.cts) return false;
    this.cts.cancel();
    return true;
  }
}

/** The askFrom request: one turn of pi from `id`, in the tree's session. */
export async function askFromHere(
  cx: AskContext,
  b: { id: string; prompt: string; model?: ModelRef },
): Promise<Replies['askFrom']> {
  try {
    return await ask(cx, b);
  } catch (e) {
    if (e instanceof AskCancelledError) return { cancelled: true };
    // In words, where the user looks (the notification) and in the tree (the request's error).
    void showError('pi-tree: Ask from here failed', e);
    throw e;
  }
}

async function ask(cx: AskContext, b: { id: string; prompt: string; model?: ModelRef }): Promise<Replies['askFrom']> {
  cx.actions.need(b.id);
  if (!vscode.workspace.isTrusted) throw new Error(RESTRICTED);
  cx.actions.checkWritable();
  if (!b.prompt.trim()) throw new Error('The prompt is empty: nothing was asked.');
  const cts = cx.asking.start();
  try {
    // No pi of ours runs the session: a headless pi will write it. One writing it without the bridge asks first.
    if (!(await cx.actions.piRunning()) && (await cx.actions.guard('start another pi on it', false)) !== true)
      return { cancelled: true };
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'pi: Ask from here', cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => cts.cancel());
        let said = '';
        const say = (message: string) => {
          if (message === said) return;
          said = message;
          progress.report({ message });
        };
        const follow = follower(cx.session);
        let headless = false;
        try {
          for (let waitMs = FIRST_WAIT_MS; ; waitMs = LONG_WAIT_MS) {
            try {
              const onEvent = (e: AskEvent) => {
                if (e.kind === 'started') headless = e.via === 'headless';
                const text = progressText(e);
                if (text) say(text);
                follow.poke();
              };
              const r = await cx.ask.ask(
                { session: cx.session, file: cx.file, entryId: b.id, prompt: b.prompt, model: b.model, waitMs },
                cts.token,
                onEvent,
              );
              // The tree has the turn's entries before the reply (which selects the answer).
              await cx.session.refresh();
              return { answerId: r.answerId, leafId: r.leafId, via: r.via, pid: r.pid };
            } catch (e) {
              if (!(e instanceof PiBusyError) || waitMs >= LONG_WAIT_MS || cts.token.isCancellationRequested) throw e;
              const wait = await vscode.window.showWarningMessage(
                `${e.message}. Wait until it is idle, or cancel?`,
                { modal: true },
                'Wait for pi',
              );
              if (wait !== 'Wait for pi' || cts.token.isCancellationRequested) return { cancelled: true } as const;
              say(`waiting for pi${e.pid ? ` (pid ${e.pid})` : ''} to finish its turn…`);
            }
          }
        } finally {
          follow.stop();
          // What pi wrote of a failed or cancelled turn shows as well.
          await cx.session.refresh().catch(() => undefined);
          // pi-tree's own pi wrote the turn and has exited: the file as read now is pi-tree's doing, so
          // it does not look live (else the next ask or move warns of another pi writing it).
          if (headless) cx.session.ownWriteSize = cx.session.readSize;
        }
      },
    );
  } catch (e) {
    if (cts.token.isCancellationRequested && !(e instanceof AskCancelledError)) throw new AskCancelledError();
    throw e;
  } finally {
    cx.asking.end(cts);
  }
}

/** The cancelAsk request: the tree's turn in flight, if any, is aborted by pi. */
export function cancelAsk(cx: Pick<AskContext, 'asking'>): Replies['cancelAsk'] {
  return { cancelling: cx.asking.cancel() };
}

/** The listModels request: pi's models for the picker (it starts pi, so not in Restricted Mode). */
export async function listModels(
  cx: Pick<AskContext, 'session' | 'ask'>,
  token: vscode.CancellationToken,
): Promise<ModelList> {
  if (!vscode.workspace.isTrusted)
    throw new Error("pi's models are not listed in Restricted Mode (it starts pi): trust this workspace first.");
  return cx.ask.models(cx.session, token);
}

/** What the notification says of a turn's progress (undefined: nothing new to say). */
export function progressText(e: AskEvent): string | undefined {
  switch (e.kind) {
    case 'started':
      return e.via === 'running'
        ? `pi (pid ${e.pid}) is answering…`
        : `pi is answering (pid ${e.pid}, started by pi-tree)…`;
    case 'text':
      return 'writing the answer…';
    case 'thinking':
      return 'thinking…';
    case 'tool':
      return e.phase === 'start' ? `running ${e.name}…` : 'working…';
    case 'retry':
      return `retrying (${e.attempt}/${e.maxAttempts}) after: ${e.error}`;
    case 'compaction':
      return e.phase === 'start' ? 'compacting the context…' : 'working…';
    case 'ended':
      return e.aborted ? 'aborted' : 'done';
  }
}

/** Reads the session again at most every FOLLOW_MS while pi reports: its appends reach the tree as they land. */
function follower(session: Session): { poke(): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  return {
    poke() {
      if (timer || stopped) return;
      timer = setTimeout(() => {
        timer = undefined;
        if (!stopped) void session.refresh().catch(() => undefined);
      }, FOLLOW_MS);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
