// The entries a Session writes, in the shape pi writes them: a leaf move (with the branch summary of
// the branch left), a label, the session's name, a message. Pure: the parent, the ids and the time come
// from the write that settles them on the file's real leaf (session.ts).
import { nowIso } from '../format/ids.js';
import type {
  AgentMessage,
  BranchSummaryEntry,
  FileDetails,
  LabelEntry,
  LeafEntry,
  MessageEntry,
  SessionEntry,
  SessionInfoEntry,
  Usage,
} from '../format/types.js';

export interface SummaryInput {
  summary: string;
  details?: FileDetails;
  usage?: Usage;
  fromHook?: boolean;
}

/**
 * A move of the leaf from `from` to `targetId`: `{type:"leaf", targetId, fromId}` with parentId = target
 * (so pi 1.6.0, which resumes at the last line, resumes at the same node), then optionally a
 * branch_summary under the target with fromId = the leaf we came from, as pi writes it.
 */
export function moveEntries(
  targetId: string | null,
  from: string | null,
  summary: SummaryInput | undefined,
  id: () => string,
): { entries: SessionEntry[]; leafRecordId: string; summaryId?: string } {
  const ts = nowIso();
  const leaf: LeafEntry = { type: 'leaf', id: id(), parentId: targetId, timestamp: ts, targetId, fromId: from };
  if (!summary) return { entries: [leaf], leafRecordId: leaf.id };
  const bs: BranchSummaryEntry = {
    type: 'branch_summary',
    id: id(),
    parentId: targetId,
    timestamp: ts,
    fromId: from ?? 'root',
    summary: summary.summary,
    details: summary.details,
    usage: summary.usage,
    fromHook: summary.fromHook ?? false,
  };
  return { entries: [leaf, bs], leafRecordId: leaf.id, summaryId: bs.id };
}

/** A label on `targetId` (no `label` key: the label is cleared), attached to the current leaf like pi's. */
export function labelEntry(
  id: string,
  parentId: string | null,
  targetId: string,
  text: string | undefined,
): LabelEntry {
  const entry: LabelEntry = { type: 'label', id, parentId, timestamp: nowIso(), targetId };
  if (text) entry.label = text;
  return entry;
}

/** The session's name (pi's appendSessionInfo: newlines become spaces, trimmed; empty clears). */
export function nameEntry(id: string, parentId: string | null, name: string): SessionInfoEntry {
  return { type: 'session_info', id, parentId, timestamp: nowIso(), name: name.replace(/[\r\n]+/g, ' ').trim() };
}

export function messageEntry(id: string, parentId: string | null, message: AgentMessage): MessageEntry {
  return { type: 'message', id, parentId, timestamp: nowIso(), message };
}
