// What a routed action must have done, looked for before the CLI says "via pi PID": pi's reply names the
// leaf the move was to reach, then the session file shows it (the leaf record or summary pi wrote, the
// label, the name), and after fork or clone pi runs the new session (its bridge answers for it, with the
// same pid). The bridge writes before it replies, so the file shows it at once; the waits are bounded
// and end on the condition. A peer that only says "ok" (a forged record) ends in a clear error.
import { findBridge, PiUnresponsiveError } from '../core/piClient/discovery.js';
import { verifyBridge } from '../core/piClient/peer.js';
import type { ForkData, GotoData } from '../core/piClient/protocol.js';
import type { MoveTarget } from '../core/session/moveTarget.js';
import type { Session } from '../core/session/session.js';

/** How long the file may take to show what pi replied it did (pi writes before replying). */
const FILE_WAIT_MS = 1000;
/** How long pi may take to announce the new session's bridge after fork or clone. */
const SWITCH_WAIT_MS = 10_000;

export class UnconfirmedError extends Error {
  override name = 'UnconfirmedError';
}

const unconfirmed = (pid: number, what: string, why: string) =>
  new UnconfirmedError(
    `pi ${pid} answered the ${what}, but ${why}: pi-tree cannot confirm it was done (is pid ${pid} really pi? its record may be forged)`,
  );

const show = (id: string | null | undefined) => (id === undefined ? '(none)' : (id ?? '(empty)'));

/** Re-reads `session` until `ok()` holds or the bounded wait ends; true when it held. */
async function fileShows(session: Session, ok: () => boolean): Promise<boolean> {
  const deadline = Date.now() + FILE_WAIT_MS;
  for (;;) {
    await session.refresh();
    if (ok()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A move: pi's leaf is where `target` says (or the summary it wrote there), and the file records it. */
export async function confirmMove(pid: number, session: Session, target: MoveTarget, r: GotoData): Promise<void> {
  const want = r.summaryId ?? target.leaf;
  if (r.leafId !== want) throw unconfirmed(pid, 'move', `its leaf is ${show(r.leafId)}, not ${show(want)}`);
  const idx = () => session.index;
  const ok = r.leafRecordId
    ? () => idx().get(r.leafRecordId!)?.parentId === want
    : r.summaryId
      ? () => idx().get(r.summaryId!)?.parentId === target.leaf
      : () => session.leafId === want;
  if (!(await fileShows(session, ok)))
    throw unconfirmed(
      pid,
      'move',
      `the session file does not show it (no ${r.leafRecordId ? `leaf record ${r.leafRecordId}` : r.summaryId ? `summary ${r.summaryId}` : `leaf at ${show(want)}`})`,
    );
}

/** A label: the file gives `entryId` that label (or none). */
export async function confirmLabel(
  pid: number,
  session: Session,
  entryId: string,
  label: string | undefined,
): Promise<void> {
  const want = label?.trim() || undefined;
  if (!(await fileShows(session, () => session.index.labels.get(entryId)?.label === want)))
    throw unconfirmed(
      pid,
      'label',
      `the session file does not show it (the label of ${entryId} is ${JSON.stringify(session.index.labels.get(entryId)?.label ?? null)})`,
    );
}

/** A name: the file names the session so (pi's rule: newlines become spaces, trimmed). */
export async function confirmName(pid: number, session: Session, name: string): Promise<void> {
  const want = name.replace(/[\r\n]+/g, ' ').trim();
  if (!(await fileShows(session, () => (session.name ?? '') === want)))
    throw unconfirmed(
      pid,
      'name',
      `the session file does not show it (its name is ${JSON.stringify(session.name ?? null)})`,
    );
}

/** Fork or clone: pi (the same pid) now runs the new session, its bridge answering for it. */
export async function confirmSwitch(
  pid: number,
  what: 'fork' | 'clone',
  r: ForkData,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const file = r.sessionFile;
  if (!file) throw unconfirmed(pid, what, 'it named no new session');
  const deadline = Date.now() + SWITCH_WAIT_MS;
  for (;;) {
    try {
      const info = await findBridge(file, { env });
      if (info && info.record.pid === pid) {
        verifyBridge(info, file, env);
        return;
      }
    } catch (e) {
      if (!(e instanceof PiUnresponsiveError)) throw e;
    }
    if (Date.now() > deadline) throw unconfirmed(pid, what, `no pi ${pid} runs ${file}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
