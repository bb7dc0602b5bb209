// A branch (root → node) as Markdown for sharing or pasting into an issue: user and assistant messages,
// each tool call folded in a <details> block with its result, summaries and compactions quoted. Written
// as a stream (a long branch is never one string in memory unless the caller gathers it).
// What is rendered (an export) shows the session's text as it is with raw HTML on: every field from the
// session goes through markdownText.ts (fenced, a code span, escaped one-line text, or message text
// with its HTML escaped). The compare panel, which shows this Markdown as text, gets it unescaped.
import { basename } from 'node:path';
import { formatToolCall } from '../context/entryText.js';
import { callsOf, editsOf } from './codeChanges.js';
import type { Session } from '../session/session.js';
import { messageOf, type SessionEntry } from '../format/types.js';
import { asText, asNumber } from '../format/values.js';
import { jsonShown } from '../../shared/safeJson.js';
import { codeSpan, fence, htmlLine, lineText, proseText } from './markdownText.js';

type Obj = Record<string, unknown>;

/** Longest tool output kept in an export, in characters (the file holds all of it). */
const MAX_OUTPUT = 20_000;
const MAX_ARG = 50_000;

/** How session text goes into the Markdown: for a renderer (with raw HTML on), or for reading as text. */
interface Fields {
  /** Message text: Markdown as the session holds it. */
  prose(s: string): string;
  /** A one-line field (a name, a model) in Markdown text. */
  line(s: string): string;
  /** An id or a file name, as code. */
  code(s: string): string;
  /** Text inside pi-tree's <summary>. */
  summary(s: string): string;
}

const RENDERED: Fields = { prose: proseText, line: lineText, code: codeSpan, summary: htmlLine };
const AS_TEXT: Fields = {
  prose: (s) => s,
  line: (s) => s,
  code: (s) => `\`${s}\``,
  summary: (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!),
};

function cut(text: string, max: number): string {
  return text.length > max
    ? `${text.slice(0, max)}\n… [${(text.length - max).toLocaleString('en-US')} more characters in the session file]`
    : text;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => (b as Obj)?.type === 'text')
    .map((b) => asText((b as Obj).text ?? ''))
    .join('\n\n');
}

function thinkingOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => (b as Obj)?.type === 'thinking' && !(b as Obj).redacted)
    .map((b) => asText((b as Obj).thinking ?? ''))
    .join('\n\n');
}

function when(e: SessionEntry): string {
  const t = typeof e.timestamp === 'string' ? Date.parse(e.timestamp) : NaN;
  return Number.isFinite(t) ? new Date(t).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '';
}

/** The arguments of a call, shown by what they are (a command, a file's content, replacements) or as JSON. */
function callBody(call: { name: string; arguments: unknown }): string {
  const args = (call.arguments ?? {}) as Obj;
  if (call.name === 'bash' && typeof args.command === 'string') return fence(cut(args.command, MAX_ARG), 'sh');
  if (call.name === 'write' && typeof args.content === 'string') return fence(cut(args.content, MAX_ARG));
  if (call.name === 'edit') {
    const edits = editsOf(args);
    if (edits.length) {
      return edits
        .map((e) => {
          const lines = [...e.oldText.split('\n').map((l) => `- ${l}`), ...e.newText.split('\n').map((l) => `+ ${l}`)];
          return fence(cut(lines.join('\n'), MAX_ARG), 'diff');
        })
        .join('\n');
    }
  }
  // Reading tools: the summary line says it all.
  if (
    ['read', 'ls', 'grep', 'find'].includes(call.name) &&
    Object.keys(args).every((k) => ['path', 'file_path', 'offset', 'limit', 'pattern'].includes(k))
  )
    return '';
  return fence(cut(jsonShown(call.arguments ?? {}, 2) ?? '{}', MAX_ARG), 'json');
}

/** pi's one-line text for a call, without its brackets: `edit: src/a.ts`. */
function callTitle(c: { name: string; arguments: unknown }): string {
  return formatToolCall(c.name, (c.arguments ?? {}) as Obj).replace(/^\[([\s\S]*)\]$/, '$1');
}

/** Turns entries into Markdown one at a time; a tool call's result is folded in with the call. */
export class MarkdownWriter {
  private pending:
    | {
        entry: SessionEntry;
        calls: { id: string; name: string; arguments: unknown }[];
        results: Map<string, SessionEntry>;
      }
    | undefined;
  entries = 0;
  private readonly f: Fields;

  /** `asText`: Markdown to be shown as text (the compare panel): session text as it is, unescaped. */
  constructor(
    private readonly out: (s: string) => void,
    opts: { asText?: boolean } = {},
  ) {
    this.f = opts.asText ? AS_TEXT : RENDERED;
  }

  push(e: SessionEntry): void {
    this.entries++;
    const m = messageOf(e);
    if (m?.role === 'toolResult' && this.pending) {
      const id = asText(m.toolCallId ?? '');
      if (this.pending.calls.some((c) => c.id === id) && !this.pending.results.has(id)) {
        this.pending.results.set(id, e);
        return;
      }
    }
    this.flush();
    if (m?.role === 'assistant') {
      const calls = callsOf(e);
      if (calls.length) {
        this.pending = { entry: e, calls, results: new Map() };
        return;
      }
    }
    this.out(this.render(e));
  }

  /** Writes what is held back (an assistant message waiting for its tool results). */
  flush(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    let s = this.render(p.entry);
    for (const c of p.calls) s += this.call(c, p.results.get(c.id));
    this.out(s);
  }

  private call(c: { id: string; name: string; arguments: unknown }, result: SessionEntry | undefined): string {
    const rm = result && messageOf(result);
    const status = !rm ? ' (no result)' : rm.isError ? ' (error)' : '';
    const body = callBody(c);
    let s = `<details><summary>${this.f.summary(callTitle(c))}${status}</summary>\n\n${body}`;
    if (rm) {
      const text = textOf(rm.content);
      if (text) s += `${body ? '\n' : ''}${rm.isError ? 'Error' : 'Result'}:\n\n${fence(cut(text, MAX_OUTPUT))}`;
    }
    return `${s}\n</details>\n\n`;
  }

  private render(e: SessionEntry): string {
    const f = this.f;
    const m = messageOf(e);
    if (m) {
      switch (m.role) {
        case 'user':
          return `## User · ${when(e)}\n\n${f.prose(textOf(m.content))}\n\n`;
        case 'assistant': {
          const model = typeof m.model === 'string' ? ` (${f.line(m.model)})` : '';
          const thinking = thinkingOf(m.content);
          const text = f.prose(textOf(m.content));
          const err =
            m.stopReason === 'error' || m.stopReason === 'aborted'
              ? `\n\n*Stopped: ${f.line(asText(m.stopReason))}${m.errorMessage ? ` — ${f.line(asText(m.errorMessage))}` : ''}*`
              : '';
          const body = `${thinking ? `<details><summary>Thinking</summary>\n\n${fence(thinking)}\n</details>\n\n` : ''}${text}${err}`;
          return `## Assistant${model} · ${when(e)}\n\n${body ? `${body}\n\n` : ''}`;
        }
        case 'toolResult':
          return `<details><summary>Result of ${f.summary(asText(m.toolName ?? 'a tool'))}${m.isError ? ' (error)' : ''}</summary>\n\n${fence(cut(textOf(m.content), MAX_OUTPUT))}\n</details>\n\n`;
        case 'bashExecution':
          return `## Shell · ${when(e)}\n\n${fence(asText(m.command ?? ''), 'sh')}\n${fence(cut(asText(m.output ?? ''), MAX_OUTPUT))}\n`;
        case 'system':
          return `<details><summary>System prompt</summary>\n\n${fence(cut(textOf(m.content), MAX_OUTPUT))}\n</details>\n\n`;
        case 'custom':
          return m.display === false
            ? ''
            : `> **${f.line(asText(m.customType ?? 'extension'))}**\n>\n${quote(f.prose(textOf(m.content)))}\n\n`;
        default:
          return '';
      }
    }
    switch (e.type) {
      case 'branch_summary':
        return `> **Branch summary** (of a branch left at ${f.code(asText(e.fromId))})\n>\n${quote(f.prose(asText(e.summary ?? '')))}\n\n`;
      case 'compaction':
        return `> **Compaction** (${asNumber(e.tokensBefore).toLocaleString('en-US')} tokens before)\n>\n${quote(f.prose(asText(e.summary ?? '')))}\n\n`;
      case 'custom_message':
        return e.display === false
          ? ''
          : `> **${f.line(asText(e.customType))}**\n>\n${quote(f.prose(textOf(e.content)))}\n\n`;
      case 'model_change':
        return `*Model: ${f.line(asText(e.provider))}/${f.line(asText(e.modelId))}*\n\n`;
      case 'thinking_level_change':
        return `*Thinking: ${f.line(asText(e.thinkingLevel))}*\n\n`;
      default:
        return '';
    }
  }
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => (l ? `> ${l}` : '>'))
    .join('\n');
}

/** Markdown of a few entries (e.g. a turn, for a diff), gathered in one string, to be read as text. */
export function entriesMarkdown(entries: readonly SessionEntry[]): string {
  let s = '';
  const w = new MarkdownWriter((x) => (s += x), { asText: true });
  for (const e of entries) w.push(e);
  w.flush();
  return s;
}

const BATCH = 500;

/** Writes the branch root → `id` of `session` as Markdown, a batch of entries at a time. */
export async function exportBranch(
  session: Session,
  id: string,
  out: (s: string) => void,
  opts: { signal?: AbortSignal; exportedAt?: Date } = {},
): Promise<{ entries: number }> {
  if (!session.index.get(id)) throw new Error(`Entry ${id} not found`);
  const path = session.index.branch(id);
  const title = session.name ?? 'pi session';
  const file = session.path ? basename(session.path) : 'in memory';
  const at = (opts.exportedAt ?? new Date()).toISOString().slice(0, 10);
  const label = session.index.labels.get(id)?.label;
  out(
    `# ${lineText(title.replace(/\s+/g, ' '))}\n\n> Branch of pi session ${codeSpan(file)} from the root to ${codeSpan(id)}${label ? ` (${lineText(label)})` : ''}: ${path.length.toLocaleString('en-US')} entries. Exported by pi-tree on ${at}.\n\n`,
  );
  const w = new MarkdownWriter(out);
  for (let i = 0; i < path.length; i += BATCH) {
    const entries = await session.load(path.slice(i, i + BATCH), opts.signal);
    for (const e of entries) if (e) w.push(e);
  }
  w.flush();
  return { entries: w.entries };
}
