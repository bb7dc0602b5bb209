// How an entry reads in one line, following pi 1.6.0's /tree (tree-selector.js getEntryDisplayText,
// formatToolCall, getSearchableText, getEntryCopyText), without colours.
import { homedir } from 'node:os';
import { isAbsolute, relative, sep } from 'node:path';
import { messageOf, type SessionEntry } from '../format/types.js';
import { asText, asNumber } from '../format/values.js';
import { jsonShown } from '../../shared/safeJson.js';

type Obj = Record<string, unknown>;

export interface ToolCallRef {
  name: string;
  arguments: Obj;
}

const normalize = (s: string) => s.replace(/[\n\t]/g, ' ').trim();

/** Concatenated text blocks (or the string), as pi's extractFullContent. */
export function fullText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const b of content)
    if (b && typeof b === 'object' && (b as Obj).type === 'text') out += asText((b as Obj).text ?? '');
  return out;
}

export function hasText(content: unknown): boolean {
  if (typeof content === 'string') return content.trim().length > 0;
  if (Array.isArray(content)) {
    for (const b of content)
      if (b && typeof b === 'object' && (b as Obj).type === 'text' && asText((b as Obj).text ?? '').trim()) return true;
  }
  return false;
}

export function shortenHome(p: string, home?: string): string {
  if (!isAbsolute(p)) return p;
  // (the environment is read only for an absolute path: process.env is slow to read, per tool call)
  home ??= process.env.HOME || process.env.USERPROFILE || homedir();
  if (!home) return p;
  const rel = relative(home, p);
  if (rel.startsWith('..') || isAbsolute(rel)) return p;
  return rel ? `~${sep}${rel}` : '~';
}

function lineNumber(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? asNumber(v) : NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

function readRange(offset: unknown, limit: unknown): string {
  if (offset == null && limit == null) return '';
  const start = offset == null ? 1 : lineNumber(offset);
  if (start === undefined) return '';
  if (limit == null) return `:${start}`;
  const count = lineNumber(limit);
  if (count === undefined) return '';
  return `:${start}-${start + count - 1}`;
}

/** pi's formatToolCall. */
export function formatToolCall(name: string, args: Obj = {}): string {
  const path = (v: unknown) => shortenHome(asText(v || ''));
  switch (name) {
    case 'read':
      return `[read: ${path(args.path || args.file_path)}${readRange(args.offset, args.limit)}]`;
    case 'write':
      return `[write: ${path(args.path || args.file_path)}]`;
    case 'edit':
      return `[edit: ${path(args.path || args.file_path)}]`;
    case 'bash': {
      const raw = asText(args.command || '');
      return `[bash: ${raw
        .replace(/[\n\t]/g, ' ')
        .trim()
        .slice(0, 50)}${raw.length > 50 ? '...' : ''}]`;
    }
    case 'grep':
      return `[grep: /${asText(args.pattern || '')}/ in ${path(args.path || '.')}]`;
    case 'find':
      return `[find: ${asText(args.pattern || '')} in ${path(args.path || '.')}]`;
    case 'ls':
      return `[ls: ${path(args.path || '.')}]`;
    default: {
      // pi's tree-selector: JSON.stringify(args).slice(0, 40), which throws past a few thousand levels;
      // jsonShown's text of such a value starts with the same 40 characters (it cuts far deeper).
      const json = jsonShown(args) ?? '';
      return `[${name}: ${json.slice(0, 40)}${json.length > 40 ? '...' : ''}]`;
    }
  }
}

/** Tool calls of an assistant message, for labelling the tool results that answer them. */
export function toolCallsOf(entry: SessionEntry): { id: string; name: string; arguments: Obj }[] {
  const m = messageOf(entry) as Obj | undefined;
  if (!m || m.role !== 'assistant' || !Array.isArray(m.content)) return [];
  const out: { id: string; name: string; arguments: Obj }[] = [];
  for (const b of m.content as Obj[]) {
    if (b && typeof b === 'object' && b.type === 'toolCall')
      out.push({ id: asText(b.id), name: asText(b.name), arguments: (b.arguments as Obj) ?? {} });
  }
  return out;
}

/** The row text pi's /tree shows for an entry (first 200 characters of message text). */
export function entryText(entry: SessionEntry, toolCalls?: Map<string, ToolCallRef>): string {
  switch (entry.type) {
    case 'message': {
      const m = messageOf(entry) as Obj | undefined;
      if (!m) return '[message]';
      const role = asText(m.role);
      if (role === 'user') return `user: ${normalize(fullText(m.content).slice(0, 200))}`;
      if (role === 'assistant') {
        const t = normalize(fullText(m.content).slice(0, 200));
        if (t) return `assistant: ${t}`;
        if (m.stopReason === 'aborted') return 'assistant: (aborted)';
        if (m.errorMessage) return `assistant: ${normalize(asText(m.errorMessage)).slice(0, 80)}`;
        return 'assistant: (no content)';
      }
      if (role === 'toolResult') {
        const call = m.toolCallId ? toolCalls?.get(asText(m.toolCallId)) : undefined;
        return call ? formatToolCall(call.name, call.arguments) : `[${asText(m.toolName ?? 'tool')}]`;
      }
      if (role === 'bashExecution') return `[bash]: ${normalize(asText(m.command ?? ''))}`;
      return `[${role}]`;
    }
    case 'custom_message': {
      const c = entry.content;
      const text =
        typeof c === 'string'
          ? c
          : Array.isArray(c)
            ? c
                .filter((b) => (b as Obj)?.type === 'text')
                .map((b) => asText((b as Obj).text))
                .join('')
            : '';
      return `[${asText(entry.customType)}]: ${normalize(text)}`;
    }
    case 'compaction':
      return `[compaction: ${Math.round(asNumber(entry.tokensBefore) / 1000)}k tokens]`;
    case 'branch_summary':
      return `[branch summary]: ${normalize(asText(entry.summary ?? ''))}`;
    case 'model_change':
      return `[model: ${asText(entry.modelId)}]`;
    case 'thinking_level_change':
      return `[thinking: ${asText(entry.thinkingLevel)}]`;
    case 'custom':
      return `[custom: ${asText(entry.customType)}]`;
    case 'context_edit':
      return `[context ${entry.replacement === null ? 'omit' : 'replace'}: ${asText(entry.targetId)}]`;
    case 'label':
      return `[label: ${entry.label == null ? '(cleared)' : asText(entry.label)}]`;
    case 'session_info':
      return entry.name ? `[title: ${asText(entry.name)}]` : '[title: empty]';
    case 'leaf':
      return `[leaf → ${entry.targetId === null ? 'root' : asText(entry.targetId)}]`;
    case 'active_tools_change':
      return `[tools: ${Array.isArray(entry.activeToolNames) ? entry.activeToolNames.join(', ') : ''}]`;
    case 'usage':
      return `[usage: ${asText(entry.kind)}]`;
    default:
      return '';
  }
}

/** The text pi's Ctrl+X copies for an entry, or undefined when there is none. */
export function copyText(entry: SessionEntry): string | undefined {
  let text: string | undefined;
  switch (entry.type) {
    case 'message': {
      const m = messageOf(entry) as Obj | undefined;
      if (!m) break;
      if (m.role === 'bashExecution') text = m.command as string;
      else if ('content' in m) {
        text = fullText(m.content);
        if (!text && m.role === 'assistant') text = m.errorMessage as string | undefined;
      }
      break;
    }
    case 'custom_message':
      text = fullText(entry.content);
      break;
    case 'compaction':
    case 'branch_summary':
      text = entry.summary as string;
      break;
  }
  return text?.trim() ? text : undefined;
}
