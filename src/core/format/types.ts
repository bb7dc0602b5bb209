// Entry and message types of pi's session files (format v3, pi 1.6.0), plus the seed harness's
// `leaf` and `active_tools_change`. Every interface allows unknown fields: they are kept as parsed and
// written back unchanged.

export const CURRENT_VERSION = 3;

export interface SessionHeader {
  type: 'session';
  version?: number;
  id: string;
  timestamp: string;
  cwd: string;
  parentSession?: string;
  [key: string]: unknown;
}

export interface TextContent {
  type: 'text';
  text: string;
  [key: string]: unknown;
}
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  [key: string]: unknown;
}
export interface ThinkingContent {
  type: 'thinking';
  thinking: string;
  redacted?: boolean;
  [key: string]: unknown;
}
export interface ToolCall {
  type: 'toolCall';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  [key: string]: unknown;
}
export type ContentBlock = TextContent | ImageContent | ThinkingContent | ToolCall;

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens?: number;
  cost?: {
    input: number;
    output: number;
    cacheRead: number;
    cacheWrite: number;
    total: number;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** A message as stored in a `message` entry (any role; unknown roles are kept). */
export interface AgentMessage {
  role: string;
  content?: unknown;
  timestamp?: number;
  [key: string]: unknown;
}

interface Base {
  id: string;
  parentId: string | null;
  timestamp: string;
  [key: string]: unknown;
}

export interface MessageEntry extends Base {
  type: 'message';
  message: AgentMessage;
}
export interface ThinkingLevelChangeEntry extends Base {
  type: 'thinking_level_change';
  thinkingLevel: string;
}
export interface ModelChangeEntry extends Base {
  type: 'model_change';
  provider: string;
  modelId: string;
}
export interface UsageEntry extends Base {
  type: 'usage';
  kind: string;
  provider: string;
  model: string;
  usage: Usage;
  note?: string;
}
export interface FileDetails {
  readFiles: string[];
  modifiedFiles: string[];
}
export interface CompactionEntry extends Base {
  type: 'compaction';
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: FileDetails | unknown;
  usage?: Usage;
  fromHook?: boolean;
  systemMessage?: AgentMessage;
}
export interface BranchSummaryEntry extends Base {
  type: 'branch_summary';
  fromId: string;
  summary: string;
  details?: FileDetails | unknown;
  usage?: Usage;
  fromHook?: boolean;
}
export interface CustomEntry extends Base {
  type: 'custom';
  customType: string;
  data?: unknown;
}
export interface CustomMessageEntry extends Base {
  type: 'custom_message';
  customType: string;
  content: string | ContentBlock[];
  display: boolean;
  details?: unknown;
}
export interface ContextEditEntry extends Base {
  type: 'context_edit';
  targetId: string;
  replacement: { content: unknown } | null;
}
export interface LabelEntry extends Base {
  type: 'label';
  targetId: string;
  label?: string;
}
export interface SessionInfoEntry extends Base {
  type: 'session_info';
  name?: string;
}
/** Seed harness / pi-tree jump record. `targetId: null` = before the first entry. */
export interface LeafEntry extends Base {
  type: 'leaf';
  targetId: string | null;
  fromId?: string | null;
}
export interface ActiveToolsChangeEntry extends Base {
  type: 'active_tools_change';
  activeToolNames: string[];
}

export type KnownEntry =
  | MessageEntry
  | ThinkingLevelChangeEntry
  | ModelChangeEntry
  | UsageEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | ContextEditEntry
  | LabelEntry
  | SessionInfoEntry
  | LeafEntry
  | ActiveToolsChangeEntry;

/** Any entry line; `type` may be one pi-tree does not know (kept verbatim). */
export type SessionEntry = KnownEntry | (Base & { type: string });

export interface ModelRef {
  provider: string;
  modelId: string;
}

export interface SessionContext {
  messages: AgentMessage[];
  thinkingLevel: string;
  model: ModelRef | null;
  /** Last `active_tools_change` on the path, else the tools replayed from system messages, else null. */
  activeToolNames: string[] | null;
}

export interface Diagnostic {
  /** 1-based physical line number in the file, when the problem belongs to a line. */
  line?: number;
  severity: 'error' | 'warning' | 'info';
  code:
    | 'malformed-json'
    | 'not-an-object'
    | 'torn-last-line'
    | 'bom'
    | 'missing-header'
    | 'header-not-first'
    | 'invalid-entry'
    | 'duplicate-id'
    | 'missing-parent'
    | 'self-parent'
    | 'cycle'
    | 'leaf-target-missing'
    | 'future-version'
    | 'legacy-version'
    | 'line-too-long'
    | 'read-only';
  message: string;
}

/** The message of a `message` entry, when it is an object with a string role (hostile files may lack it). */
export function messageOf(e: SessionEntry): AgentMessage | undefined {
  if (e.type !== 'message') return undefined;
  const m = (e as MessageEntry).message as unknown;
  return m && typeof m === 'object' && !Array.isArray(m) && typeof (m as AgentMessage).role === 'string'
    ? (m as AgentMessage)
    : undefined;
}
