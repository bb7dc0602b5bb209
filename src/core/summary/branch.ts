// Branch summaries as pi 1.6.0 makes them (core/compaction/branch-summarization.js), split into
// plan (which entries), preview (what fits the budget; no model), summarize (one model call) and
// commit (the leaf move plus the branch_summary line). Cancel or failure before commit writes nothing.
import { convertToLlm, projectEntry } from '../context/context.js';
import { EntryNotFoundError, type MoveResult, type Session, type SummaryInput } from '../session/session.js';
import type { EntryRecord } from '../index/sessionIndex.js';
import { timeMs } from '../format/values.js';
import {
  messageOf,
  type AgentMessage,
  type BranchSummaryEntry,
  type CompactionEntry,
  type ContextEditEntry,
  type CustomMessageEntry,
  type SessionEntry,
} from '../format/types.js';
import { callSummaryModel, type CallOptions, type SentRequest } from './call.js';
import {
  addSummaryDetails,
  computeFileLists,
  createFileOps,
  extractFileOpsFromMessage,
  formatFileOperations,
  type FileOperations,
} from './fileOps.js';
import { SummaryModelError, type SummaryModel } from './model.js';
import {
  BRANCH_PROMPT,
  BRANCH_SUMMARY_PREAMBLE,
  conversationPrompt,
  NO_CONTENT_SUMMARY,
  withFocus,
} from './prompts.js';
import { serializeConversation } from './serialize.js';
import { DEFAULT_CONTEXT_WINDOW, estimateTokens } from './tokens.js';

export const DEFAULT_BRANCH_RESERVE_TOKENS = 16384;

const ms = timeMs;

export interface BranchPlan {
  /** The leaf being left (null: the session had none). */
  oldLeafId: string | null;
  /** The node the user picked; entries are collected against it, as pi does. */
  targetId: string;
  /** Where the leaf goes: the target, or (pi's rule for user messages) its parent. */
  newLeafId: string | null;
  commonAncestorId: string | null;
  /** How many entries the move leaves behind (old leaf back to the common ancestor, exclusive). */
  totalEntries: number;
  /**
   * The entries a summary can use, oldest first: all of them, or, for very long branches, the newest
   * ones up to `tokenCap` plus every older branch summary (for their file lists). pi's budget walk
   * stops inside the newest part for every budget up to the cap, so the result is the same.
   */
  entries: SessionEntry[];
  /** Largest token budget the plan is exact for (Infinity when every entry was loaded). */
  tokenCap: number;
}

/** @internal pi's collectEntriesForBranchSummary over two root→leaf paths, tested step by step against pi's. */
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

/** Loads this many tokens' worth of the newest entries unless told otherwise (above any model's window). */
export const DEFAULT_BRANCH_TOKEN_CAP = 4_000_000;
const LOAD_CHUNK = 1024;

/**
 * Which entries a move from the current leaf to `targetId` leaves behind. The target's path is walked
 * on the index; of the old branch only the newest entries up to `tokenCap` tokens are read from disk.
 */
export async function planBranchSummary(
  session: Session,
  targetId: string,
  opts: {
    newLeafId?: string | null;
    signal?: AbortSignal;
    tokenCap?: number;
    /** Entries read per step. */ chunk?: number;
  } = {},
): Promise<BranchPlan> {
  // Over record numbers: an id Map or a Set of path ids at a million entries blocked the host for seconds.
  const ix = session.index;
  if (!ix.has(targetId)) throw new EntryNotFoundError(targetId);
  const newLeafId = opts.newLeafId === undefined ? targetId : opts.newLeafId;
  if (newLeafId !== null && !ix.has(newLeafId)) throw new EntryNotFoundError(newLeafId);
  const oldLeafId = session.leafId;
  const empty = {
    oldLeafId,
    targetId,
    newLeafId,
    commonAncestorId: null,
    totalEntries: 0,
    entries: [],
    tokenCap: Infinity,
  };
  if (!oldLeafId) return empty;
  const onTarget = new Uint8Array(ix.count);
  for (const i of ix.branchIdx(ix.lookup(targetId))) onTarget[i] = 1;
  const oldPath = ix.branchIdx(ix.lookup(oldLeafId));
  // Both are root paths, so pi's "deepest entry of the target's path that is on the old path" is the
  // deepest shared entry of the old path.
  let cut = oldPath.length - 1;
  while (cut >= 0 && !onTarget[oldPath[cut]]) cut--;
  const commonAncestorId = cut >= 0 ? ix.idOf(oldPath[cut]) : null;
  const left = oldPath.subarray(cut + 1);
  const views = (from: number, to: number) => Array.from(left.subarray(from, to), (i) => ix.view(i));
  const cap = opts.tokenCap ?? DEFAULT_BRANCH_TOKEN_CAP;
  const chunks: SessionEntry[][] = [];
  const edits = new Map<string, ContextEditEntry>();
  let tokens = 0;
  let start = left.length;
  while (start > 0 && tokens <= cap) {
    const from = Math.max(0, start - (opts.chunk ?? LOAD_CHUNK));
    const chunk = (await session.load(views(from, start), opts.signal)).filter((e): e is SessionEntry => !!e);
    chunks.unshift(chunk);
    start = from;
    // Edits always come after their targets, so every edit that matters here is already loaded.
    for (const e of chunk)
      if (e.type === 'context_edit') edits.set((e as ContextEditEntry).targetId, e as ContextEditEntry);
    for (let i = chunk.length - 1; i >= 0 && tokens <= cap; i--) {
      const m = branchMessage(chunk[i], edits.get(chunk[i].id));
      if (m) tokens += estimateTokens(m);
    }
  }
  let entries = chunks.flat();
  if (start > 0) {
    // Older summaries still feed the file lists (pi's first pass); their bodies live in the index.
    const older: EntryRecord[] = [];
    for (let k = 0; k < start; k++) if (ix.typeOf(left[k]) === 'branch_summary') older.push(ix.view(left[k]));
    entries = [...(await session.load(older, opts.signal)).filter((e): e is SessionEntry => !!e), ...entries];
  }
  return {
    oldLeafId,
    targetId,
    newLeafId,
    commonAncestorId,
    totalEntries: left.length,
    entries,
    tokenCap: start > 0 ? cap : Infinity,
  };
}

/** pi's getMessageFromEntry for branch summaries: tool results left out, summaries included. */
function branchMessage(entry: SessionEntry, edit: ContextEditEntry | undefined): AgentMessage | undefined {
  switch (entry.type) {
    case 'message': {
      const m = messageOf(entry);
      if (!m || m.role === 'toolResult') return undefined;
      return edit ? projectEntry(entry, edit)[0] : m;
    }
    case 'custom_message': {
      if (edit) return projectEntry(entry, edit)[0];
      const c = entry as CustomMessageEntry;
      return {
        role: 'custom',
        customType: c.customType,
        content: c.content,
        display: c.display,
        details: c.details,
        timestamp: ms(c.timestamp),
      };
    }
    case 'branch_summary': {
      const b = entry as BranchSummaryEntry;
      return { role: 'branchSummary', summary: b.summary, fromId: b.fromId, timestamp: ms(b.timestamp) };
    }
    case 'compaction': {
      const c = entry as CompactionEntry;
      return {
        role: 'compactionSummary',
        summary: c.summary,
        tokensBefore: c.tokensBefore,
        timestamp: ms(c.timestamp),
      };
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
  for (const e of entries)
    if (e.type === 'context_edit') edits.set((e as ContextEditEntry).targetId, e as ContextEditEntry);
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
  /** Entries left behind whose messages did not fit the budget (approximate for partially loaded plans). */
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
  if ((tokenBudget <= 0 || tokenBudget > plan.tokenCap) && plan.tokenCap !== Infinity) {
    throw new RangeError(
      `This branch plan covers budgets up to ${plan.tokenCap} tokens; plan again with tokenCap ≥ ${tokenBudget <= 0 ? 'Infinity' : tokenBudget}.`,
    );
  }
  const prepared = prepareBranchEntries(plan.entries, tokenBudget);
  const { readFiles, modifiedFiles } = computeFileLists(prepared.fileOps);
  const contributing =
    plan.entries.filter((e) => branchMessage(e, undefined) !== undefined).length +
    (plan.totalEntries - plan.entries.length);
  return {
    ...prepared,
    plan,
    tokenBudget,
    nothingLeft: plan.totalEntries === 0,
    noContent: plan.totalEntries > 0 && prepared.messages.length === 0,
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
export async function summarizeBranch(
  plan: BranchPlan,
  model: SummaryModel,
  opts: SummarizeBranchOptions = {},
): Promise<BranchSummaryDraft> {
  const budget = { contextWindow: model.contextWindow, reserveTokens: opts.reserveTokens };
  if (budgetOf(budget) <= 0 && plan.tokenCap !== Infinity) {
    throw new SummaryModelError(
      'bad-request',
      `${model.id} has a context window of ${model.contextWindow || DEFAULT_CONTEXT_WINDOW} tokens, which leaves no room after reserving ${budget.reserveTokens ?? DEFAULT_BRANCH_RESERVE_TOKENS}; lower reserveTokens or pick a larger model.`,
    );
  }
  const preview = previewBranchSummary(plan, budget);
  if (preview.nothingLeft) return { plan, summary: undefined };
  if (preview.noContent) {
    return {
      plan,
      summary: { summary: NO_CONTENT_SUMMARY, details: { readFiles: [], modifiedFiles: [] }, fromHook: false },
    };
  }
  const instructions = opts.replaceInstructions && opts.focus ? opts.focus : withFocus(BRANCH_PROMPT, opts.focus);
  const { text, usage, request } = await callSummaryModel(
    model,
    conversationPrompt(preview.conversation, instructions),
    'Branch summarization',
    opts,
  );
  const summary = BRANCH_SUMMARY_PREAMBLE + text + formatFileOperations(preview.readFiles, preview.modifiedFiles);
  return {
    plan,
    summary: {
      summary,
      details: { readFiles: preview.readFiles, modifiedFiles: preview.modifiedFiles },
      usage,
      fromHook: false,
    },
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
