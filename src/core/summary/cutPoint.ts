// Where a compaction cuts the path, as pi 1.6.0's compaction.js finds it: walk back from the newest
// entry summing estimated tokens, cut at the next message that may start the kept part (never a tool
// result), and say whether that splits a turn (its start is then summarized on its own).
import { entryToMessages, type ProjectedEntry } from '../context/context.js';
import { messageOf, type AgentMessage, type SessionEntry } from '../format/types.js';
import { estimateTokens } from './tokens.js';

export interface CutPointResult {
  firstKeptEntryIndex: number;
  /** The entry that starts the turn being split, or -1. */
  turnStartIndex: number;
  isSplitTurn: boolean;
}

function isCutPointMessage(m: AgentMessage): boolean {
  return ['user', 'assistant', 'bashExecution', 'custom', 'branchSummary', 'compactionSummary'].includes(m.role);
}

function isTurnStartMessage(m: AgentMessage): boolean {
  return ['user', 'bashExecution', 'custom', 'branchSummary', 'compactionSummary'].includes(m.role);
}

const sumTokens = (ms: readonly AgentMessage[]) => ms.reduce((s, m) => s + estimateTokens(m), 0);

// ───────────── raw-entry cut point (pi's exported findCutPoint; kept for parity checks) ─────────────

function isTurnStartEntry(e: SessionEntry): boolean {
  return e.type !== 'compaction' && entryToMessages(e).some(isTurnStartMessage);
}

export function findTurnStartIndex(entries: readonly SessionEntry[], entryIndex: number, startIndex: number): number {
  for (let i = entryIndex; i >= startIndex; i--) if (isTurnStartEntry(entries[i])) return i;
  return -1;
}

/** @internal pi's findCutPoint over raw path entries (no projection), tested step by step against pi's. */
export function findCutPoint(
  entries: readonly SessionEntry[],
  startIndex: number,
  endIndex: number,
  keepRecentTokens: number,
): CutPointResult {
  const cutPoints: number[] = [];
  for (let i = startIndex; i < endIndex; i++) {
    if (entries[i].type !== 'compaction' && entryToMessages(entries[i]).some(isCutPointMessage)) cutPoints.push(i);
  }
  if (!cutPoints.length) return { firstKeptEntryIndex: startIndex, turnStartIndex: -1, isSplitTurn: false };
  let acc = 0;
  let cut = cutPoints[0];
  for (let i = endIndex - 1; i >= startIndex; i--) {
    const t = sumTokens(entryToMessages(entries[i]));
    if (t === 0) continue;
    acc += t;
    if (acc >= keepRecentTokens) {
      cut = cutPoints.find((c) => c >= i) ?? cutPoints[cutPoints.length - 1];
      break;
    }
  }
  while (cut > startIndex) {
    const prev = entries[cut - 1];
    if (prev.type === 'compaction' || entryToMessages(prev).length > 0) break;
    cut--;
  }
  const starts = isTurnStartEntry(entries[cut]);
  const turnStartIndex = starts ? -1 : findTurnStartIndex(entries, cut, startIndex);
  return { firstKeptEntryIndex: cut, turnStartIndex, isSplitTurn: !starts && turnStartIndex !== -1 };
}

// ───────────── projected cut point (what pi's prepareCompaction uses) ─────────────

function isProjectedTurnStart(pe: ProjectedEntry): boolean {
  return pe.entry.type !== 'compaction' && pe.messages.some(isTurnStartMessage);
}

/**
 * pi's findProjectedCutPoint: walk back from the newest entry summing estimated tokens; at
 * keepRecentTokens cut at the next valid cut point (never a tool result); step over a trailing
 * recovery attempt that context edits hid; then back over context-invisible entries.
 */
export function findProjectedCutPoint(
  entries: readonly ProjectedEntry[],
  startIndex: number,
  endIndex: number,
  keepRecentTokens: number,
): CutPointResult {
  const cutPoints: number[] = [];
  for (let i = startIndex; i < endIndex; i++) {
    if (entries[i].entry.type !== 'compaction' && entries[i].messages.some(isCutPointMessage)) cutPoints.push(i);
  }
  if (!cutPoints.length) return { firstKeptEntryIndex: startIndex, turnStartIndex: -1, isSplitTurn: false };
  let acc = 0;
  let exceeded = false;
  let cut = cutPoints[0];
  for (let i = endIndex - 1; i >= startIndex; i--) {
    const t = sumTokens(entries[i].messages);
    if (t === 0) continue;
    acc += t;
    if (acc >= keepRecentTokens) {
      exceeded = true;
      cut = cutPoints.find((c) => c >= i) ?? cutPoints[cutPoints.length - 1];
      break;
    }
  }
  const suffix = entries.slice(cut + 1, endIndex);
  const visible = (pe: ProjectedEntry) => pe.entry.type !== 'context_edit' && entryToMessages(pe.entry).length > 0;
  const omitted = (pe: ProjectedEntry) => visible(pe) && pe.messages.length === 0;
  const omittedIds = new Set(suffix.filter(omitted).map((pe) => pe.entry.id));
  const externalReplacement = suffix.some(
    (pe) =>
      pe.entry.type === 'context_edit' && pe.entry.replacement !== null && !omittedIds.has(pe.entry.targetId as string),
  );
  const recoverySuffix =
    exceeded &&
    !externalReplacement &&
    suffix.some((pe) => pe.entry.type === 'message' && messageOf(pe.entry)?.role === 'assistant' && omitted(pe)) &&
    suffix.every((pe) => pe.entry.type !== 'compaction' && (!visible(pe) || omitted(pe)));
  if (recoverySuffix) cut++;
  while (cut > startIndex) {
    const prev = entries[cut - 1];
    if (prev.entry.type === 'compaction' || prev.messages.length > 0) break;
    cut--;
  }
  const starts = isProjectedTurnStart(entries[cut]);
  let turnStartIndex = -1;
  if (!starts) {
    for (let i = cut; i >= startIndex; i--) {
      if (isProjectedTurnStart(entries[i])) {
        turnStartIndex = i;
        break;
      }
    }
  }
  return { firstKeptEntryIndex: cut, turnStartIndex, isSplitTurn: !starts && turnStartIndex !== -1 };
}
