// Entries → the light NodeView projection the webview draws (no bodies: a preview line, tools, files,
// usage). Pure: no vscode import, so it is unit-tested and benchmarked directly.
import { parseMessageHead } from '../core/lineHead.js';
import { entryText, formatToolCall, hasText, toolCallsOf, type ToolCallRef } from '../core/preview.js';
import { parseRecordLine } from '../core/reader.js';
import type { Session } from '../core/session.js';
import type { EntryRecord, SessionIndex } from '../core/sessionIndex.js';
import { messageOf, type SessionEntry } from '../core/types.js';
import type { NodeKind, NodeView } from '../protocol.js';

type Obj = Record<string, unknown>;

export function kindOf(entry: SessionEntry): NodeKind {
  switch (entry.type) {
    case 'message': {
      const role = messageOf(entry)?.role;
      if (role === 'user' || role === 'assistant' || role === 'toolResult' || role === 'system') return role;
      if (role === 'bashExecution') return 'bash';
      if (role === 'custom') return 'custom';
      return 'other';
    }
    case 'custom_message':
      return 'custom';
    case 'branch_summary':
      return 'branchSummary';
    case 'compaction':
      return 'compaction';
    case 'model_change':
      return 'model';
    case 'thinking_level_change':
      return 'thinking';
    case 'label':
      return 'label';
    case 'session_info':
      return 'name';
    case 'leaf':
      return 'leaf';
    case 'usage':
      return 'usage';
    case 'context_edit':
      return 'contextEdit';
    case 'custom':
      return 'customEntry';
    case 'active_tools_change':
      return 'activeTools';
    default:
      return 'other';
  }
}

const FILE_TOOLS = new Set(['read', 'write', 'edit', 'ls', 'grep', 'find']);

const TOOL_CALL_ID = /"toolCallId":"([^"\\]{1,200})"/;
const TOOL_NAME = /"toolName":"([^"\\]{1,200})"/;
const IS_ERROR = /"isError":(true|false)/;

/** Projects entries (all of them, or an appended batch) with the tool calls seen so far. */
export class Projector {
  /** Tool calls by id, so a tool result can be named after its call (pi's toolCallMap). */
  readonly toolCalls = new Map<string, ToolCallRef>();

  constructor(private readonly index: SessionIndex) {}

  /**
   * Projects a line from its bytes. Tool results, the bulk of a session's bytes, are read from their
   * head and tail only (call id, tool name, error flag): their output is never parsed, which keeps the
   * host's garbage (and its collection pauses) small. Everything else is parsed.
   */
  projectLine(rec: EntryRecord, bytes: Buffer): NodeView {
    if (rec.type === 'message' && rec.role === 'toolResult') {
      const head = bytes.toString('latin1', 0, 600);
      const tail = bytes.toString('latin1', bytes.length - 200);
      const callId = TOOL_CALL_ID.exec(head)?.[1];
      const toolName = TOOL_NAME.exec(head)?.[1];
      const isError = IS_ERROR.exec(tail)?.[1];
      if (callId && isError && parseMessageHead(bytes)?.id === rec.id) {
        const call = this.toolCalls.get(callId);
        const parent = this.index.treeParent(rec);
        const label = this.index.labels.get(rec.id)?.label;
        const node: NodeView = { id: rec.id, parentId: parent?.id ?? null, type: 'message', role: 'toolResult', kind: 'toolResult', time: rec.time, text: '' };
        node.text = (call ? formatToolCall(call.name, call.arguments) : `[${toolName ?? 'tool'}]`).slice(0, 240);
        if (label) node.label = label;
        node.tools = [String(call?.name ?? toolName ?? 'tool')];
        const p = call?.arguments.path ?? call?.arguments.file_path;
        if (typeof p === 'string') node.files = [p];
        if (isError === 'true') node.error = true;
        return node;
      }
    }
    return this.project(rec, parseRecordLine(rec, bytes));
  }

  project(rec: EntryRecord, entry: SessionEntry | undefined): NodeView {
    const parent = this.index.treeParent(rec);
    const label = this.index.labels.get(rec.id)?.label;
    if (!entry) {
      return { id: rec.id, parentId: parent?.id ?? null, type: rec.type, role: rec.role, kind: 'other', text: '(unreadable line)', time: rec.time, label, error: true };
    }
    const node: NodeView = { id: rec.id, parentId: parent?.id ?? null, type: entry.type, kind: kindOf(entry), text: '', time: rec.time };
    if (label) node.label = label;
    const calls = toolCallsOf(entry);
    for (const c of calls) this.toolCalls.set(c.id, c);
    node.text = entryText(entry, this.toolCalls).slice(0, 240);
    const m = messageOf(entry) as Obj | undefined;
    if (m) {
      node.role = String(m.role);
      if (m.role === 'assistant') {
        if (calls.length) node.tools = [...new Set(calls.map((c) => c.name))];
        const files = calls.filter((c) => FILE_TOOLS.has(c.name)).map((c) => String(c.arguments.path ?? c.arguments.file_path ?? '')).filter(Boolean);
        if (files.length) node.files = [...new Set(files)];
        if (typeof m.model === 'string') node.model = m.model;
        const u = m.usage as Obj | undefined;
        if (u) {
          const total = Number(u.totalTokens) || Number(u.input ?? 0) + Number(u.output ?? 0) + Number(u.cacheRead ?? 0) + Number(u.cacheWrite ?? 0);
          if (total) node.tokens = total;
          const cost = Number((u.cost as Obj | undefined)?.total);
          if (cost) node.cost = cost;
        }
        // pi's /tree keeps a text-less assistant visible when it did not end normally (error, aborted,
        // length, deferred …): flag those so the webview shows them like pi.
        if ((m.stopReason && m.stopReason !== 'stop' && m.stopReason !== 'toolUse') || m.errorMessage) node.error = true;
        if (!hasText(m.content)) node.noText = true;
      } else if (m.role === 'toolResult') {
        const call = this.toolCalls.get(String(m.toolCallId));
        node.tools = [String(call?.name ?? m.toolName ?? 'tool')];
        const p = call?.arguments.path ?? call?.arguments.file_path;
        if (typeof p === 'string') node.files = [p];
        if (m.isError) node.error = true;
      } else if (m.role === 'bashExecution') {
        node.tools = ['bash'];
        if (typeof m.exitCode === 'number' && m.exitCode !== 0) node.error = true;
      }
    } else if (entry.type === 'branch_summary' || entry.type === 'compaction') {
      const d = entry.details as { readFiles?: unknown; modifiedFiles?: unknown } | undefined;
      const files = [...(Array.isArray(d?.readFiles) ? d.readFiles : []), ...(Array.isArray(d?.modifiedFiles) ? d.modifiedFiles : [])].filter((f): f is string => typeof f === 'string');
      if (files.length) node.files = files;
    } else if (entry.type === 'model_change') {
      node.model = String(entry.modelId);
    }
    return node;
  }
}

/** Projects records in batches, yielding to the event loop between them (the host is shared). */
export async function projectAll(
  index: SessionIndex,
  records: readonly EntryRecord[],
  source: Pick<Session, 'visitLines'>,
  projector = new Projector(index),
  batch = 500,
): Promise<NodeView[]> {
  await index.prepareTree();
  const out: NodeView[] = new Array(records.length);
  for (let i = 0; i < records.length; i += batch) {
    const slice = records.slice(i, i + batch);
    await source.visitLines(slice, (k, rec, bytes) => (out[i + k] = projector.projectLine(rec, bytes)));
    // entries held in memory (small types, unmigrated files) and unreadable lines
    for (let k = 0; k < slice.length; k++) if (!out[i + k]) out[i + k] = projector.project(slice[k], slice[k].entry);
    await new Promise<void>((r) => setImmediate(r));
  }
  return out;
}
