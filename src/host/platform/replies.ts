// The host end of the request/reply stack (src/shared/messaging.ts), for the tree and the compare view
// alike: what the gate refused is logged (once per flood) and answered when it was a request; a request
// gets exactly one reply, its handler's data or its error's message.
import type { Reply } from '../../shared/messaging.js';
import type { GateResult } from '../panels/webviewGate.js';
import { log } from './log.js';

/** A message the gate refused: `where` names the webview in the log. */
export function refuse(
  check: Extract<GateResult<unknown>, { ok: false }>,
  post: (r: Reply) => void,
  where: string,
): void {
  if (check.warn) log().warn(`${where}: ${check.reason}`);
  if (check.replySeq !== undefined)
    post({ type: 'reply', seq: check.replySeq, ok: false, error: `Rejected: ${check.reason}` });
}

/** Runs the handler of request `seq` and posts its one reply. */
export async function answer(
  seq: number,
  kind: string,
  work: () => Promise<unknown>,
  post: (r: Reply) => void,
): Promise<void> {
  try {
    const data = await work();
    post({ type: 'reply', seq, ok: true, data: data ?? null });
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    log().warn(`request ${kind} failed: ${msg}`);
    post({ type: 'reply', seq, ok: false, error: msg });
  }
}
