// Entries → the light NodeView projection the webview draws (no bodies: a preview line, tools, files,
// usage). Pure: no vscode import, so it is unit-tested and benchmarked directly.
import { changesOfCall, pathsOfCall } from '../../core/changes/codeChanges.js';
import { parseMessageHead } from '../../core/scan/lineHead.js';
import { entryText, formatToolCall, hasText, toolCallsOf, type ToolCallRef } from '../../core/context/entryText.js';
import { parseRecordLine } from '../../core/index/lineReads.js';
import type { Session } from '../../core/session/session.js';
import type { EntryRecord, SessionIndex } from '../../core/index/sessionIndex.js';
import { messageOf, type SessionEntry } from '../../core/format/types.js';
import type { NodeKind, NodeView } from '../../protocol.js';
import { asText, asNumber } from '../../core/format/values.js';

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

/** What a tool result needs of its call: kept instead of the call's arguments (a write's whole file…). */
interface CallSummary {
  name: string;
  /** pi's /tree text for the call, e.g. `[read: src/a.ts]`. */
  text: string;
  path?: string;
  /** Files the call changes (edit, write, bash-named): its tool result is marked with them too. */
  changed?: string[];
}

function summarize(c: ToolCallRef): CallSummary {
  const p = c.arguments.path ?? c.arguments.file_path;
  const changed = [...new Set(changesOfCall('', { id: '', ...c }).map((x) => x.path))];
  return {
    name: c.name,
    text: formatToolCall(c.name, c.arguments),
    path: typeof p === 'string' ? p : undefined,
    ...(changed.length ? { changed } : {}),
  };
}

/**
 * One string per distinct short value (model, tool and file names, types): 100k nodes hold a few
 * hundred strings instead of hundreds of thousands, which keeps the host's heap (and the collector's
 * pauses while it fills) small.
 */
class Interner {
  private readonly seen = new Map<string, string>();
  of(s: string): string {
    if (s.length > 256) return s;
    const v = this.seen.get(s);
    if (v !== undefined) return v;
    if (this.seen.size < 100_000) this.seen.set(s, s);
    return s;
  }
  list(xs: string[]): string[] {
    for (let i = 0; i < xs.length; i++) xs[i] = this.of(xs[i]);
    return xs;
  }
}

/** Projects entries (all of them, or an appended batch) with the tool calls seen so far. */
export class Projector {
  private readonly strings = new Interner();
  /** Tool calls by id, so a tool result can be named after its call (pi's toolCallMap). */
  readonly toolCalls = new Map<string, CallSummary>();
  /** The snapshot was projected by a worker: calls it saw are learnt on demand (see learn). */
  workerMade = false;

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
        const node: NodeView = {
          id: rec.id,
          parentId: parent?.id ?? null,
          type: 'message',
          role: 'toolResult',
          kind: 'toolResult',
          time: rec.time,
          text: '',
        };
        node.text = (call ? call.text : `[${toolName ?? 'tool'}]`).slice(0, 240);
        if (label) node.label = label;
        node.tools = [this.strings.of(asText(call?.name ?? toolName ?? 'tool'))];
        if (call?.path !== undefined) node.files = [this.strings.of(call.path)];
        if (call?.changed) node.changed = this.strings.list([...call.changed]);
        if (isError === 'true') node.error = true;
        return node;
      }
    }
    return this.project(rec, parseRecordLine(rec, bytes));
  }

  /** Remembers the tool calls of an entry projected elsewhere (a worker), to name later tool results. */
  learn(entry: SessionEntry): void {
    for (const c of toolCallsOf(entry)) this.toolCalls.set(c.id, summarize(c));
  }

  project(rec: EntryRecord, entry: SessionEntry | undefined): NodeView {
    const parent = this.index.treeParent(rec);
    const label = this.index.labels.get(rec.id)?.label;
    if (!entry) {
      return {
        id: rec.id,
        parentId: parent?.id ?? null,
        type: rec.type,
        role: rec.role,
        kind: 'other',
        text: '(unreadable line)',
        time: rec.time,
        label,
        error: true,
      };
    }
    const node: NodeView = {
      id: rec.id,
      parentId: parent?.id ?? null,
      type: this.strings.of(entry.type),
      kind: kindOf(entry),
      text: '',
      time: rec.time,
    };
    if (label) node.label = label;
    const calls = toolCallsOf(entry);
    for (const c of calls) this.toolCalls.set(c.id, summarize(c));
    const m = messageOf(entry) as Obj | undefined;
    const resultOf = m?.role === 'toolResult' ? this.toolCalls.get(asText(m.toolCallId)) : undefined;
    node.text = (resultOf ? resultOf.text : entryText(entry)).slice(0, 240);
    if (m) {
      node.role = this.strings.of(asText(m.role));
      if (m.role === 'assistant') {
        if (calls.length) node.tools = this.strings.list([...new Set(calls.map((c) => c.name))]);
        const files = calls.filter((c) => FILE_TOOLS.has(c.name) || c.name === 'bash').flatMap(pathsOfCall);
        if (files.length) node.files = this.strings.list([...new Set(files)]);
        // What the calls change (edit, write, files a bash command writes): the tree marks these nodes.
        const changed = calls.flatMap((c) => changesOfCall(rec.id, c).map((x) => x.path));
        if (changed.length) node.changed = this.strings.list([...new Set(changed)]);
        if (typeof m.model === 'string') node.model = this.strings.of(m.model);
        const u = m.usage as Obj | undefined;
        if (u) {
          const total =
            asNumber(u.totalTokens) ||
            asNumber(u.input ?? 0) + asNumber(u.output ?? 0) + asNumber(u.cacheRead ?? 0) + asNumber(u.cacheWrite ?? 0);
          if (total) node.tokens = total;
          const cost = asNumber((u.cost as Obj | undefined)?.total);
          if (cost) node.cost = cost;
        }
        // pi's /tree keeps a text-less assistant visible when it did not end normally (error, aborted,
        // length, deferred …): flag those so the webview shows them like pi.
        if (m.stopReason && m.stopReason !== 'stop' && m.stopReason !== 'toolUse') node.error = true;
        if (!hasText(m.content)) node.noText = true;
      } else if (m.role === 'toolResult') {
        node.tools = [this.strings.of(asText(resultOf?.name ?? m.toolName ?? 'tool'))];
        if (resultOf?.path !== undefined) node.files = [this.strings.of(resultOf.path)];
        if (resultOf?.changed) node.changed = this.strings.list([...resultOf.changed]);
        if (m.isError) node.error = true;
      } else if (m.role === 'bashExecution') {
        node.tools = ['bash'];
        if (typeof m.exitCode === 'number' && m.exitCode !== 0) node.error = true;
      }
    } else if (entry.type === 'branch_summary' || entry.type === 'compaction') {
      const d = entry.details as { readFiles?: unknown; modifiedFiles?: unknown } | undefined;
      const files = [
        ...(Array.isArray(d?.readFiles) ? d.readFiles : []),
        ...(Array.isArray(d?.modifiedFiles) ? d.modifiedFiles : []),
      ].filter((f): f is string => typeof f === 'string');
      if (files.length) node.files = this.strings.list(files);
    } else if (entry.type === 'model_change') {
      node.model = this.strings.of(asText(entry.modelId));
    }
    return node;
  }
}

/**
 * Projects records in order, handing them to `onPart` a part at a time (yielding to the event loop
 * between batches: the host is shared). Nothing is kept: a caller that posts each part and lets it
 * go keeps 100k projected nodes from ever being alive at once, which keeps the collector's pauses
 * short on the extension host's thread.
 */
export async function projectParts(
  index: SessionIndex,
  records: readonly EntryRecord[],
  source: Pick<Session, 'visitLines'>,
  projector: Projector,
  part: number,
  onPart: (nodes: NodeView[], from: number) => void | Promise<void>,
): Promise<void> {
  await index.prepareTree();
  const batch = Math.min(500, part);
  let out: NodeView[] = [];
  let from = 0;
  for (let i = 0; i < records.length; i += batch) {
    const slice = records.slice(i, i + batch);
    const base = out.length;
    await source.visitLines(slice, (k, rec, bytes) => (out[base + k] = projector.projectLine(rec, bytes)));
    // entries held in memory (small types, unmigrated files) and unreadable lines
    for (let k = 0; k < slice.length; k++)
      if (!out[base + k]) out[base + k] = projector.project(slice[k], slice[k].entry);
    if (out.length >= part || i + batch >= records.length) {
      const n = out.length;
      await onPart(out, from);
      from += n;
      out = [];
    }
    await new Promise<void>((r) => setImmediate(r));
  }
  if (!records.length) await onPart([], 0);
}

/** All of `records` projected (tests, small sessions). */
export async function projectAll(
  index: SessionIndex,
  records: readonly EntryRecord[],
  source: Pick<Session, 'visitLines'>,
  projector = new Projector(index),
): Promise<NodeView[]> {
  const all: NodeView[] = [];
  await projectParts(index, records, source, projector, 5000, (nodes) => {
    for (const n of nodes) all.push(n);
  });
  return all;
}

/**
 * After a worker projected the snapshot, this thread's projector has not seen the tool calls that new
 * tool results answer: they are read from the assistant messages above the new entries.
 */
export async function learnCallsFor(
  projector: Projector,
  s: Pick<Session, 'load'>,
  fresh: EntryRecord[],
  entries: (SessionEntry | undefined)[],
): Promise<void> {
  const wanted = new Set<string>();
  entries.forEach((e) => {
    const m = e?.type === 'message' ? (e.message as { role?: unknown; toolCallId?: unknown }) : undefined;
    if (m?.role === 'toolResult' && typeof m.toolCallId === 'string' && !projector.toolCalls.has(m.toolCallId))
      wanted.add(m.toolCallId);
  });
  if (!wanted.size) return;
  const seen = new Set(fresh);
  const above: EntryRecord[] = [];
  for (const r of fresh) {
    let p = r.parent;
    for (let steps = 0; p && steps < 200; steps++, p = p.parent) {
      if (!seen.has(p) && p.type === 'message' && p.role === 'assistant') {
        seen.add(p);
        above.push(p);
      }
    }
  }
  for (const e of await s.load(above)) if (e) projector.learn(e);
}

/**
 * What the webview gets of appended records (the ones still live: a later duplicate id replaces one):
 * their nodes, each tool result named after its call, and the labels they set or cleared.
 */
export async function projectAppended(
  projector: Projector,
  s: Pick<Session, 'load' | 'index'>,
  records: EntryRecord[],
): Promise<{ fresh: EntryRecord[]; nodes: NodeView[]; labelChanges: { targetId: string; label?: string }[] }> {
  const fresh = records.filter((r) => s.index.get(r.id) === r);
  const entries = await s.load(fresh);
  if (projector.workerMade) await learnCallsFor(projector, s, fresh, entries);
  const nodes = fresh.map((r, i) => projector.project(r, entries[i]));
  const labelChanges: { targetId: string; label?: string }[] = [];
  for (const r of fresh) {
    if (r.type !== 'label') continue;
    const target = (r.entry as { targetId?: string } | undefined)?.targetId;
    if (target) labelChanges.push({ targetId: target, label: s.index.labels.get(target)?.label });
  }
  return { fresh, nodes, labelChanges };
}
