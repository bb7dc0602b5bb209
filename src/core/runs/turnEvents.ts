// What a caller sees of a turn while it runs, the same whether a headless pi runs it (its RPC events,
// pi's docs/json.md) or the pi running the session (the bridge's ask events): enough for a progress line,
// the answer streaming in, and the tools being called. The turn's durable result is what pi writes in
// the session file (turnEntries.ts), never these events.
import type { PiRecord } from './rpcChild.js';

export type TurnEvent =
  /** pi took the prompt and runs the turn: `via` the pi running the session or a headless one, its pid. */
  | { kind: 'started'; via: 'running' | 'headless'; pid: number }
  /** A piece of the assistant's answer (`text`) or of its thinking, as the model streams it. */
  | { kind: 'text' | 'thinking'; delta: string }
  /** A tool call runs (`start`) or has run (`end`). */
  | { kind: 'tool'; phase: 'start' | 'end'; name: string; id: string; isError?: boolean }
  /** pi retries the model call after a provider error (its auto-retry). */
  | { kind: 'retry'; attempt: number; maxAttempts: number; delayMs: number; error: string }
  /** pi compacts the context before it can go on. */
  | { kind: 'compaction'; phase: 'start' | 'end' }
  /** The turn has ended (pi settled); the result follows. */
  | { kind: 'ended'; aborted: boolean };

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The TurnEvent a record of pi's RPC stream stands for, if any. */
export function turnEventOf(rec: PiRecord): TurnEvent | undefined {
  switch (rec.type) {
    case 'message_update': {
      const e = rec.assistantMessageEvent as { type?: string; delta?: unknown } | undefined;
      if (e?.type === 'text_delta') return { kind: 'text', delta: str(e.delta) };
      if (e?.type === 'thinking_delta') return { kind: 'thinking', delta: str(e.delta) };
      return undefined;
    }
    case 'tool_execution_start':
      return { kind: 'tool', phase: 'start', name: str(rec.toolName), id: str(rec.toolCallId) };
    case 'tool_execution_end':
      return {
        kind: 'tool',
        phase: 'end',
        name: str(rec.toolName),
        id: str(rec.toolCallId),
        isError: rec.isError === true,
      };
    case 'auto_retry_start':
      return {
        kind: 'retry',
        attempt: num(rec.attempt),
        maxAttempts: num(rec.maxAttempts),
        delayMs: num(rec.delayMs),
        error: str(rec.errorMessage),
      };
    case 'compaction_start':
      return { kind: 'compaction', phase: 'start' };
    case 'compaction_end':
      return { kind: 'compaction', phase: 'end' };
    case 'agent_settled':
      return { kind: 'ended', aborted: rec.aborted === true };
    default:
      return undefined;
  }
}
