// Every message between the extension host and the tree webview (protocolValidation.ts checks what the
// webview sends at run time). The webview is untrusted: it names entries by id and states intents; it
// never sends a file path, and the host checks every request before touching a file.

import type { HandlerTable, Reply } from './shared/messaging';
import type { BranchFilesReply, ChangesReply, CodeStateReply } from './shared/changeReplies';
import type { FilterMode } from './shared/treeFilter';

// ───────────────────────────── shared shapes ─────────────────────────────

/** Visual kind of a node, derived from entry type and message role. */
export type NodeKind =
  | 'user'
  | 'assistant'
  | 'toolResult'
  | 'bash'
  | 'custom'
  | 'system'
  | 'branchSummary'
  | 'compaction'
  | 'model'
  | 'thinking'
  | 'label'
  | 'name'
  | 'leaf'
  | 'usage'
  | 'contextEdit'
  | 'customEntry'
  | 'activeTools'
  /** A link to another session of the family (a fork or clone of this one, or the one it came from). */
  | 'link'
  | 'other';

/** The light projection of one entry that the webview draws (no message bodies). */
export interface NodeView {
  id: string;
  /** Tree parent as the host resolved it (null for roots: no parent, missing parent, cycle entry). */
  parentId: string | null;
  /** Entry type as stored (`message`, `label`, …, or an unknown type). */
  type: string;
  role?: string;
  kind: NodeKind;
  /** One-line preview, at most 200 characters (pi's /tree row text). */
  text: string;
  /** Entry time, ms since the epoch. */
  time: number;
  label?: string;
  /** Tool calls of an assistant message, or the tool of a tool result. */
  tools?: string[];
  /** File paths named by tool calls (read/write/edit, files a bash command writes …) or summary file lists. */
  files?: string[];
  /** Files this entry's tool calls change: edit, write, and files a bash command writes, moves or deletes. */
  changed?: string[];
  model?: string;
  tokens?: number;
  cost?: number;
  /** Assistant ended with an error or was aborted. */
  error?: boolean;
  /** Assistant message without visible text (pi's default filter hides these). */
  noText?: boolean;
  /** Set by the webview on family link nodes (kind `link`), never sent by the host. */
  link?: { relation: 'child' | 'parent'; fileName: string; messages: number; bytes: number; facts: string };
}

export interface SessionMeta {
  /** Display name only (file base name); the webview never sends paths back. */
  fileName: string;
  sessionId: string;
  cwd: string;
  name?: string;
  /** The first user message, shown as the title of an unnamed session. */
  firstMessage?: string;
  /** What the session is called (its name, else its first message; "… (fork)" for a fork that kept its source's). */
  title?: string;
  /** Why the session cannot be changed (read-only file, untrusted workspace), if so. */
  readOnly?: string;
  /** pi is writing this session right now (a guess from the file's age; false when `bridge` is set). */
  live: boolean;
  /** A running pi with the pi-tree bridge has this session open: every change goes through it. */
  bridge?: { pid: number; busy: boolean; piVersion?: string };
  diagnostics: { line?: number; severity: 'error' | 'warning' | 'info'; message: string }[];
  /** Host settings the webview needs. */
  clickAction: 'select' | 'move';
  /** The /tree filter a session opens with (piTree.tree.defaultFilter) until the user picks another. */
  defaultFilter?: FilterMode;
  /** The view a session opens in (piTree.tree.view): the graph, or one row per entry; the user's toggle wins. */
  defaultLayout?: TreeLayout;
  summariesAvailable: boolean;
  /** Opaque id to keep in the webview state (setState) so the panel is restored after a restart. */
  restoreToken: string;
  /** Entries whose branches the user marked hidden (pi-tree's own mark, kept outside the session file). */
  hidden?: string[];
}

/** Another session of the family, drawn as a link node at the entry where the two part. */
export interface FamilyLink {
  /** Opaque and host-made; the webview names the link by it (openLink), never by a path. */
  token: string;
  /** `child`: a fork or clone made from this session; `parent`: the session this one came from. */
  relation: 'child' | 'parent';
  /** A child: whether it is a fork or a clone. */
  kind?: 'fork' | 'clone';
  /** The entry of this session where they part (null: before its first entry). */
  at: string | null;
  title: string;
  fileName: string;
  messages: number;
  bytes: number;
  /** When the other session was made (ms), for the order among siblings. */
  created: number;
}

/** How the tree is shown: the graph (with the outline list), or one row per entry like git-graph. */
export type TreeLayout = 'graph' | 'rows';

export interface FileLists {
  readFiles: string[];
  modifiedFiles: string[];
}

// ───────────────────────────── host → webview ─────────────────────────────

/**
 * A snapshot's nodes: objects, or `packed` (packedNodes.ts: columns as UTF-8 JSON). A big session's
 * parts come packed from the projection worker: bytes cross VS Code's message passing (the extension
 * host's serializer, the workbench's parser, two frames' structured clones) as one buffer, where
 * objects cost every hop a walk over every node; the webview parses them once.
 */
export type SnapshotNodes = { nodes: NodeView[]; packed?: undefined } | { nodes?: undefined; packed: Uint8Array };

export type { BranchFilesReply, ChangesReply, ChangeView, CodeStateReply } from './shared/changeReplies';

export type HostMessage =
  /**
   * The whole tree. A big one comes in parts (so that no single message takes long to serialize):
   * `total` is the node count when more `snapshotPart` messages of the same `rev` follow.
   */
  | ({ type: 'snapshot'; rev: number; meta: SessionMeta; leafId: string | null; total?: number } & SnapshotNodes)
  | ({ type: 'snapshotPart'; rev: number } & SnapshotNodes)
  /**
   * The first screen of a big session (the leaf, its path, the branches leaving it), sent before its
   * snapshot (of a later `rev`) and drawn until that snapshot is whole; `total` is the session's count, absent while the file is still
   * being read (a first screen read from the file's end).
   */
  | { type: 'firstScreen'; rev: number; meta: SessionMeta; leafId: string | null; nodes: NodeView[]; total?: number }
  /**
   * `leafId`: the leaf after these entries, when they moved it (pi's appends do): one message, so that no
   * frame comes between the entries and their leaf (it would cost the webview a full pass).
   */
  | { type: 'appended'; rev: number; nodes: NodeView[]; leafId?: string | null }
  | { type: 'leafMoved'; rev: number; leafId: string | null }
  | { type: 'labelChanged'; rev: number; targetId: string; label?: string }
  | { type: 'renamed'; rev: number; name?: string }
  | { type: 'meta'; rev: number; meta: SessionMeta }
  /** The sessions of the family (replaces the links sent before). */
  | { type: 'family'; rev: number; links: FamilyLink[] }
  /** Entries with a checkpoint (replaces the marks sent before); `off`: why capture turned itself off. */
  | { type: 'codeMarks'; rev: number; ids: string[]; off?: string }
  | Reply
  /**
   * An action chosen outside the webview (native context menu, command palette) for a node;
   * `editorText` offers a message's text for re-editing (a fork from a user message opened in its tab).
   */
  | { type: 'invoke'; action: InvokeAction; id?: string; text?: string };

export type InvokeAction =
  | 'editLabel'
  | 'summaryMove'
  | 'find'
  | 'focusLeaf'
  | 'fit'
  | 'overview'
  | 'toggleLayout'
  | 'showShortcuts'
  | 'details'
  | 'select'
  | 'editorText'
  | 'compareWith'
  | 'branchFiles'
  | 'foldOffPath'
  | 'toggleHidden'
  /** Opens the compaction dialog (pi's /compact of the context at the leaf). */
  | 'compact'
  /** Ask from here: focuses the details pane's prompt box for the node; with `text` (the palette's input box), asks it at once. */
  | 'ask';

// ───────────────────────────── webview → host ─────────────────────────────

export type RequestBody =
  | { kind: 'getEntry'; id: string }
  | { kind: 'getContext'; id: string | null }
  /** Move the leaf to `id` with pi's rule (a user message puts the leaf on its parent). */
  | { kind: 'moveTo'; id: string | null }
  /** Ask the model for a summary of the branch being left; writes nothing. */
  | { kind: 'summaryPreview'; id: string | null; focus?: string }
  /** Move with a summary; `previewId` ties it to a preview (details, usage), `summary` may be edited. */
  | { kind: 'moveWithSummary'; id: string | null; summary: string; previewId?: string }
  | { kind: 'cancelPreview'; previewId: string }
  /**
   * pi's /compact of the context at the leaf, as a preview: the model's summary of the older part,
   * not yet written; `focus` as pi's /compact instructions. A running pi compacts at once (`committed`).
   */
  | { kind: 'compactPreview'; focus?: string }
  /** Writes the compaction of preview `previewId` with `summary` (the model's, or the user's edit of it). */
  | { kind: 'compactCommit'; previewId: string; summary: string }
  | { kind: 'fork'; id: string }
  | { kind: 'clone'; id: string }
  | { kind: 'setLabel'; id: string; label?: string }
  | { kind: 'rename'; name: string }
  | { kind: 'copyText'; id: string }
  | { kind: 'continueInPi'; id?: string; text?: string }
  /** No summary model works yet: show the user where to set one up (the summary settings). */
  | { kind: 'setupSummaryModel' }
  /** The file changes of an entry (an assistant message, or the tool result of one of its calls). */
  | { kind: 'getChanges'; id: string }
  /** Opens VS Code's diff editor on change `index` of entry `id`. */
  | { kind: 'openChange'; id: string; index: number }
  /** The files changed on the branch root → `id`. */
  | { kind: 'branchFiles'; id: string }
  /** Opens the compare view of `id` and `other` (null: the current leaf). */
  | { kind: 'compare'; id: string; other: string | null }
  /** The branch root → `id` as Markdown, in a new editor or on the clipboard. */
  | { kind: 'exportBranch'; id: string; to: 'editor' | 'clipboard' }
  /** Marks (or unmarks) the branch starting at `id` as hidden: pi-tree's own mark, never in the file. */
  | { kind: 'setHidden'; id: string; hidden: boolean }
  /** Opens the tree of a family link's session. */
  | { kind: 'openLink'; token: string }
  /** Checkpoints: how the code at a node differs from the files now. */
  | { kind: 'codeState'; id: string }
  /** The code at a node against now (or against `other`), in VS Code's multi-file diff editor. */
  | { kind: 'openCodeDiff'; id: string; other?: string }
  /** Restore the code at a node (previewed and confirmed on the host); the leaf stays. */
  | { kind: 'restoreCode'; id: string }
  /** Undo (or redo) the last restore of this session's code. */
  | { kind: 'undoRestore'; redo?: boolean }
  /**
   * Ask from here: pi continues the session from `id` with `prompt` (from a user message: instead of it,
   * beside it, as pi's /tree does), with `model` (one of listModels') or the session's own. The reply
   * comes once pi's turn has ended; the tree shows its entries as pi writes them.
   */
  | { kind: 'askFrom'; id: string; prompt: string; model?: ModelRef }
  /** Cancels the turn this tree's askFrom runs: pi aborts it (what it wrote of it stays). */
  | { kind: 'cancelAsk' }
  /** pi's own models, for the prompt box's model picker. */
  | { kind: 'listModels' }
  /**
   * Try variants from `id`: the host asks the prompt (`prompt`, the box's text, offered), the count or
   * models and the check, then opens the variants view.
   */
  | { kind: 'tryVariants'; id: string; prompt?: string };

export type RequestKind = RequestBody['kind'];

export type WebviewMessage =
  | { type: 'ready' }
  /** A big session's first screen (the host's `preview`) is painted, or was not drawn: the host reads the whole file now. */
  | { type: 'shown' }
  | { type: 'request'; seq: number; body: RequestBody }
  /** Selection changed (so native menu commands and "Show in tree" know the node). */
  | { type: 'selected'; id: string | null };

// ───────────────────────────── replies ─────────────────────────────

/** The `data` of an ok reply, by request kind: `request(body)` resolves to `Replies[body.kind]`. */
export interface Replies {
  getEntry: EntryDetails;
  getContext: ContextView;
  moveTo: MoveReply;
  summaryPreview: SummaryPreview;
  /** A move, or `cancelled` (the user declined the live-session warning), or a fork made instead. */
  moveWithSummary: MoveReply | Cancelled | Forked;
  cancelPreview: Empty;
  compactPreview: CompactPreview;
  /** The compaction entry written, or `cancelled` (the user declined the live-session warning). */
  compactCommit: { entryId: string; estimatedTokensAfter?: number } | Cancelled;
  /** The new session, or `cancelled` (a running pi was busy and the user did not wait). */
  fork: (Forked & { text?: string }) | Cancelled;
  clone: Forked | Cancelled;
  setLabel: { label: string | null } | Cancelled;
  rename: { name: string | null } | Cancelled;
  copyText: { copied: number };
  /** With an entry id: the move made first; without: nothing to report. */
  continueInPi: MoveReply | Empty;
  setupSummaryModel: Empty;
  getChanges: ChangesReply;
  openChange: Empty;
  branchFiles: BranchFilesReply;
  compare: Empty;
  exportBranch: { entries: number; chars: number };
  setHidden: { hidden: string[] };
  openLink: Empty;
  codeState: CodeStateReply;
  openCodeDiff: { files: number };
  restoreCode: { restored: boolean };
  undoRestore: Empty;
  /** pi answered, or `cancelled` (the user cancelled, or did not wait for a busy pi; what pi wrote stays). */
  askFrom: AskReply | Cancelled;
  /** `cancelling`: a turn was running and pi was told to abort it. */
  cancelAsk: { cancelling: boolean };
  listModels: ModelList;
  /** `started`: the run began (its view opened); false when the user cancelled a question. */
  tryVariants: { started: boolean };
}

/** The webview's side of a request: the reply type follows from the request kind. */
export type RequestFn = <B extends RequestBody>(body: B) => Promise<Replies[B['kind']]>;

/** The host's side: one handler per request kind (`src/shared/messaging.ts`'s table), each checked against its reply type. */
export type RequestHandlers<Cx> = HandlerTable<RequestBody, Replies, Cx>;

export type Empty = Record<string, never>;
/** The user declined (a warning about a session pi is writing): nothing was written. */
export interface Cancelled {
  cancelled: true;
}
/** A new session file was written (fork, clone, or a move that forked instead); its base name only. */
export interface Forked {
  fileName: string;
}
export interface EntryDetails {
  id: string;
  /** The entry as stored; long strings are cut to `truncatedAt` characters. */
  entry: unknown;
  truncated: boolean;
  label?: string;
  onPath: boolean;
  isLeaf: boolean;
}
export interface ContextView {
  leafId: string | null;
  messages: { role: string; text: string; tokens: number; entryId?: string }[];
  tokens: number;
  /** Index in `messages` of the compaction summary, when the context starts at a compaction. */
  compactionAt?: number;
  thinkingLevel: string;
  model: string | null;
}
export interface MoveReply {
  leafId: string | null;
  /** The user message's text, offered for re-editing, when the target was a user message. */
  editorText?: string;
  moved: boolean;
  /** The user declined the live-session warning: nothing was written. */
  cancelled?: true;
}
export interface SummaryPreview {
  previewId: string;
  summary: string;
  details: FileLists;
  /** Number of entries summarized (0 = nothing to summarize, no model call). */
  entryCount: number;
  model?: string;
}

/** A compaction not yet written (or, `committed`, one a running pi wrote already). */
export interface CompactPreview {
  previewId: string;
  summary: string;
  details: FileLists;
  /** Estimated tokens of the context before the compaction. */
  tokensBefore: number;
  /** Estimated tokens that stay verbatim (the newest part of the conversation), when known. */
  keptTokens?: number;
  /** Entries summarized and kept, when known (a pi-tree model's plan). */
  summarizedEntries?: number;
  keptEntries?: number;
  /** The first entry that stays verbatim. */
  firstKeptEntryId?: string;
  model?: string;
  /** A running pi compacted the session already: `entryId` is its entry; moving to `previousLeafId` undoes it. */
  committed?: boolean;
  entryId?: string;
  previousLeafId?: string | null;
}

/** A model as pi names it (its models.json, `--model provider/id`). */
export interface ModelRef {
  provider: string;
  id: string;
}
/** One of pi's models, as the picker shows it. */
export interface ModelChoice extends ModelRef {
  /** pi's display name, when the model has one. */
  name?: string;
}
export interface ModelList {
  models: ModelChoice[];
  /** The model pi gives a new session (its settings' default), when it has one. */
  defaultModel?: ModelRef;
}
/** The end of an ask: pi's turn is in the session (the tree has its entries before this reply). */
export interface AskReply {
  /** The assistant message that holds the answer (null when pi wrote none); the tree selects it. */
  answerId: string | null;
  /** The session's leaf after the turn. */
  leafId: string | null;
  /** Which pi ran the turn: the one running the session (with the bridge), or a headless one. */
  via: 'running' | 'headless';
  pid: number;
}
