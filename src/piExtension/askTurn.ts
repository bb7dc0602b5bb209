// The turn an `ask` started in the running pi (ops.ts ask), followed through pi's events: sent (the
// prompt handed to pi.sendUserMessage, pi still idle), running (pi's run started: agent_start), ended
// (agent_settled). While it runs its text and tool calls are pushed to subscribers (askDelta, askTool);
// when pi settles, askEnded names what pi appended, the answer's entry and pi's error, if any. One asked
// turn at a time: pi runs one run at a time, and a second ask waits for idle like every change.
import type {
  AgentSettledEvent,
  ExtensionContext,
  MessageUpdateEvent,
  ToolExecutionEndEvent,
  ToolExecutionStartEvent,
} from '@earendil-works/pi-coding-agent';
import { nanoid } from 'nanoid';
import type { AbortAskData, BridgeEvent } from '../core/piClient/protocol.js';
import { BridgeFailure } from './server.js';

interface Turn {
  askId: string;
  state: 'sent' | 'running';
  /** How many entries pi held when the prompt went in: what it appends after is the turn's. */
  known: number;
  started: () => void;
  failed: (e: Error) => void;
  whenStarted: Promise<void>;
}

type Entry = { id: string; type: string; message?: { role?: string; stopReason?: unknown; errorMessage?: unknown } };

export class AskTurns {
  private turn: Turn | undefined;

  constructor(
    private readonly ctx: ExtensionContext,
    private readonly broadcast: (ev: BridgeEvent) => void,
  ) {}

  /** An asked turn is being prepared or sent and pi has not started it yet (pi is idle, but not free). */
  get starting(): boolean {
    return this.turn?.state === 'sent';
  }

  /** Registers the turn before anything is done for it (pi's entries from here on are the turn's). */
  begin(): { askId: string; whenStarted: Promise<void> } {
    if (this.turn)
      throw new BridgeFailure('busy', 'pi is running an asked turn; nothing was done. Try again when it is idle.');
    let started = () => {};
    let failed: (e: Error) => void = () => {};
    const whenStarted = new Promise<void>((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    whenStarted.catch(() => {});
    const t: Turn = {
      askId: nanoid(),
      state: 'sent',
      known: this.ctx.sessionManager.getEntries().length,
      started,
      failed,
      whenStarted,
    };
    this.turn = t;
    return { askId: t.askId, whenStarted };
  }

  /**
   * Waits until pi's run has started; past `ms` (pi took the message but started nothing: an extension
   * handled it, or pi refused it and said why in its own window) the turn is forgotten and this fails.
   */
  async started(askId: string, ms: number): Promise<void> {
    const t = this.turn;
    if (!t || t.askId !== askId) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        t.whenStarted,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new BridgeFailure(
                  'failed',
                  `pi started no turn for the prompt within ${Math.round(ms / 1000)} s (an extension may have handled it, or pi refused it: pi shows why)`,
                ),
              ),
            ms,
          );
        }),
      ]);
    } catch (e) {
      if (this.turn === t && t.state === 'sent') this.turn = undefined;
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Nothing was asked after all (a check failed, or sendUserMessage threw). */
  drop(askId: string): void {
    if (this.turn?.askId === askId) this.turn = undefined;
  }

  // ---- pi's events ----

  onAgentStart(): void {
    const t = this.turn;
    if (!t || t.state !== 'sent') return;
    t.state = 'running';
    t.started();
  }

  onMessageUpdate(e: MessageUpdateEvent): void {
    const t = this.running();
    if (!t) return;
    const ev = e.assistantMessageEvent as { type?: string; delta?: unknown };
    if ((ev.type === 'text_delta' || ev.type === 'thinking_delta') && typeof ev.delta === 'string' && ev.delta) {
      this.broadcast({
        event: 'askDelta',
        askId: t.askId,
        kind: ev.type === 'text_delta' ? 'text' : 'thinking',
        delta: ev.delta,
      });
    }
  }

  onTool(e: ToolExecutionStartEvent | ToolExecutionEndEvent): void {
    const t = this.running();
    if (!t) return;
    const end = e.type === 'tool_execution_end';
    this.broadcast({
      event: 'askTool',
      askId: t.askId,
      phase: end ? 'end' : 'start',
      name: e.toolName,
      toolCallId: e.toolCallId,
      ...(end ? { isError: e.isError } : {}),
    });
  }

  onSettled(e: AgentSettledEvent): void {
    const t = this.running();
    if (!t) return;
    this.turn = undefined;
    const sm = this.ctx.sessionManager;
    const appended = (sm.getEntries() as Entry[]).slice(t.known);
    const answer = [...appended].reverse().find((x) => x.type === 'message' && x.message?.role === 'assistant');
    const m = answer?.message;
    const error =
      m?.stopReason === 'error'
        ? typeof m.errorMessage === 'string' && m.errorMessage
          ? m.errorMessage
          : 'the model call failed'
        : undefined;
    this.broadcast({
      event: 'askEnded',
      askId: t.askId,
      leafId: sm.getLeafId(),
      entryIds: appended.map((x) => x.id),
      ...(answer ? { answerId: answer.id } : {}),
      aborted: e.aborted,
      ...(error ? { error: error.slice(0, 4000) } : {}),
    });
  }

  /** Aborts the asked turn `askId` if it still runs (pi's own abort; askEnded follows, aborted). */
  abort(askId: string): AbortAskData {
    const t = this.turn;
    if (!t || t.askId !== askId) return { aborting: false };
    if (t.state === 'sent') {
      // Not started yet: it never will be for this caller.
      this.turn = undefined;
      t.failed(new BridgeFailure('cancelled', 'the ask was cancelled before pi started its turn'));
    }
    this.ctx.abort();
    return { aborting: true };
  }

  /** The session ends: a turn still waiting to start fails. */
  close(): void {
    const t = this.turn;
    this.turn = undefined;
    if (t?.state === 'sent')
      t.failed(new BridgeFailure('closing', 'pi left this session before the asked turn started'));
  }

  private running(): Turn | undefined {
    return this.turn?.state === 'running' ? this.turn : undefined;
  }
}
