// Model context derived from a root→leaf path, exactly as pi 1.6.0's buildSessionProjection /
// buildSessionContext (session-manager.js) and convertToLlm (messages.js) build it: same selection, same
// message objects in the same key order, same wrapper strings.
import type {
  ActiveToolsChangeEntry,
  AgentMessage,
  CompactionEntry,
  ContextEditEntry,
  ModelRef,
  SessionContext,
  SessionEntry,
} from '../format/types.js';
import { messageOf } from '../format/types.js';
import { asText, timeMs } from '../format/values.js';

export const COMPACTION_SUMMARY_PREFIX =
  'The conversation history before this point was compacted into the following summary:\n\n<summary>\n';
export const COMPACTION_SUMMARY_SUFFIX = '\n</summary>';
export const BRANCH_SUMMARY_PREFIX =
  'The following is a summary of a branch that this conversation came back from:\n\n<summary>\n';
export const BRANCH_SUMMARY_SUFFIX = '</summary>';

type Obj = Record<string, unknown>;

const ms = timeMs;

/** The messages one entry contributes (pi's sessionEntryToContextMessages). */
export function entryToMessages(entry: SessionEntry): AgentMessage[] {
  switch (entry.type) {
    case 'message': {
      const m = messageOf(entry);
      if (!m) return [];
      if (m.role === 'system' && m.content == null) return [{ ...m, content: '' }];
      if ((m.role === 'user' || m.role === 'assistant' || m.role === 'toolResult') && m.content == null)
        return [{ ...m, content: [] }];
      return [m];
    }
    case 'custom_message':
      return [
        {
          role: 'custom',
          customType: entry.customType,
          content: (entry.content as unknown) ?? [],
          display: entry.display,
          details: entry.details,
          timestamp: ms(entry.timestamp),
        },
      ];
    case 'branch_summary':
      return entry.summary
        ? [{ role: 'branchSummary', summary: entry.summary, fromId: entry.fromId, timestamp: ms(entry.timestamp) }]
        : [];
    case 'compaction': {
      const c = entry as CompactionEntry;
      const summary: AgentMessage = {
        role: 'compactionSummary',
        summary: c.summary,
        tokensBefore: c.tokensBefore,
        timestamp: ms(c.timestamp),
      };
      return c.systemMessage ? [c.systemMessage, summary] : [summary];
    }
    default:
      return [];
  }
}

/** pi's projectContextEntry: applies the latest context edit of an entry. */
export function projectEntry(entry: SessionEntry, edit: ContextEditEntry | undefined): AgentMessage[] {
  const messages = entryToMessages(entry);
  if (!edit) return messages;
  const replacement = edit.replacement;
  if (replacement === null) return [];
  return messages.map((m) => {
    if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'toolResult' && m.role !== 'custom') return m;
    // (where pi 1.6.0 fails too, reading the content of an absent replacement)
    if (replacement === undefined)
      throw new Error(
        `The context edit ${asText(edit.id)} of entry ${asText(edit.targetId)} has no replacement; pi cannot build this context either.`,
      );
    const content =
      (m.role === 'assistant' || m.role === 'toolResult') && typeof replacement.content === 'string'
        ? [{ type: 'text', text: replacement.content }]
        : replacement.content;
    return { ...m, content };
  });
}

/** Settings from the whole path (not the compaction-trimmed one), as pi's getSessionContextSettings. */
export function pathSettings(path: readonly SessionEntry[]): { thinkingLevel: string; model: ModelRef | null } {
  let thinkingLevel = 'off';
  let model: ModelRef | null = null;
  for (const e of path) {
    if (e.type === 'thinking_level_change') thinkingLevel = e.thinkingLevel as string;
    else if (e.type === 'model_change') model = { provider: e.provider as string, modelId: e.modelId as string };
    else if (messageOf(e)?.role === 'assistant') {
      const m = messageOf(e)!;
      model = { provider: m.provider as string, modelId: m.model as string };
    }
  }
  return { thinkingLevel, model };
}

/** pi's buildContextEntries: the latest compaction, its kept range (minus system messages), then the rest. */
export function contextEntries(path: readonly SessionEntry[]): SessionEntry[] {
  let compaction: CompactionEntry | undefined;
  for (const e of path) if (e.type === 'compaction') compaction = e as CompactionEntry;
  if (!compaction) return [...path];
  const at = path.findIndex((e) => e.id === compaction!.id);
  if (at < 0) return [...path];
  const out: SessionEntry[] = [compaction];
  let kept = false;
  for (let i = 0; i < at; i++) {
    const e = path[i];
    if (e.id === compaction.firstKeptEntryId) kept = true;
    if (kept && messageOf(e)?.role !== 'system') out.push(e);
  }
  for (let i = at + 1; i < path.length; i++) out.push(path[i]);
  return out;
}

export interface ProjectedEntry {
  entry: SessionEntry;
  messages: AgentMessage[];
}

/** pi's buildSessionProjection over an already-walked path. */
export function projectPath(path: readonly SessionEntry[]): {
  entries: ProjectedEntry[];
  messages: AgentMessage[];
  thinkingLevel: string;
  model: ModelRef | null;
} {
  const { thinkingLevel, model } = pathSettings(path);
  const selected = contextEntries(path);
  const edits = new Map<string, ContextEditEntry>();
  for (const e of selected)
    if (e.type === 'context_edit') edits.set((e as ContextEditEntry).targetId, e as ContextEditEntry);
  const entries = selected.map((entry, i) => ({
    entry,
    // Only the newest compaction (index 0) contributes; an older one inside the kept range does not.
    messages: entry.type === 'compaction' && i > 0 ? [] : projectEntry(entry, edits.get(entry.id)),
  }));
  return { entries, messages: entries.flatMap((e) => e.messages), thinkingLevel, model };
}

/** Active tools: the seed's `active_tools_change`, else pi 1.6.0's replay of system messages' tool changes. */
export function activeTools(path: readonly SessionEntry[]): string[] | null {
  let last: string[] | null = null;
  for (const e of path)
    if (e.type === 'active_tools_change') last = [...((e as ActiveToolsChangeEntry).activeToolNames ?? [])];
  if (last) return last;
  let tools: string[] | null = null;
  for (const e of path) {
    const m =
      e.type === 'message'
        ? (messageOf(e) as Obj | undefined)
        : e.type === 'compaction'
          ? ((e as CompactionEntry).systemMessage as Obj | undefined)
          : undefined;
    if (!m || m.role !== 'system') continue;
    const added = Array.isArray(m.toolsAdded) ? (m.toolsAdded as Obj[]) : [];
    const removed = Array.isArray(m.toolsRemoved) ? (m.toolsRemoved as Obj[]) : [];
    if (!added.length && !removed.length) continue;
    tools ??= [];
    for (const t of added) if (typeof t?.name === 'string' && !tools.includes(t.name)) tools.push(t.name);
    for (const t of removed) if (typeof t?.name === 'string') tools = tools.filter((n) => n !== t.name);
  }
  return tools;
}

/** @internal The context over a path of entries as objects: the reference the streamed context is tested against. */
export function buildContextFromPath(path: readonly SessionEntry[]): SessionContext {
  const { messages, thinkingLevel, model } = projectPath(path);
  return { messages, thinkingLevel, model, activeToolNames: activeTools(path) };
}

/** pi's bashExecutionToText. */
export function bashExecutionToText(m: Obj): string {
  let text = `Ran \`${asText(m.command)}\`\n`;
  if (m.output) text += `\`\`\`\n${asText(m.output)}\n\`\`\``;
  else text += '(no output)';
  if (m.cancelled) text += '\n\n(command cancelled)';
  else if (m.exitCode !== null && m.exitCode !== undefined && m.exitCode !== 0)
    text += `\n\nCommand exited with code ${asText(m.exitCode)}`;
  if (m.truncated && m.fullOutputPath) text += `\n\n[Output truncated. Full output: ${asText(m.fullOutputPath)}]`;
  return text;
}

/** pi's convertToLlm: what a provider receives. Unknown roles are dropped. */
export function convertToLlm(messages: readonly AgentMessage[]): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'bashExecution':
        if (m.excludeFromContext) break;
        out.push({ role: 'user', content: [{ type: 'text', text: bashExecutionToText(m) }], timestamp: m.timestamp });
        break;
      case 'custom':
        out.push({
          role: 'user',
          content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content,
          timestamp: m.timestamp,
        });
        break;
      case 'branchSummary':
        out.push({
          role: 'user',
          content: [{ type: 'text', text: BRANCH_SUMMARY_PREFIX + asText(m.summary) + BRANCH_SUMMARY_SUFFIX }],
          timestamp: m.timestamp,
        });
        break;
      case 'compactionSummary':
        out.push({
          role: 'user',
          content: [{ type: 'text', text: COMPACTION_SUMMARY_PREFIX + asText(m.summary) + COMPACTION_SUMMARY_SUFFIX }],
          timestamp: m.timestamp,
        });
        break;
      case 'system':
      case 'user':
      case 'assistant':
      case 'toolResult':
        out.push(m);
        break;
      default:
        break;
    }
  }
  return out;
}
