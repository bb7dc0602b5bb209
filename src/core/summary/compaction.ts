// Compaction as pi 1.6.0 does it (core/compaction/compaction.js): from the cut point over the projected
// path (cutPoint.ts), split turns, incremental update of a previous compaction, file lists; then the
// compaction entry written like SessionManager.appendCompaction. Plan and preview are pure; summarize
// calls the model; commit appends one line. Cancel or failure before commit writes nothing.
import { projectPath, convertToLlm, type ProjectedEntry } from '../context/context.js';
import { nowIso } from '../format/ids.js';
import type { Session } from '../session/session.js';
import {
  type AgentMessage,
  type CompactionEntry,
  type FileDetails,
  type SessionEntry,
  type Usage,
} from '../format/types.js';
import { StaleSessionError } from './branch.js';
import { callSummaryModel, combineUsage, type CallOptions, type SentRequest } from './call.js';
import {
  addSummaryDetails,
  computeFileLists,
  createFileOps,
  extractFileOpsFromMessage,
  formatFileOperations,
  type FileOperations,
} from './fileOps.js';
import type { SummaryModel } from './model.js';
import {
  COMPACTION_PROMPT,
  COMPACTION_UPDATE_PROMPT,
  conversationPrompt,
  NO_PRIOR_HISTORY,
  SPLIT_TURN_SEPARATOR,
  turnPrefixPrompt,
  withFocus,
} from './prompts.js';
import { findProjectedCutPoint } from './cutPoint.js';
import { serializeConversation } from './serialize.js';
import { getCurrentSystemMessage } from './systemMessage.js';
import {
  DEFAULT_COMPACTION_SETTINGS,
  estimateMessagesTokens,
  estimateProjectedContextTokens,
  estimateTokens,
  type CompactionSettings,
} from './tokens.js';

// ───────────── preparation ─────────────

export interface CompactionPreparation {
  firstKeptEntryId: string;
  messagesToSummarize: AgentMessage[];
  turnPrefixMessages: AgentMessage[];
  isSplitTurn: boolean;
  tokensBefore: number;
  previousSummary?: string;
  fileOps: FileOperations;
  settings: CompactionSettings;
  // pi-tree additions, for previews:
  /** Entries whose messages are summarized (history, then the split turn's prefix). */
  summarizedEntryIds: string[];
  /** Entries that stay in context after the compaction, from the first kept one. */
  keptEntryIds: string[];
  /** Estimated tokens of what stays (kept messages plus the replayed system message). */
  keptTokens: number;
  /** The system message the compaction entry will carry, before its timestamp is set. */
  systemMessage?: AgentMessage;
}

/** System messages are prompt state, not conversation; the compaction carries their replay. */
function summarizable(pe: ProjectedEntry): AgentMessage[] {
  if (pe.entry.type === 'compaction') return [];
  return pe.messages.filter((m) => m.role !== 'system');
}

/**
 * pi's prepareCompaction over a root→leaf path. Undefined when the path already ends in a
 * compaction or nothing would be summarized.
 */
export function prepareCompaction(
  pathEntries: readonly SessionEntry[],
  settings: CompactionSettings = DEFAULT_COMPACTION_SETTINGS,
): CompactionPreparation | undefined {
  if (pathEntries.length > 0 && pathEntries[pathEntries.length - 1].type === 'compaction') return undefined;
  const projection = projectPath(pathEntries);
  const pes = projection.entries;
  // The newest compaction is projected first; older ones inside its kept range contribute nothing.
  const prevIndex = pes.findIndex((pe) => pe.entry.type === 'compaction' && pe.messages.length > 0);
  let previousSummary: string | undefined;
  let boundaryStart = 0;
  if (prevIndex >= 0) {
    previousSummary = (pes[prevIndex].entry as CompactionEntry).summary;
    boundaryStart = prevIndex + 1;
  }
  const tokensBefore = estimateProjectedContextTokens(projection, pathEntries).tokens;
  const cut = findProjectedCutPoint(pes, boundaryStart, pes.length, settings.keepRecentTokens);
  const firstKept = pes[cut.firstKeptEntryIndex]?.entry;
  if (!firstKept?.id) return undefined;
  const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptEntryIndex;
  const history = pes.slice(boundaryStart, historyEnd);
  const prefix = cut.isSplitTurn ? pes.slice(cut.turnStartIndex, cut.firstKeptEntryIndex) : [];
  const messagesToSummarize = history.flatMap(summarizable);
  const turnPrefixMessages = prefix.flatMap(summarizable);
  if (!messagesToSummarize.length && !turnPrefixMessages.length) return undefined;

  const fileOps = createFileOps();
  if (prevIndex >= 0) addSummaryDetails(pes[prevIndex].entry, fileOps);
  for (const m of messagesToSummarize) extractFileOpsFromMessage(m, fileOps);
  for (const m of turnPrefixMessages) extractFileOpsFromMessage(m, fileOps);

  const kept = pes.slice(cut.firstKeptEntryIndex);
  const systemMessage = getCurrentSystemMessage(projection.messages);
  const keptMessages = kept.flatMap((pe) => pe.messages).filter((m) => m.role !== 'system');
  return {
    firstKeptEntryId: firstKept.id,
    messagesToSummarize,
    turnPrefixMessages,
    isSplitTurn: cut.isSplitTurn,
    tokensBefore,
    previousSummary,
    fileOps,
    settings,
    summarizedEntryIds: [...history, ...prefix].filter((pe) => summarizable(pe).length > 0).map((pe) => pe.entry.id),
    keptEntryIds: kept.map((pe) => pe.entry.id),
    keptTokens: estimateMessagesTokens(keptMessages) + (systemMessage ? estimateTokens(systemMessage) : 0),
    systemMessage,
  };
}

// ───────────── plan / preview / summarize / commit ─────────────

export interface CompactionPlan {
  /** The leaf the plan was made for; commit refuses if the session moved on. */
  leafId: string | null;
  path: SessionEntry[];
  preparation: CompactionPreparation | undefined;
  /** Why there is nothing to do (pi's messages), when preparation is undefined. */
  reason?: 'Already compacted' | 'Nothing to compact (session too small)';
}

export async function planCompaction(
  session: Session,
  settings: Partial<CompactionSettings> = {},
  signal?: AbortSignal,
): Promise<CompactionPlan> {
  const full: CompactionSettings = { ...DEFAULT_COMPACTION_SETTINGS, ...settings };
  const leafId = session.leafId;
  const path = await session.getBranch(leafId, signal);
  const preparation = prepareCompaction(path, full);
  let reason: CompactionPlan['reason'];
  if (!preparation)
    reason =
      path[path.length - 1]?.type === 'compaction' ? 'Already compacted' : 'Nothing to compact (session too small)';
  return { leafId, path, preparation, reason };
}

export interface CompactionPreview {
  firstKeptEntryId: string;
  isSplitTurn: boolean;
  /** pi's tokensBefore (usage-based when the last assistant usage is still valid). */
  tokensBefore: number;
  summarizedEntries: number;
  summarizedTokens: number;
  keptEntries: number;
  /** Estimated context after compaction, without the summary itself (its size is not known yet). */
  keptTokens: number;
  hasPreviousSummary: boolean;
  readFiles: string[];
  modifiedFiles: string[];
}

export function previewCompaction(prep: CompactionPreparation): CompactionPreview {
  const { readFiles, modifiedFiles } = computeFileLists(prep.fileOps);
  return {
    firstKeptEntryId: prep.firstKeptEntryId,
    isSplitTurn: prep.isSplitTurn,
    tokensBefore: prep.tokensBefore,
    summarizedEntries: prep.summarizedEntryIds.length,
    summarizedTokens:
      estimateMessagesTokens(prep.messagesToSummarize) + estimateMessagesTokens(prep.turnPrefixMessages),
    keptEntries: prep.keptEntryIds.length,
    keptTokens: prep.keptTokens,
    hasPreviousSummary: prep.previousSummary !== undefined,
    readFiles,
    modifiedFiles,
  };
}

export interface CompactionResult {
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details: FileDetails;
  usage?: Usage;
  /** What was sent to the model, in order. */
  requests: SentRequest[];
}

export interface CompactOptions extends CallOptions {
  /** The user's focus (pi's /compact instructions). */
  focus?: string;
}

/** pi's compact(): one call, or two for a split turn (history + turn prefix) merged with pi's separator. */
export async function summarizeCompaction(
  prep: CompactionPreparation,
  model: SummaryModel,
  opts: CompactOptions = {},
): Promise<CompactionResult> {
  const requests: SentRequest[] = [];
  const history = async () => {
    const base = withFocus(prep.previousSummary ? COMPACTION_UPDATE_PROMPT : COMPACTION_PROMPT, opts.focus);
    const conversation = serializeConversation(convertToLlm(prep.messagesToSummarize));
    const r = await callSummaryModel(
      model,
      conversationPrompt(conversation, base, prep.previousSummary),
      'Summarization',
      opts,
    );
    requests.push(r.request);
    return r;
  };
  let summary: string;
  let usage: Usage | undefined;
  if (prep.isSplitTurn && prep.turnPrefixMessages.length > 0) {
    let historyText = prep.previousSummary ?? NO_PRIOR_HISTORY;
    const usages: (Usage | undefined)[] = [];
    if (prep.messagesToSummarize.length > 0) {
      const h = await history();
      historyText = h.text;
      usages.push(h.usage);
    }
    const prefixConversation = serializeConversation(convertToLlm(prep.turnPrefixMessages));
    const p = await callSummaryModel(
      model,
      turnPrefixPrompt(prefixConversation, opts.focus),
      'Turn prefix summarization',
      opts,
    );
    requests.push(p.request);
    usages.push(p.usage);
    summary = historyText + SPLIT_TURN_SEPARATOR + p.text;
    // A sum is only honest when every call reported its usage.
    usage = usages.every((u): u is Usage => !!u) ? usages.reduce((a, b) => combineUsage(a, b)) : undefined;
  } else {
    const h = await history();
    summary = h.text;
    usage = h.usage;
  }
  const details = computeFileLists(prep.fileOps);
  summary += formatFileOperations(details.readFiles, details.modifiedFiles);
  return {
    summary,
    firstKeptEntryId: prep.firstKeptEntryId,
    tokensBefore: prep.tokensBefore,
    details,
    usage,
    requests,
  };
}

/**
 * The compaction entry exactly as pi's appendCompaction writes it (key order type, id, parentId,
 * timestamp, summary, firstKeptEntryId, tokensBefore, details, usage, fromHook, systemMessage). A
 * null firstKeptEntryId means "retain none" and becomes the entry's own id.
 */
export function buildCompactionEntry(args: {
  id: string;
  parentId: string | null;
  timestamp: string;
  summary: string;
  firstKeptEntryId: string | null;
  tokensBefore: number;
  details?: FileDetails;
  usage?: Usage;
  fromHook?: boolean;
  /** The current system message of the path (getCurrentSystemMessage over its projection). */
  systemMessage?: AgentMessage;
}): CompactionEntry {
  const e: CompactionEntry = {
    type: 'compaction',
    id: args.id,
    parentId: args.parentId,
    timestamp: args.timestamp,
    summary: args.summary,
    firstKeptEntryId: args.firstKeptEntryId ?? args.id,
    tokensBefore: args.tokensBefore,
    details: args.details,
    usage: args.usage,
    fromHook: args.fromHook,
  };
  if (args.systemMessage) e.systemMessage = { ...args.systemMessage, timestamp: new Date(args.timestamp).getTime() };
  return e;
}

export interface CommittedCompaction {
  entry: CompactionEntry;
  /** pi's estimatedTokensAfter: estimated tokens of the context the compaction leaves. */
  estimatedTokensAfter: number;
}

/** Appends the compaction under the leaf it was planned for; refuses if the session moved on. */
export async function commitCompaction(
  session: Session,
  plan: CompactionPlan,
  result: CompactionResult,
): Promise<CommittedCompaction> {
  await session.refresh();
  const [entry] = await session.appendEntries((leafId, newId) => {
    if (leafId !== plan.leafId) {
      throw new StaleSessionError(
        `The session changed while the compaction was being made (its leaf is now ${leafId ?? 'empty'}, was ${plan.leafId ?? 'empty'}); nothing was written. Compact again.`,
      );
    }
    return [
      buildCompactionEntry({
        id: newId(),
        parentId: leafId,
        timestamp: nowIso(),
        summary: result.summary,
        firstKeptEntryId: result.firstKeptEntryId,
        tokensBefore: result.tokensBefore,
        details: result.details,
        usage: result.usage,
        fromHook: false,
        systemMessage: getCurrentSystemMessage(projectPath(plan.path).messages),
      }),
    ];
  });
  const after = projectPath([...plan.path, entry]).messages;
  return { entry: entry as CompactionEntry, estimatedTokensAfter: estimateMessagesTokens(after) };
}
