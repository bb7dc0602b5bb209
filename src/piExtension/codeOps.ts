// Restores of the code through the pi running the session: pi is idle (the request waited for it), the
// capture's queue holds still while the files are written, and the files and pi's leaf move as one
// action: the files first, then pi navigates, and a failed or cancelled move puts the files back; a
// failed write leaves the leaf. An undo moves pi's leaf back too when the restore moved it (and pi has
// not moved on since). The core writes and records; pi's moves are made here, in pi.
import type { ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import { agentDirOf } from '../core/piClient/paths.js';
import type { BridgeRequest, CodeUndoData, RestoreCodeData } from '../core/piClient/protocol.js';
import {
  finishPending,
  planCode,
  putCodeBack,
  recordLeafMoved,
  redoCode,
  sessionCode,
  undoCode,
  writeCode,
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
import { captureFor } from './checkpoints.js';
import type { BridgeSession } from './bridgeSession.js';
import { BridgeFailure } from './server.js';

async function alone<T>(live: BridgeSession, op: () => Promise<T>): Promise<T> {
  const c = captureFor(live.sessionFile);
  return c ? c.exclusive(op) : op();
}

/** The session's code as this pi sees it: pi's own working folder is the one the user runs it in. */
async function codeOf(live: BridgeSession, ctx: ExtensionCommandContext): Promise<SessionCode> {
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
  return alone(live, async () => {
    step('wait');
    const sc = await codeOf(live, ctx);
    step('open');
    await finishInPi(sc, ctx);
    const plan = await planCode(sc, r.targetId);
    step('plan');
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
      const res = await writeCode(sc, plan, {
        force: r.force,
        resolutions,
        confirmed: new Set(r.allowOutside ?? []),
        ...(r.conversation ? { leaf: { targetId: r.targetId, fromId } } : {}),
      });
      step('write');
      ms['write: the files'] = res.ms.apply;
      ms['write: recorded'] = res.ms.record;
      if (r.conversation) {
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
      }
      if (r.conversation) step('move');
      live.refresh();
      return {
        ms,
        journalId: res.journal.id,
        written: res.written,
        skipped: res.skipped,
        merged: res.merged,
        warnings: res.warnings,
        leafId: ctx.sessionManager.getLeafId(),
      };
    } catch (e) {
      if (e instanceof PlanChangedError) throw new BridgeFailure('stale', e.message);
      if (e instanceof OutsideWriteError || e instanceof RestoreRefusedError)
        throw new BridgeFailure('bad-args', e.message);
      throw e;
    }
  });
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
