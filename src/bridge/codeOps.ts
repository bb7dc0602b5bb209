// Restores of the code through the pi running the session (issue #32): pi is idle (the request waited
// for it), the capture's queue holds still while the files are written, and the files and pi's leaf
// move as one action: a failed move puts the files back, a failed write leaves the leaf.
import type { ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import { agentDirOf } from '../core/bridge/paths.js';
import type { BridgeRequest, CodeUndoData, RestoreCodeData } from '../core/bridge/protocol.js';
import { finishPending, planCode, redoCode, sessionCode, undoCode, writeCode } from '../core/checkpoints/code.js';
import { PlanChangedError, type Resolution } from '../core/checkpoints/restoreApply.js';
import { Session } from '../core/session/session.js';
import { captureFor } from './checkpoints.js';
import type { LiveBridge } from './live.js';
import { BridgeFailure } from './server.js';

async function alone<T>(live: LiveBridge, op: () => Promise<T>): Promise<T> {
  const c = captureFor(live.sessionFile);
  return c ? c.exclusive(op) : op();
}

export async function restoreCode(live: LiveBridge, ctx: ExtensionCommandContext, r: BridgeRequest<'restoreCode'>): Promise<RestoreCodeData> {
  return alone(live, async () => {
    const session = await Session.open(live.sessionFile);
    const sc = sessionCode(session, { agentDir: agentDirOf(process.env) });
    await finishPending(sc);
    const plan = await planCode(sc, r.targetId);
    if (r.fingerprint && plan.fingerprint !== r.fingerprint) throw new BridgeFailure('stale', 'the files changed since the preview; nothing was written. Look at the preview again.');
    const open = plan.items.filter((i) => i.action === 'conflict' && !r.force && !r.resolutions?.[i.key]);
    if (open.length) throw new BridgeFailure('bad-args', `${open.length} conflicting file(s) need a choice: ${open.map((i) => i.key).join(', ')}`);
    const resolutions = new Map<string, Resolution>(Object.entries(r.resolutions ?? {}));
    try {
      const res = await writeCode(sc, plan, {
        force: r.force,
        resolutions,
        ...(r.conversation
          ? {
              moveLeaf: {
                targetId: r.targetId,
                run: async () => {
                  const nav = await ctx.navigateTree(r.targetId, { summarize: false });
                  if (nav.cancelled) throw new BridgeFailure('cancelled', 'pi cancelled the move; the files were put back');
                },
              },
            }
          : {}),
      });
      live.refresh();
      return { journalId: res.journal.id, written: res.written, skipped: res.skipped, leafId: ctx.sessionManager.getLeafId() };
    } catch (e) {
      if (e instanceof PlanChangedError) throw new BridgeFailure('stale', e.message);
      throw e;
    }
  });
}

export async function codeUndo(live: LiveBridge, r: BridgeRequest<'codeUndo'>): Promise<CodeUndoData> {
  return alone(live, async () => {
    const session = await Session.open(live.sessionFile);
    const sc = sessionCode(session, { agentDir: agentDirOf(process.env) });
    await finishPending(sc);
    const res = await (r.redo ? redoCode(sc, !!r.force) : undoCode(sc, !!r.force));
    return { journalId: res.journal.id, written: res.written, conflicts: res.conflicts };
  });
}
