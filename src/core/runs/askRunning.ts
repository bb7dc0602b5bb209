// Ask from a node through the pi that runs the session (its pi-tree bridge, the `ask` op): pi moves its
// own leaf, sets the model and takes the prompt as a user message, so the turn is pi's in every way
// (its window shows it; it goes on from there). The bridge answers once the turn has started; the
// turn's text and tools come as events, its end as `askEnded` naming the entries pi appended, which are
// then read from the file (the truth; an answer may be longer than a bridge line). Cancel is `abortAsk`.
import { statSync } from 'node:fs';
import { actionKey, BridgeClient } from '../piClient/client.js';
import type { LiveBridgeInfo } from '../piClient/discovery.js';
import type { BridgeEvent } from '../piClient/protocol.js';
import { TurnError, type RunModel, type TurnResult } from './runTurn.js';
import { readAppended, summarizeTurn } from './turnEntries.js';
import type { TurnEvent } from './turnEvents.js';

export interface RunningAsk {
  file: string;
  entryId: string;
  prompt: string;
  model?: RunModel;
  waitMs?: number;
  signal?: AbortSignal;
  onEvent?: (e: TurnEvent) => void;
}

export interface RunningAskResult extends TurnResult {
  fromLeafId: string | null;
  previousLeafId: string | null;
}

type Ended = Extract<BridgeEvent, { event: 'askEnded' }>;

/** How long the bridge may take to answer an ask: its wait for idle, the move, and pi's start of the turn (30 s on its side). */
const ASK_REPLY_MS = 90_000;
/** How long pi may take to end an aborted turn, and the file to show what pi said it appended. */
const AFTER_MS = 60_000;

export async function askRunning(live: LiveBridgeInfo, a: RunningAsk): Promise<RunningAskResult> {
  const t0 = performance.now();
  const pid = live.record.pid;
  const client = await BridgeClient.connect(live.record);
  const events: BridgeEvent[] = [];
  let askId: string | undefined;
  let wake = () => {};
  const onAbort = () => wake();
  const emit = (ev: BridgeEvent) => {
    if (ev.event === 'askDelta') a.onEvent?.({ kind: ev.kind, delta: ev.delta });
    else if (ev.event === 'askTool')
      a.onEvent?.({
        kind: 'tool',
        phase: ev.phase,
        name: ev.name,
        id: ev.toolCallId,
        ...(ev.isError !== undefined ? { isError: ev.isError } : {}),
      });
    else if (ev.event === 'askEnded') a.onEvent?.({ kind: 'ended', aborted: ev.aborted });
  };
  const listener = (ev: BridgeEvent) => {
    if (!('askId' in ev)) return;
    // (events before the reply named the ask are kept and replayed once it did)
    if (askId === undefined) events.push(ev);
    else if (ev.askId === askId) {
      events.push(ev);
      safely(() => emit(ev));
    }
    wake();
  };
  try {
    await client.subscribe(listener);
    // Where the file ends now: what pi appends for the turn comes after it.
    const from = statSync(a.file).size;
    if (a.signal?.aborted) throw new TurnError('cancelled', 'cancelled before the prompt was sent; nothing was done');
    const waitMs = a.waitMs ?? 0;
    const data = await client.request(
      'ask',
      { targetId: a.entryId, prompt: a.prompt, ...(a.model ? { model: a.model } : {}), waitMs, key: actionKey() },
      { timeoutMs: waitMs + ASK_REPLY_MS },
    );
    askId = data.askId;
    safely(() => a.onEvent?.({ kind: 'started', via: 'running', pid }));
    for (const ev of events.splice(0)) if ('askId' in ev && ev.askId === askId) events.push(ev);
    for (const ev of events) safely(() => emit(ev));
    const closed = new Promise<Error>((r) =>
      client.onClose((e) => r(e ?? new Error('the connection to pi was closed'))),
    );
    void closed.then(() => wake());
    a.signal?.addEventListener('abort', onAbort, { once: true });
    const ended = () => events.find((ev): ev is Ended => ev.event === 'askEnded' && ev.askId === askId);
    let cancelSent = false;
    let abortDeadline = 0;
    for (;;) {
      const done = ended();
      if (done) {
        const r = await resultOf(a.file, from, done, pid, data, t0);
        if (done.error) throw new TurnError('failed', done.error, r);
        if (done.aborted)
          throw new TurnError(
            'cancelled',
            cancelSent
              ? 'cancelled: pi aborted the turn (what it wrote of it stays)'
              : 'pi aborted the turn (in its window, or an extension)',
            r,
          );
        return r;
      }
      if (client.closed)
        throw new TurnError('exited', `pi ${pid} went away during the turn: ${(await closed).message}`);
      if (a.signal?.aborted && !cancelSent) {
        cancelSent = true;
        abortDeadline = Date.now() + AFTER_MS;
        await client.request('abortAsk', { askId }).catch(() => undefined);
      }
      if (cancelSent && Date.now() > abortDeadline)
        throw new TurnError('cancelled', `cancelled, but pi ${pid} did not end the turn within ${AFTER_MS / 1000} s`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, cancelSent ? 200 : 5_000);
        wake = () => {
          clearTimeout(t);
          r();
        };
      });
    }
  } finally {
    a.signal?.removeEventListener('abort', onAbort);
    client.close();
  }
}

/** The entries pi appended for the turn, read from the file (they are there when pi settles; the wait is bounded). */
async function resultOf(
  file: string,
  from: number,
  done: Ended,
  pid: number,
  data: { fromLeafId: string | null; previousLeafId: string | null },
  t0: number,
): Promise<RunningAskResult> {
  const want = new Set(done.entryIds);
  const deadline = Date.now() + AFTER_MS;
  for (;;) {
    const all = await readAppended(file, from);
    const entries = all.filter((e) => want.has(e.id));
    if (entries.length === want.size || Date.now() > deadline) {
      if (entries.length !== want.size)
        throw new TurnError(
          'exited',
          `pi ${pid} ended the turn, but the session file does not hold the ${want.size - entries.length} entries it named`,
        );
      const ms = Math.round(performance.now() - t0);
      return {
        ...summarizeTurn(entries),
        pid,
        leafId: done.leafId,
        fromLeafId: data.fromLeafId,
        previousLeafId: data.previousLeafId,
        entries,
        aborted: done.aborted,
        ms,
      };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // the caller's listener
  }
}
