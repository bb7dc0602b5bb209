// Branch summaries and compaction for the tree panels: preview first (the model writes, nothing is
// stored), then commit what the user accepted (possibly edited). Without a model the user writes the
// summary text; the file lists of the branch being left are still recorded as pi records them.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { Session } from '../../core/session.js';
import { budgetOf, commitBranchSummary, planBranchSummary, previewBranchSummary, summarizeBranch, type BranchSummaryDraft } from '../../core/summary/branch.js';
import { commitCompaction, planCompaction, previewCompaction, summarizeCompaction, type CompactionPlan, type CompactionResult } from '../../core/summary/compaction.js';
import { createSummaryModel, registerSummaryModelCommands, summarySettings } from './models/factory.js';

/** Branch summaries and compaction (the model side); the tree panels route requests to it. */
export interface SummaryService {
  available(): boolean;
  /** `targetId`: the node picked; `newLeaf`: where the leaf goes (its parent for a user message). */
  previewBranch(
    session: Session,
    targetId: string | null,
    newLeaf: string | null,
    focus: string | undefined,
    token: vscode.CancellationToken,
  ): Promise<{ previewId: string; summary: string; details: { readFiles: string[]; modifiedFiles: string[] }; entryCount: number; model?: string }>;
  commitBranch(session: Session, targetId: string | null, newLeaf: string | null, summary: string, previewId?: string): Promise<{ leafId: string | null }>;
  cancel(previewId: string): void;
  previewCompaction(session: Session, token: vscode.CancellationToken): Promise<unknown>;
  commitCompaction(session: Session, previewId: string, summary: string): Promise<unknown>;
}

interface PendingBranch {
  kind: 'branch';
  session: Session;
  draft: BranchSummaryDraft;
}
interface PendingCompaction {
  kind: 'compaction';
  session: Session;
  plan: CompactionPlan;
  result: CompactionResult;
}

const toSignal = (token: vscode.CancellationToken): AbortSignal => {
  const ac = new AbortController();
  if (token.isCancellationRequested) ac.abort();
  token.onCancellationRequested(() => ac.abort());
  return ac.signal;
};

export function createSummaryService(context: vscode.ExtensionContext): SummaryService {
  registerSummaryModelCommands(context);
  const pending = new Map<string, PendingBranch | PendingCompaction>();
  let lmModels = 0;
  const refreshModels = async () => {
    try {
      lmModels = (await vscode.lm.selectChatModels()).length;
    } catch {
      lmModels = 0;
    }
  };
  void refreshModels();
  context.subscriptions.push(vscode.lm.onDidChangeChatModels(() => void refreshModels()));
  const remember = (p: PendingBranch | PendingCompaction) => {
    const id = randomBytes(9).toString('base64url');
    pending.set(id, p);
    // Previews nobody commits or cancels (a closed panel) are dropped after a while.
    setTimeout(() => pending.delete(id), 30 * 60_000).unref?.();
    return id;
  };

  return {
    available() {
      const s = summarySettings();
      return s.provider === 'openai-compatible' ? !!s.model : lmModels > 0;
    },

    async previewBranch(session, targetId, newLeaf, focus, token) {
      if (targetId === null) throw new Error('A summary needs an entry to move to.');
      const signal = toSignal(token);
      const s = summarySettings();
      const model = await createSummaryModel(context, { interactive: true });
      const tokenCap = budgetOf({ contextWindow: model.contextWindow, reserveTokens: s.reserveTokens });
      const plan = await planBranchSummary(session, targetId, { newLeafId: newLeaf, signal, tokenCap: tokenCap > 0 ? tokenCap : undefined });
      const draft = await summarizeBranch(plan, model, { reserveTokens: s.reserveTokens, focus: focus?.trim() || undefined, signal });
      if (!draft.summary) throw new Error('Nothing to summarize: the move leaves no entries behind.');
      const previewId = remember({ kind: 'branch', session, draft });
      const d = draft.summary.details as { readFiles: string[]; modifiedFiles: string[] };
      return { previewId, summary: draft.summary.summary, details: d, entryCount: plan.totalEntries, model: model.id };
    },

    async commitBranch(session, targetId, newLeaf, summary, previewId) {
      const p = previewId ? pending.get(previewId) : undefined;
      if (previewId && !p) throw new Error('This summary preview has expired; ask for it again.');
      if (p && p.kind === 'branch') {
        if (p.session !== session || p.draft.plan.newLeafId !== newLeaf) throw new Error('The preview was made for another move.');
        pending.delete(previewId!);
        const r = await commitBranchSummary(session, { ...p.draft, summary: { ...p.draft.summary!, summary } });
        return { leafId: r.leafId };
      }
      // Written by the user: record the branch's file lists as pi does for its own summaries.
      let details = { readFiles: [] as string[], modifiedFiles: [] as string[] };
      if (targetId !== null) {
        const plan = await planBranchSummary(session, targetId, { newLeafId: newLeaf });
        const preview = previewBranchSummary(plan, { contextWindow: 0 });
        details = { readFiles: preview.readFiles, modifiedFiles: preview.modifiedFiles };
      }
      const r = await session.moveTo(newLeaf, { summary, details, fromHook: false });
      return { leafId: r.leafId };
    },

    cancel(previewId) {
      pending.delete(previewId);
    },

    async previewCompaction(session, token) {
      const signal = toSignal(token);
      const s = summarySettings();
      const plan = await planCompaction(session, { keepRecentTokens: s.keepRecentTokens, reserveTokens: s.reserveTokens }, signal);
      if (!plan.preparation) throw new Error(plan.reason ?? 'Nothing to compact.');
      const before = previewCompaction(plan.preparation);
      const model = await createSummaryModel(context, { interactive: true });
      const result = await summarizeCompaction(plan.preparation, model, { signal });
      const previewId = remember({ kind: 'compaction', session, plan, result });
      return {
        previewId,
        summary: result.summary,
        details: result.details,
        tokensBefore: before.tokensBefore,
        keptTokens: before.keptTokens,
        summarizedEntries: before.summarizedEntries,
        keptEntries: before.keptEntries,
        firstKeptEntryId: result.firstKeptEntryId,
        model: model.id,
      };
    },

    async commitCompaction(session, previewId, summary) {
      const p = pending.get(previewId);
      if (!p || p.kind !== 'compaction' || p.session !== session) throw new Error('This compaction preview has expired; ask for it again.');
      pending.delete(previewId);
      const c = await commitCompaction(session, p.plan, { ...p.result, summary });
      return { entryId: c.entry.id, estimatedTokensAfter: c.estimatedTokensAfter };
    },
  };
}
