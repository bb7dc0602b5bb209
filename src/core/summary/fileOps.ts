// Files read and modified, from tool calls and from earlier pi-generated summaries' details, listed
// exactly as pi 1.6.0 appends them to a summary (core/compaction/utils.js).
import type { AgentMessage, FileDetails } from '../format/types.js';

type Obj = Record<string, unknown>;

export interface FileOperations {
  read: Set<string>;
  written: Set<string>;
  edited: Set<string>;
}

export function createFileOps(): FileOperations {
  return { read: new Set(), written: new Set(), edited: new Set() };
}

function addFileOp(tool: unknown, args: unknown, ops: FileOperations): void {
  const path = typeof (args as Obj | undefined)?.path === 'string' ? ((args as Obj).path as string) : undefined;
  if (!path) return;
  if (tool === 'read') ops.read.add(path);
  else if (tool === 'write') ops.written.add(path);
  else if (tool === 'edit') ops.edited.add(path);
}

/** Tool calls of an assistant message, or the nested (codemode) calls recorded on a tool result. */
export function extractFileOpsFromMessage(message: AgentMessage, ops: FileOperations): void {
  if (message.role === 'toolResult') {
    const calls = ((message.nestedCalls as Obj | undefined)?.calls as Obj[] | undefined) ?? [];
    for (const c of calls) addFileOp(c.name, c.arguments, ops);
    return;
  }
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return;
  for (const b of message.content as Obj[]) {
    if (typeof b !== 'object' || b === null || b.type !== 'toolCall') continue;
    if (!('arguments' in b) || !('name' in b)) continue;
    addFileOp(b.name, b.arguments, ops);
  }
}

/**
 * Adds an earlier summary's lists. Only pi-generated summaries count (`fromHook` not true): an
 * extension's details can have any shape. Modified files go to `edited`, as in pi.
 */
export function addSummaryDetails(entry: { [key: string]: unknown }, ops: FileOperations): void {
  if (entry.fromHook || !entry.details) return;
  const d = entry.details as Partial<FileDetails>;
  if (Array.isArray(d.readFiles)) for (const f of d.readFiles) ops.read.add(f);
  if (Array.isArray(d.modifiedFiles)) for (const f of d.modifiedFiles) ops.edited.add(f);
}

/** Modified = edited ∪ written; read = read − modified; both in JS default sort order. */
export function computeFileLists(ops: FileOperations): FileDetails {
  const modified = new Set([...ops.edited, ...ops.written]);
  const readFiles = [...ops.read].filter((f) => !modified.has(f)).sort();
  return { readFiles, modifiedFiles: [...modified].sort() };
}

/** The block pi appends to a stored summary ("" when both lists are empty). */
export function formatFileOperations(readFiles: readonly string[], modifiedFiles: readonly string[]): string {
  const sections: string[] = [];
  if (readFiles.length > 0) sections.push(`<read-files>\n${readFiles.join('\n')}\n</read-files>`);
  if (modifiedFiles.length > 0) sections.push(`<modified-files>\n${modifiedFiles.join('\n')}\n</modified-files>`);
  return sections.length ? `\n\n${sections.join('\n\n')}` : '';
}
