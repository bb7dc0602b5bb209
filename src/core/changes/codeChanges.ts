// What each entry did to the code, from the tool calls pi records (ARCHITECTURE.md, Code changes): `edit` (path and
// its replacements, read as pi 1.6.0's edit tool reads its arguments), `write` (path and content), and
// the files a `bash` command writes, moves or deletes. Pure: no file of the user's is ever read.
import { messageOf, type SessionEntry } from '../format/types.js';
import { bashFiles, type BashFileOp } from './bashFiles.js';
import { asText } from '../format/values.js';

type Obj = Record<string, unknown>;

export type ChangeTool = 'edit' | 'write' | 'bash';

export interface Replacement {
  oldText: string;
  newText: string;
}

/** One tool call that changed (or meant to change) one file. */
export interface FileChange {
  /** The assistant entry holding the call. */
  entryId: string;
  callId: string;
  tool: ChangeTool;
  /** The path as the call named it (relative paths are relative to the session's cwd). */
  path: string;
  /** edit: the replacements, in order. */
  edits?: Replacement[];
  /** write: the new content. */
  content?: string;
  /** bash: the command and what it does to the path. */
  command?: string;
  op?: BashFileOp;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isReplacement = (v: unknown): v is Replacement =>
  isObj(v) && typeof v.oldText === 'string' && typeof v.newText === 'string';

/** The path argument, as pi's tools read it (`path`, or `file_path` as in pi's formatToolCall). */
export function pathArg(args: unknown): string | undefined {
  if (!isObj(args)) return undefined;
  const p = args.path ?? args.file_path;
  return typeof p === 'string' && p ? p : undefined;
}

/**
 * The replacements of an edit call, as pi 1.6.0's edit tool prepares its input (prepareEditArguments):
 * `edits` as an array, a JSON string of one, or a single object; a legacy top-level oldText/newText is
 * appended. Entries that are not {oldText, newText} strings are dropped (pi would refuse the call).
 */
export function editsOf(args: unknown): Replacement[] {
  if (!isObj(args)) return [];
  let edits: unknown = args.edits;
  if (typeof edits === 'string') {
    try {
      const parsed: unknown = JSON.parse(edits);
      edits = Array.isArray(parsed) ? parsed : isReplacement(parsed) ? [parsed] : edits;
    } catch {
      // not JSON: pi keeps the string and then refuses it
    }
  } else if (isReplacement(edits)) edits = [edits];
  const out = Array.isArray(edits)
    ? edits.filter(isReplacement).map((e) => ({ oldText: e.oldText, newText: e.newText }))
    : [];
  if (typeof args.oldText === 'string' && typeof args.newText === 'string')
    out.push({ oldText: args.oldText, newText: args.newText });
  return out;
}

/** The file changes of one tool call (none for tools that change nothing). */
export function changesOfCall(entryId: string, call: { id: string; name: string; arguments: unknown }): FileChange[] {
  const base = { entryId, callId: call.id };
  if (call.name === 'edit' || call.name === 'write') {
    const path = pathArg(call.arguments);
    if (!path) return [];
    if (call.name === 'edit') return [{ ...base, tool: 'edit', path, edits: editsOf(call.arguments) }];
    const content = (call.arguments as Obj).content;
    return [{ ...base, tool: 'write', path, content: typeof content === 'string' ? content : '' }];
  }
  if (call.name === 'bash') {
    const command = isObj(call.arguments) && typeof call.arguments.command === 'string' ? call.arguments.command : '';
    return bashFiles(command).map((f) => ({ ...base, tool: 'bash' as const, path: f.path, command, op: f.op }));
  }
  return [];
}

/** Tool calls of an assistant message (id, name, arguments), skipping malformed blocks. */
export function callsOf(entry: SessionEntry | undefined): { id: string; name: string; arguments: unknown }[] {
  const m = entry && messageOf(entry);
  if (!m || m.role !== 'assistant' || !Array.isArray(m.content)) return [];
  const out: { id: string; name: string; arguments: unknown }[] = [];
  for (const b of m.content as unknown[]) {
    if (isObj(b) && b.type === 'toolCall' && typeof b.name === 'string')
      out.push({ id: asText(b.id ?? ''), name: b.name, arguments: b.arguments });
  }
  return out;
}

/** Every file change an entry's tool calls make (assistant messages; nothing for other entries). */
export function changesOfEntry(entry: SessionEntry | undefined): FileChange[] {
  if (!entry) return [];
  return callsOf(entry).flatMap((c) => changesOfCall(entry.id, c));
}

/** Files an edit or write call names (what `pi-tree compare` reports per side), without reading them. */
export function editedPaths(entry: SessionEntry | undefined): string[] {
  const out: string[] = [];
  for (const c of callsOf(entry))
    if ((c.name === 'edit' || c.name === 'write') && pathArg(c.arguments)) out.push(pathArg(c.arguments)!);
  return out;
}

/** Paths a call touches in any way (reads included), for the projection's `files` and find's `file:`. */
export function pathsOfCall(call: { name: string; arguments: unknown }): string[] {
  if (call.name === 'bash') {
    const cmd = isObj(call.arguments) && typeof call.arguments.command === 'string' ? call.arguments.command : '';
    return bashFiles(cmd).map((f) => f.path);
  }
  const p = pathArg(call.arguments);
  return p ? [p] : [];
}

/** Lines added and removed by a change (a rough size for lists: whole lines of old and new text). */
export function changeSize(c: FileChange, before?: string): { added: number; removed: number } {
  const lines = (s: string) => (s ? s.split('\n').length - (s.endsWith('\n') ? 1 : 0) : 0);
  if (c.tool === 'edit') {
    let added = 0;
    let removed = 0;
    for (const e of c.edits ?? []) {
      added += lines(e.newText);
      removed += lines(e.oldText);
    }
    return { added, removed };
  }
  if (c.tool === 'write') return { added: lines(c.content ?? ''), removed: before === undefined ? 0 : lines(before) };
  return { added: 0, removed: 0 };
}

/** The text shown on each side of an edit's diff: its replaced regions, one after another. */
export function editRegions(c: FileChange): { before: string; after: string } {
  const edits = c.edits ?? [];
  if (edits.length <= 1) return { before: edits[0]?.oldText ?? '', after: edits[0]?.newText ?? '' };
  // Several replacements in one call: each region under a marker line, the same on both sides.
  const mark = (i: number) => `⋯ replacement ${i + 1} of ${edits.length} ⋯\n`;
  const join = (pick: (e: Replacement) => string) =>
    edits.map((e, i) => `${mark(i)}${pick(e)}${pick(e).endsWith('\n') ? '' : '\n'}`).join('\n');
  return { before: join((e) => e.oldText), after: join((e) => e.newText) };
}

/** Applies an edit call's replacements to known content as pi does (each must match exactly once in LF text). */
export function applyEdits(content: string, edits: readonly Replacement[]): string | undefined {
  const text = content.replace(/\r\n?/g, '\n');
  const found: { at: number; e: Replacement }[] = [];
  for (const e of edits) {
    const old = e.oldText.replace(/\r\n?/g, '\n');
    if (!old) return undefined;
    const at = text.indexOf(old);
    if (at < 0 || text.indexOf(old, at + 1) >= 0) return undefined;
    found.push({ at, e: { oldText: old, newText: e.newText.replace(/\r\n?/g, '\n') } });
  }
  found.sort((a, b) => a.at - b.at);
  let out = '';
  let pos = 0;
  for (const { at, e } of found) {
    if (at < pos) return undefined; // overlapping replacements: pi refuses the call
    out += text.slice(pos, at) + e.newText;
    pos = at + e.oldText.length;
  }
  return out + text.slice(pos);
}
