// Token estimation exactly as pi 1.6.0 (core/compaction/compaction.js): chars/4, rounded up, with
// images counted as 4800 chars, and the last valid assistant usage when one exists. pi measures tool-call
// arguments with JSON.stringify, which throws past a few thousand levels of nesting; jsonExact gives the
// same length where pi succeeds and the length JSON.stringify would give where it throws.
import type { ProjectedEntry } from '../context/context.js';
import type { AgentMessage, SessionEntry, Usage } from '../format/types.js';
import { getCurrentSystemMessage } from './systemMessage.js';
import { jsonExact } from '../../shared/safeJson.js';

type Obj = Record<string, unknown>;

export interface CompactionSettings {
  enabled?: boolean;
  reserveTokens: number;
  keepRecentTokens: number;
}

export const DEFAULT_COMPACTION_SETTINGS = { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 } as const;

/** pi's default context window when a model reports none. */
export const DEFAULT_CONTEXT_WINDOW = 128000;

const IMAGE_CHARS = 4800;

export function calculateContextTokens(usage: Usage): number {
  return usage.totalTokens || usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

function textAndImageChars(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const b of content as Obj[]) {
    if (!b || typeof b !== 'object') continue;
    if (b.type === 'text' && b.text) chars += (b.text as string).length;
    else if (b.type === 'image') chars += IMAGE_CHARS;
  }
  return chars;
}

const len = (v: unknown) => (typeof v === 'string' ? v.length : 0);

/** pi's estimateTokens. Unknown roles count 0. */
export function estimateTokens(message: AgentMessage): number {
  let chars = 0;
  switch (message.role) {
    case 'system': {
      chars = textAndImageChars(message.content);
      const sections = message.sections as Record<string, string | null> | undefined;
      if (sections) for (const s of Object.values(sections)) if (s) chars += s.length;
      if (message.toolsAdded) chars += jsonExact(message.toolsAdded)?.length ?? 0;
      return Math.ceil(chars / 4);
    }
    case 'user':
    case 'custom':
    case 'toolResult':
      return Math.ceil(textAndImageChars(message.content) / 4);
    case 'assistant': {
      const content = Array.isArray(message.content) ? (message.content as Obj[]) : [];
      for (const b of content) {
        if (!b || typeof b !== 'object') continue;
        if (b.type === 'text') chars += len(b.text);
        else if (b.type === 'thinking') chars += len(b.thinking);
        else if (b.type === 'toolCall') chars += len(b.name) + (jsonExact(b.arguments)?.length ?? 0);
      }
      return Math.ceil(chars / 4);
    }
    case 'bashExecution':
      return Math.ceil((len(message.command) + len(message.output)) / 4);
    case 'branchSummary':
    case 'compactionSummary':
      return Math.ceil(len(message.summary) / 4);
  }
  return 0;
}

export function estimateMessagesTokens(messages: readonly AgentMessage[]): number {
  let n = 0;
  for (const m of messages) n += estimateTokens(m);
  return n;
}

/** Usage of an assistant message that is neither aborted nor an error nor all zero. */
function assistantUsage(m: AgentMessage): Usage | undefined {
  if (m.role !== 'assistant' || !('usage' in m)) return undefined;
  const u = m.usage as Usage | undefined;
  if (m.stopReason !== 'aborted' && m.stopReason !== 'error' && u && calculateContextTokens(u) > 0) return u;
  return undefined;
}

export interface ContextUsageEstimate {
  tokens: number;
  usageTokens: number;
  trailingTokens: number;
  lastUsageIndex: number | null;
}

export function estimateContextTokens(messages: readonly AgentMessage[]): ContextUsageEstimate {
  let index = -1;
  let usage: Usage | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    usage = assistantUsage(messages[i]);
    if (usage) {
      index = i;
      break;
    }
  }
  if (!usage) {
    const estimated = estimateMessagesTokens(messages);
    return { tokens: estimated, usageTokens: 0, trailingTokens: estimated, lastUsageIndex: null };
  }
  const usageTokens = calculateContextTokens(usage);
  let trailingTokens = 0;
  for (let i = index + 1; i < messages.length; i++) trailingTokens += estimateTokens(messages[i]);
  return { tokens: usageTokens + trailingTokens, usageTokens, trailingTokens, lastUsageIndex: index };
}

/** pi's estimateProjectedContextTokens: usage from before the latest context edit or compaction is not trusted. */
export function estimateProjectedContextTokens(
  projection: { entries: readonly ProjectedEntry[]; messages: readonly AgentMessage[] },
  branchEntries: readonly SessionEntry[],
): ContextUsageEstimate {
  const estimate = estimateContextTokens(projection.messages);
  if (estimate.lastUsageIndex !== null) {
    let at = 0;
    let usageEntryId: string | undefined;
    for (const pe of projection.entries) {
      const next = at + pe.messages.length;
      if (estimate.lastUsageIndex < next) {
        usageEntryId = pe.entry.id;
        break;
      }
      at = next;
    }
    const usageEntryIndex = usageEntryId ? branchEntries.findIndex((e) => e.id === usageEntryId) : -1;
    let invalidating = -1;
    for (let i = branchEntries.length - 1; i >= 0; i--) {
      const t = branchEntries[i].type;
      if (t === 'context_edit' || t === 'compaction') {
        invalidating = i;
        break;
      }
    }
    if (usageEntryIndex > invalidating) return estimate;
  }
  const system = getCurrentSystemMessage(projection.messages);
  let tokens = system ? estimateTokens(system) : 0;
  for (const m of projection.messages) if (m.role !== 'system') tokens += estimateTokens(m);
  return { tokens, usageTokens: 0, trailingTokens: tokens, lastUsageIndex: null };
}
