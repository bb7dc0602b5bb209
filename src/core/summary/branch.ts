// Branch summaries as pi 1.6.0 makes them (core/compaction/branch-summarization.js), split into
// plan (which entries), preview (what fits the budget; no model), summarize (one model call) and
// commit (the leaf move plus the branch_summary line). Cancel or failure before commit writes nothing.
import { convertToLlm, projectEntry } from '../context.js';
import { EntryNotFoundError, type MoveResult, type Session, type SummaryInput } from '../session.js';
import type { AgentMessage, BranchSummaryEntry, CompactionEntry, ContextEditEntry, CustomMessageEntry, SessionEntry } from '../types.js';
import { callSummaryModel, type CallOptions, type SentRequest } from './call.js';
import { addSummaryDetails, computeFileLists, createFileOps, extractFileOpsFromMessage, formatFileOperations, type FileOperations } from './fileOps.js';
import type { SummaryModel } from './model.js';
import { BRANCH_PROMPT, BRANCH_SUMMARY_PREAMBLE, conversationPrompt, NO_CONTENT_SUMMARY, withFocus } from './prompts.js';
import { serializeConversation } from './serialize.js';
import { DEFAULT_CONTEXT_WINDOW, estimateTokens } from './tokens.js';

export const DEFAULT_BRANCH_RESERVE_TOKENS = 16384;

const ms = (iso: string) => new Date(iso).getTime();

export interface BranchPlan {
  /** The leaf being left (null: the session had none). */
  oldLeafId: string | null;
  /** The node the user picked; entries are collected against it, as pi does. */
  targetId: string;
  /** Where the leaf goes: the target, or (pi's rule for user messages) its parent. */
  newLeafId: string | null;
  commonAncestorId: string | null;
  /** Old leaf back to the common ancestor (exclusive), oldest first. */
  entries: SessionEntry[];
}

/** pi's collectEntriesForBranchSummary over two root→leaf paths. */
export function collectBranchEntries(
  oldPath: readonly SessionEntry[],
  targetPath: readonly { id: string }[],
): { entries: SessionEntry[]; commonAncestorId: string | null } {
  const onOld = new Set(oldPath.map((e) => e.id));
  let commonAncestorId: string | null = null;
  for (let i = targetPath.length - 1; i >= 0; i--) {
    if (onOld.has(targetPath[i].id)) {
      commonAncestorId = targetPath[i].id;
      break;
    }
  }
  const at = commonAncestorId === null ? -1 : oldPath.findIndex((e) => e.id === commonAncestorId);
  return { entries: oldPath.slice(at + 1), commonAncestorId };
}

/**
 * Which entries a move from the current leaf to `targetId` leaves behind. Only the old branch's
 * bodies are read; the target's path is walked on the index.
 */
export async function planBranchSummary(
  session: Session,
  targetId: string,
  opts: { newLeafId?: string | null; signal?: AbortSignal } = {},
): Promise<BranchPlan> {
  if (!session.index.byId.has(targetId)) throw new EntryNotFoundError(targetId);
  const newLeafId = opts.newLeafId === undefined ? targetId : opts.newLeafId;
  if (newLeafId !== null && !session.index.byId.has(newLeafId)) throw new EntryNotFoundError(newLeafId);
  const oldLeafId = session.leafId;
  if (!oldLeafId) return { oldLeafId, targetId, newLeafId, commonAncestorId: null, entries: [] };
  const targetPath = session.index.branch(targetId);
  const onTarget = new Set(targetPath.map((r) => r.id));
  const oldRecs = session.index.branch(oldLeafId);
  let cut = -1;
  for (let i = oldRecs.length - 1; i >= 0; i--) {
    if (onTarget.has(oldRecs[i].id)) {
      cut = i;
      break;
    }
  }
  // pi takes the deepest entry of the target's path that is on the old path; both are root paths,
  // so that is the deepest shared entry of the old path.
  const commonAncestorId = cut >= 0 ? oldRecs[cut].id : null;
  const loaded = await session.load(oldRecs.slice(cut + 1), opts.signal);
  return { oldLeafId, targetId, newLeafId, commonAncestorId, entries: loaded.filter((e): e is SessionEntry => !!e) };
}

/** pi's getMessageFromEntry for branch summaries: tool results left out, summaries included. */
function branchMessage(entry: SessionEntry, edit: ContextEditEntry | undefined): AgentMessage | undefined {
  switch (entry.type) {
    case 'message': {
      const m = entry.message as AgentMessage;
      if (m.role === 'toolResult') return undefined;
      return edit ? projectEntry(entry, edit)[0] : m;
    }
    case 'custom_message': {
      if (edit) return projectEntry(entry, edit)[0];
      const c = entry as CustomMessageEntry;
      return { role: 'custom', customType: c.customType, content: c.content, display: c.display, details: c.details, timestamp: ms(c.timestamp) };
    }
    case 'branch_summary': {
      const b = entry as BranchSummaryEntry;
      return { role: 'branchSummary', summary: b.summary, fromId: b.fromId, timestamp: ms(b.timestamp) };
    }
    case 'compaction': {
      const c = entry as CompactionEntry;
      return { role: 'compactionSummary', summary: c.summary, tokensBefore: c.tokensBefore, timestamp: ms(c.timestamp) };
    }
    default:
      return undefined;
  }
}

export interface PreparedBranch {
  messages: AgentMessage[];
  fileOps: FileOperations;
  totalTokens: number;
  /** Ids of the entries whose messages were taken, oldest first. */
  entryIds: string[];
}

/**
 * pi's prepareBranchEntries: file lists from every entry, then messages newest first until the
 * budget (0 = no limit) is used; a summary that does not fit still goes in while under 90 %.
 */
export function prepareBranchEntries(entries: readonly SessionEntry[], tokenBudget = 0): PreparedBranch {
  const messages: AgentMessage[] = [];
  const entryIds: string[] = [];
  const fileOps = createFileOps();
  let totalTokens = 0;
  for (const e of entries) if (e.type === 'branch_summary') addSummaryDetails(e, fileOps);
  const edits = new Map<string, ContextEditEntry>();
  for (const e of entries) if (e.type === 'context_edit') edits.set((e as ContextEditEntry).targetId, e as ContextEditEntry);
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    const message = branchMessage(entry, edits.get(entry.id));
    if (!message) continue;
    extractFileOpsFromMessage(message, fileOps);
    const tokens = estimateTokens(message);
    if (tokenBudget > 0 && totalTokens + tokens > tokenBudget) {
      if ((entry.type === 'compaction' || entry.type === 'branch_summary') && totalTokens < tokenBudget * 0.9) {
        messages.unshift(message);
        entryIds.unshift(entry.id);
        totalTokens += tokens;
      }
      break;
    }
    messages.unshift(message);
    entryIds.unshift(entry.id);
    totalTokens += tokens;
  }
  return { messages, fileOps, totalTokens, entryIds };
}

export interface BranchBudget {
  /** The summarizing model's context window (0 ⇒ pi's 128000). */
  contextWindow: number;
  reserveTokens?: number;
}

export interface BranchSummaryPreview extends PreparedBranch {
  plan: BranchPlan;
  tokenBudget: number;
  /** Nothing is left behind: the move writes no summary. */
  nothingLeft: boolean;
  /** Entries are left behind but none carries conversation: the summary is pi's "No content to summarize". */
  noContent: boolean;
  /** Collected entries whose messages did not fit the budget. */
  droppedEntries: number;
  readFiles: string[];
  modifiedFiles: string[];
  /** The serialized conversation the model would read. */
  conversation: string;
}

export function budgetOf(b: BranchBudget): number {
  return (b.contextWindow || DEFAULT_CONTEXT_WINDOW) - (b.reserveTokens ?? DEFAULT_BRANCH_RESERVE_TOKENS);
}

/** What a summary of the plan would cover. Pure: no model call, no write. */
export function previewBranchSummary(plan: BranchPlan, budget: BranchBudget): BranchSummaryPreview {
  const tokenBudget = budgetOf(budget);
  const prepared = prepareBranchEntries(plan.entries, tokenBudget);
  const { readFiles, modifiedFiles } = computeFileLists(prepared.fileOps);
  const contributing = plan.entries.filter((e) => branchMessage(e, undefined) !== undefined).length;
  return {
    ...prepared,
    plan,
    tokenBudget,
    nothingLeft: plan.entries.length === 0,
    noContent: plan.entries.length > 0 && prepared.messages.length === 0,
    droppedEntries: Math.max(0, contributing - prepared.entryIds.length),
    readFiles,
    modifiedFiles,
    conversation: serializeConversation(convertToLlm(prepared.messages)),
  };
}

export interface BranchSummaryDraft {
  plan: BranchPlan;
  /** What commit writes as the branch_summary; undefined when nothing is left behind. */
  summary: SummaryInput | undefined;
  /** The request sent to the model (absent when no call was needed). */
  request?: SentRequest;
}

export interface SummarizeBranchOptions extends CallOptions {
  reserveTokens?: number;
  /** The user's focus, added to the default instructions. */
  focus?: string;
  /** Use `focus` alone as the instructions (pi's replaceInstructions). */
  replaceInstructions?: boolean;
}

/** Asks the model for the summary (pi's generateBranchSummary) and returns what commit will write. */
export async function summarizeBranch(plan: BranchPlan, model: SummaryModel, opts: SummarizeBranchOptions = {}): Promise<BranchSummaryDraft> {
  const preview = previewBranchSummary(plan, { contextWindow: model.contextWindow, reserveTokens: opts.reserveTokens });
  if (preview.nothingLeft) return { plan, summary: undefined };
  if (preview.noContent) {
    return { plan, summary: { summary: NO_CONTENT_SUMMARY, details: { readFiles: [], modifiedFiles: [] }, fromHook: false } };
  }
  const instructions = opts.replaceInstructions && opts.focus ? opts.focus : withFocus(BRANCH_PROMPT, opts.focus);
  const { text, usage, request } = await callSummaryModel(model, conversationPrompt(preview.conversation, instructions), 'Branch summarization', opts);
  const summary = BRANCH_SUMMARY_PREAMBLE + text + formatFileOperations(preview.readFiles, preview.modifiedFiles);
  return {
    plan,
    summary: { summary, details: { readFiles: preview.readFiles, modifiedFiles: preview.modifiedFiles }, usage, fromHook: false },
    request,
  };
}

/** The session moved on (another writer, another window) after the plan was made. */
export class StaleSessionError extends Error {
  override name = 'StaleSessionError';
}

/**
 * Writes the draft: a leaf record to the new position and, if there is a summary, the
 * branch_summary under it (Session.moveTo). Refuses when the leaf is no longer the one summarized.
 */
export async function commitBranchSummary(session: Session, draft: BranchSummaryDraft): Promise<MoveResult> {
  await session.refresh();
  if (session.leafId !== draft.plan.oldLeafId) {
    throw new StaleSessionError(
      `The session changed while the summary was being made (its leaf is now ${session.leafId ?? 'empty'}, was ${draft.plan.oldLeafId ?? 'empty'}); nothing was written. Summarize again.`,
    );
  }
  return session.moveTo(draft.plan.newLeafId, draft.summary);
}
