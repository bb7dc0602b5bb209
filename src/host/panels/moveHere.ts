// Move here, end to end: the one owner of the flow from the webview's moveTo (and the node menu's Move
// here) to the leaf and the files. When nothing that may change files lies between where the code is and
// the node, it is a plain move and no plan is made; otherwise the code at the node is planned and the
// user says what moves (conversation and code, conversation only, code only; or the setting does). The
// restore's parts (preview, conflicts, the write, notifications) are CodeRestore's, the leaf's are
// SessionActions'; this module puts them in order. With a pi running the session, code and conversation
// go as one request and pi does both; without one, the live question comes before any file is written,
// then the files, then the leaf, and a leaf that could not move has the files put back.
import * as vscode from 'vscode';
import { codeBetween } from '../../core/checkpoints/index.js';
import { planTally, planWords, type RestorePlan } from '../../core/checkpoints/index.js';
import type { Session } from '../../core/session/session.js';
import type { MoveReply } from '../../protocol.js';
import type { CodeRestore, PreviewDocs } from '../checkpoints/codeRestore.js';
import { log } from '../platform/log.js';
import type { SessionActions } from './sessionActions.js';

export type MoveChoice = 'both' | 'conversation' | 'code';
/** The setting piTree.checkpoints.onMove: ask each time, or move both, or the conversation alone. */
export type OnMove = 'ask' | 'conversationAndCode' | 'conversationOnly';

export type MoveResult = MoveReply & { cancelled?: boolean };

/** What Move here works with: one session, its actions and the restore. */
export interface MoveHereContext {
  session: Session;
  file: string;
  actions: SessionActions;
  code: CodeRestore;
}

const cancelledMove = (s: Session): MoveResult => ({ leafId: s.leafId, moved: false, cancelled: true });

const onMove = () => vscode.workspace.getConfiguration('piTree').get<OnMove>('checkpoints.onMove', 'ask');

/** Moves the leaf to `id`, with the code when the code there differs from the files now and the user wants it. */
export async function moveHere(cx: MoveHereContext, id: string | null): Promise<MoveResult> {
  const { session, actions, code } = cx;
  if (id === null || onMove() === 'conversationOnly') return actions.moveTo(id);
  let plan: RestorePlan;
  try {
    // The cheap exit: with no checkpoint and no call that may change files on the way, a plan would restore nothing.
    await code.settled();
    if (!(await codeBetween(code.code(session), id))) return actions.moveTo(id);
    plan = await code.plan(session, id);
  } catch (e) {
    log().info(`code at ${id}: ${String(e)}`);
    void vscode.window.showWarningMessage(
      `pi-tree could not work out the code at this node (${(e as Error).message}); the conversation moves, the files stay as they are.`,
    );
    return actions.moveTo(id);
  }
  if (!plan.items.some((i) => i.action !== 'unrestorable')) return actions.moveTo(id);
  const asks = onMove() !== 'conversationAndCode';
  // The preview is made ready while the user reads the choice (and left unused when it is not the code).
  const warmed = asks ? code.warm(session, plan) : undefined;
  const choice = asks ? await ask(cx, plan, id) : 'both';
  if (!choice) return cancelledMove(session);
  if (choice === 'conversation') return actions.moveTo(id);
  if (choice === 'code') {
    const done = await code.restore(session, cx.file, id, plan, warmed);
    return { leafId: session.leafId, moved: false, ...(done ? {} : { cancelled: true }) };
  }
  return both(cx, id, plan, warmed);
}

/** Conversation and code: previewed and decided, then through pi as one request, or the files and then the leaf. */
async function both(
  cx: MoveHereContext,
  id: string,
  plan: RestorePlan,
  warmed: Promise<PreviewDocs> | undefined,
): Promise<MoveResult> {
  const { session, file, actions, code } = cx;
  const d = await code.decide(session, file, id, plan, true, warmed);
  if (!d) return cancelledMove(session);
  const viaPi = await code.throughPi(session, file, d, true);
  if (viaPi === 'cancelled') return cancelledMove(session);
  if (viaPi === 'done') return { leafId: session.leafId, moved: true };
  // No pi: the live question comes before any file is written.
  const ok = await actions.guard('move the leaf');
  if (ok === 'fork') await actions.forkInstead((await actions.piTarget(id)).leaf);
  if (ok !== true) return cancelledMove(session);
  // Where the leaf goes (pi's rule: a user message's parent), as the journal records it: undo moves the
  // leaf back only while it is still there, and redo moves it there again.
  const { leaf } = await actions.piTarget(id);
  const w = await code.write(d, { targetId: leaf, fromId: session.leafId });
  let moved: MoveResult;
  try {
    moved = await actions.moveTo(id, { asked: true });
  } catch (e) {
    await code.putBack(w);
    throw e;
  }
  if (moved.cancelled) {
    await code.putBack(w);
    return cancelledMove(session);
  }
  await code.leafMoved(session, file, w, moved.leafId);
  return moved;
}

/** What should move: the conversation and the code, the conversation only, or the code only. */
async function ask(cx: MoveHereContext, plan: RestorePlan, id: string): Promise<MoveChoice | undefined> {
  // (the same words as the preview's choice and the details pane: planWords.ts)
  const files = planWords(planTally(plan));
  const items: (vscode.QuickPickItem & { choice: MoveChoice })[] = [
    {
      choice: 'both',
      label: '$(history) Conversation and code',
      detail: `Move the leaf and restore the code there (${files}); previewed first`,
    },
    {
      choice: 'conversation',
      label: '$(comment-discussion) Conversation only',
      detail: 'Move the leaf; the files stay as they are now',
    },
    {
      choice: 'code',
      label: '$(file-code) Code only',
      detail: `Restore the code there (${files}); the leaf stays where it is`,
    },
  ];
  const pick = await vscode.window.showQuickPick(items, {
    title: `Move to ${await cx.code.describe(cx.session, id)}: the code there differs from the files now`,
    placeHolder: 'What should move?',
  });
  return pick?.choice;
}
