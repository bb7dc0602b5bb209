// Restores of the code through the pi running the session: pi is idle (the request waited for it), the
// capture's queue holds still while the files are written, and the files and pi's leaf move as one
// action: the files first, then pi navigates, and a failed or cancelled move puts the files back; a
// failed write leaves the leaf. An undo moves pi's leaf back too when the restore moved it (and pi has
// not moved on since). The core writes and records; pi's moves are made here, in pi.
import type { ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import { agentDirOf } from '../core/piClient/paths.js';
import type { BridgeRequest, CodeUndoData, PlanRestoreData, RestoreCodeData } from '../core/piClient/protocol.js';
import {
  finishPending,
  pendingJournals,
  planCode,
  sameStillHolds,
  putCodeBack,
  recordLeafMoved,
  redoCode,
  sessionCode,
  undoCode,
  writeCodeEarly,
  type RestorePlan,
  type SessionCode,
} from '../core/checkpoints/index.js';
import {
  OutsideWriteError,
  PlanChangedError,
  RestoreRefusedError,
  type Resolution,
} from '../core/checkpoints/index.js';
import { canonicalCwd } from '../core/checkpoints/index.js';
import { Session } from '../core/session/session.js';
import { captureFor, notify } from './checkpoints.js';
import type { BridgeSession } from './bridgeSession.js';
import { BridgeFailure } from './server.js';

async function alone<T>(live: BridgeSession, op: () => Promise<T>): Promise<T> {
  const c = captureFor(live.sessionFile);
  return c ? c.exclusive(op) : op();
}

/** The session's code as this pi sees it: pi's own working folder is the one the user runs it in. */
async function codeOf(live: BridgeSession, ctx: { cwd: string }): Promise<SessionCode> {
  const session = await Session.open(live.sessionFile);
  const own = canonicalCwd(ctx.cwd);
  return sessionCode(session, { agentDir: agentDirOf(process.env), vouched: (cwd) => cwd === own });
}

/** pi's leaf moved to `to` if it is still at `expect` (pi cannot move before the first entry). */
async function navigate(ctx: ExtensionCommandContext, to: string | null, expect: string | null): Promise<boolean> {
  if (to === null || ctx.sessionManager.getLeafId() !== expect) return false;
  const nav = await ctx.navigateTree(to, { summarize: false });
  return !nav.cancelled;
}

/**
 * Finishes what a killed restore left (see finishPending): the files, then pi's leaf for this session's
 * own restores whose conversation move was still due, each recorded where it landed.
 */
async function finishInPi(sc: SessionCode, ctx: ExtensionCommandContext): Promise<void> {
  const { leafDue } = await finishPending(sc);
  for (const j of leafDue) {
    const to = j.leaf!.targetId;
    const moved = await navigate(ctx, to, ctx.sessionManager.getLeafId());
    await recordLeafMoved(sc, j, moved ? ctx.sessionManager.getLeafId() : to);
  }
}

/** A plan made for a preview (planRestore), by session file: the next restoreCode with its fingerprint writes it. */
const planned = new Map<string, { targetId: string; plan: Promise<RestorePlan>; at: number }>();
/** A plan older than this is made again (the user took long enough for pi to have moved on). */
const PLANNED_FOR_MS = 10 * 60_000;

/** Plans the restore the user is previewing, so that the restore itself need not plan again. */
export async function planRestore(live: BridgeSession, r: BridgeRequest<'planRestore'>): Promise<PlanRestoreData> {
  if (!live.ctx.sessionManager.getEntry(r.targetId))
    throw new BridgeFailure('not-found', `entry ${r.targetId} is not in this session`);
  const at = Date.now();
  const plan = codeOf(live, live.ctx).then((sc) => planCode(sc, r.targetId));
  plan.catch(() => {}); // (said to the caller below; a restore that takes it plans again)
  planned.set(live.sessionFile, { targetId: r.targetId, plan, at });
  return { fingerprint: (await plan).fingerprint };
}

/**
 * The plan made for this preview (waited for if still being made), once, while it holds: the write
 * checks every file it writes against it, and the files it found already as at the node must not have
 * changed since (it records them as the agent's).
 */
async function takePlanned(
  live: BridgeSession,
  sc: SessionCode,
  r: BridgeRequest<'restoreCode'>,
): Promise<RestorePlan | undefined> {
  const p = planned.get(live.sessionFile);
  planned.delete(live.sessionFile);
  if (!p || !r.fingerprint || p.targetId !== r.targetId || Date.now() - p.at > PLANNED_FOR_MS) return undefined;
  const plan = await p.plan.catch(() => undefined);
  return plan?.fingerprint === r.fingerprint && sameStillHolds(plan, sc.cwd, p.at) ? plan : undefined;
}

export async function restoreCode(
  live: BridgeSession,
  ctx: ExtensionCommandContext,
  r: BridgeRequest<'restoreCode'>,
): Promise<RestoreCodeData> {
  const ms: Record<string, number> = {};
  let t = performance.now();
  const step = (name: string) => {
    const now = performance.now();
    ms[name] = Math.round(now - t);
    t = now;
  };
  // The code alone is answered once the files are written; where the code now is gets recorded after,
  // with the capture still held (a turn's snapshot comes after it) and the project's restore lock too.
  let answer!: (d: RestoreCodeData) => void;
  const answered = new Promise<RestoreCodeData>((resolve) => (answer = resolve));
  const whole = alone(live, async () => {
    step('wait');
    const sc = await codeOf(live, ctx);
    step('open');
    // A plan made for the preview holds while nothing was left half done (finishing that moves files).
    const ready = pendingJournals(sc).length ? undefined : await takePlanned(live, sc, r);
    await finishInPi(sc, ctx);
    const plan = ready ?? (await planCode(sc, r.targetId));
    step(ready ? 'planned before' : 'plan');
    if (r.fingerprint && plan.fingerprint !== r.fingerprint)
      throw new BridgeFailure(
        'stale',
        'the files changed since the preview; nothing was written. Look at the preview again.',
      );
    const open = plan.items.filter((i) => i.action === 'conflict' && !r.force && !r.resolutions?.[i.key]);
    if (open.length)
      throw new BridgeFailure(
        'bad-args',
        `${open.length} conflicting file(s) need a choice: ${open.map((i) => i.key).join(', ')}`,
      );
    const resolutions = new Map<string, Resolution>(Object.entries(r.resolutions ?? {}));
    const fromId = ctx.sessionManager.getLeafId();
    try {
      const { recorded, ...res } = await writeCodeEarly(sc, plan, {
        force: r.force,
        resolutions,
        confirmed: new Set(r.allowOutside ?? []),
        ...(r.conversation ? { leaf: { targetId: r.targetId, fromId } } : {}),
      });
      step('write');
      ms['write: the files'] = res.ms.apply;
      const reply = (): RestoreCodeData => ({
        ms,
        journalId: res.journal.id,
        written: res.written,
        skipped: res.skipped,
        merged: res.merged,
        warnings: res.warnings,
        leafId: ctx.sessionManager.getLeafId(),
      });
      if (!r.conversation) {
        answer(reply());
        const after = await recorded;
        for (const w of after.warnings) notify(ctx, `pi-tree: ${w}`);
        live.refresh();
        return;
      }
      const after = await recorded;
      res.warnings.push(...after.warnings);
      ms['write: recorded'] = after.ms;
      // The files are written: pi's leaf follows, or the files go back.
      let nav: { cancelled: boolean };
      try {
        nav = await ctx.navigateTree(r.targetId, { summarize: false });
      } catch (e) {
        await putCodeBack(sc, res.journal);
        throw e;
      }
      if (nav.cancelled) {
        await putCodeBack(sc, res.journal);
        throw new BridgeFailure('cancelled', 'pi cancelled the move; the files were put back');
      }
      // (an undo moves back only while pi's leaf is where this left it)
      res.warnings.push(...(await recordLeafMoved(sc, res.journal, ctx.sessionManager.getLeafId())).warnings);
      step('move');
      live.refresh();
      answer(reply());
    } catch (e) {
      if (e instanceof PlanChangedError) throw new BridgeFailure('stale', e.message);
      if (e instanceof OutsideWriteError || e instanceof RestoreRefusedError)
        throw new BridgeFailure('bad-args', e.message);
      throw e;
    }
  });
  // Failed before the answer: that is the answer; after it, pi says what went wrong.
  void whole.catch((e: unknown) => void answered.then(() => notify(ctx, `pi-tree: after a restore: ${String(e)}`)));
  return Promise.race([answered, whole.then(() => answered)]);
}

export async function codeUndo(
  live: BridgeSession,
  ctx: ExtensionCommandContext,
  r: BridgeRequest<'codeUndo'>,
): Promise<CodeUndoData> {
  return alone(live, async () => {
    const sc = await codeOf(live, ctx);
    await finishInPi(sc, ctx);
    const o = { force: !!r.force };
    try {
      const res = await (r.redo ? redoCode(sc, o) : undoCode(sc, o));
      // pi's leaf goes with the files when the restore moved it, unless pi moved on since.
      const moved = res.leaf ? await navigate(ctx, res.leaf.to, res.leaf.expect).catch(() => false) : undefined;
      live.refresh();
      return {
        journalId: res.journal.id,
        written: res.written,
        conflicts: res.conflicts,
        ...(moved === true ? { leafMoved: true } : {}),
        ...(moved === false ? { leafStayed: true } : {}),
        warnings: res.warnings,
      };
    } catch (e) {
      if (e instanceof RestoreRefusedError) throw new BridgeFailure('bad-args', e.message);
      throw e;
    }
  });
}
