// The wire protocol between pi-tree and the bridge extension running inside pi: one JSON object per
// line over a local socket (Unix domain socket, Windows named pipe). Shared by both ends, so it has no
// imports. Requests carry the token of the discovery record; replies carry the request's id; events
// (pushed after `subscribe`) carry `event` instead. What is read is checked in protocolChecks.ts.

export const BRIDGE_PROTOCOL = 1;
/** Longest line either end accepts (a reviewed summary travels in one request). */
export const MAX_LINE_BYTES = 1024 * 1024;
/** The pi command the bridge registers (also usable by a person in pi's TUI). */
export const BRIDGE_COMMAND = 'tree-bridge';
/** Entry ids: pi's are 8 hex characters; other writers' short tokens pass too, but never a separator or a dot. */
export const ENTRY_ID_RE = /^[A-Za-z0-9_-]{1,128}$/;
export const TOKEN_RE = /^[0-9a-f]{64}$/;

/** The discovery record a running bridge writes (mode 0600, in a 0700 directory). */
export interface BridgeRecord {
  protocol: number;
  pid: number;
  piVersion: string;
  /** Absolute path of the session file as pi names it (compare with realpath). */
  sessionFile: string;
  sessionId: string;
  /** Socket path (Unix) or named pipe (Windows). */
  endpoint: string;
  /** 64 hex characters (32 random bytes). */
  token: string;
  /** ms since the epoch. */
  startedAt: number;
}

export type BridgeOp =
  | 'state'
  | 'subscribe'
  | 'goto'
  | 'summaryPreview'
  | 'fork'
  | 'clone'
  | 'label'
  | 'name'
  | 'compact'
  | 'planRestore'
  | 'restoreCode'
  | 'codeUndo'
  | 'ask'
  | 'abortAsk';
export const BRIDGE_OPS: readonly BridgeOp[] = [
  'state',
  'subscribe',
  'goto',
  'summaryPreview',
  'fork',
  'clone',
  'label',
  'name',
  'compact',
  'planRestore',
  'restoreCode',
  'codeUndo',
  'ask',
  'abortAsk',
];
/** Ops that change the session; they wait for idle (`waitMs`) and honour `key` and `ifLeaf`. */
export const MUTATING_OPS: readonly BridgeOp[] = [
  'goto',
  'fork',
  'clone',
  'label',
  'name',
  'compact',
  'restoreCode',
  'codeUndo',
  'ask',
];

export interface FileDetails {
  readFiles: string[];
  modifiedFiles: string[];
}

/** Fields every mutating request may carry. */
export interface ActionOptions {
  /** How long to wait for pi to become idle (no turn, no compaction) before answering `busy`. Default 0. */
  waitMs?: number;
  /**
   * Idempotency key, chosen by the client per user action: a request repeated with the same key (after a
   * lost connection) gets the first one's reply and is not done again.
   */
  key?: string;
  /** Precondition: pi's leaf must still be this entry (null: the empty session), else `stale`. */
  ifLeaf?: string | null;
}

export interface OpArgs {
  state: Record<string, never>;
  subscribe: Record<string, never>;
  goto: ActionOptions & {
    targetId: string;
    /** Ask pi to summarize the branch being left (pi's own prompt and model). */
    summarize?: boolean;
    customInstructions?: string;
    replaceInstructions?: boolean;
    label?: string;
    /** A summary reviewed by the user (from summaryPreview): pi writes this text instead of generating one. */
    summary?: { text: string; details?: FileDetails };
  };
  summaryPreview: { targetId: string; customInstructions?: string; replaceInstructions?: boolean };
  fork: ActionOptions & { entryId: string; position?: 'before' | 'at' };
  clone: ActionOptions & { entryId?: string };
  label: ActionOptions & { entryId: string; label?: string };
  name: ActionOptions & { name: string };
  compact: ActionOptions & { customInstructions?: string };
  /**
   * Plan a restore of the code at an entry while the user looks at its preview: nothing is written; a
   * restoreCode with the same fingerprint soon after writes this plan instead of making it again (the
   * write still checks every file against it).
   */
  planRestore: { targetId: string };
  /** Restore the code at an entry (checkpoints), with the conversation too when asked: one action. */
  restoreCode: ActionOptions & {
    targetId: string;
    conversation?: boolean;
    /** The preview's fingerprint: the working folder must not have changed since. */
    fingerprint?: string;
    /** Per conflicting file (by its key): keep the file now, take the node's, or merge the two. */
    resolutions?: Record<string, 'mine' | 'theirs' | 'merge'>;
    force?: boolean;
    /** Files outside the working folder (absolute paths) the user confirmed by name. */
    allowOutside?: string[];
  };
  /** Undo (or redo) the last restore of this session. */
  codeUndo: ActionOptions & { redo?: boolean; force?: boolean };
  /**
   * Ask from a node: pi's leaf moved there as its /tree moves (a user message: to its parent, so the
   * prompt goes beside it), the model set when given, then the prompt sent as a user message. Answered
   * once pi's turn has STARTED (AskData); the turn's progress and end come as `ask*` events.
   */
  ask: ActionOptions & { targetId: string; prompt: string; model?: { provider: string; id: string } };
  /** Abort the turn of that ask if it still runs (its `askEnded` follows, aborted). Never waits for idle. */
  abortAsk: { askId: string };
}

export interface PlanRestoreData {
  /** The plan's fingerprint (the one a restoreCode then names). */
  fingerprint: string;
}

export interface RestoreCodeData {
  journalId: string;
  written: string[];
  skipped: { path: string; why: string }[];
  /** Files merged with conflict markers left in them. */
  merged?: { path: string; conflicts: number }[];
  /** The files were written, but something after did not work (recording where the code is). */
  warnings?: string[];
  /** pi's leaf afterwards (moved with the conversation). */
  leafId: string | null;
  /** Where pi's time went, by step (ms), for the editor's log. */
  ms?: Record<string, number>;
}

export interface CodeUndoData {
  journalId: string;
  written: string[];
  /** Files changed since the restore: nothing was written (unless force). */
  conflicts: string[];
  /** The restore had moved the conversation: moved back (undo) or forward again (redo), or it stayed (pi moved on since). */
  leafMoved?: boolean;
  leafStayed?: boolean;
  warnings?: string[];
}

export interface StateData {
  protocol: number;
  piVersion: string;
  pid: number;
  sessionFile: string;
  sessionId: string;
  sessionName?: string;
  leafId: string | null;
  busy: boolean;
}

export interface GotoData {
  moved: boolean;
  previousLeafId: string | null;
  /** pi's leaf afterwards (the parent of a user message chosen as target; a summary or label entry pi wrote). */
  leafId: string | null;
  summaryId?: string;
  /** The `leaf` record the bridge appended so a restarted pi resumes here (absent when pi's own entry does). */
  leafRecordId?: string;
  /** The text of a user message chosen as target (pi puts it back in its editor). */
  editorText?: string;
}

export interface SummaryPreviewData {
  /** pi's summary text (preamble, model output, file lists); null when nothing would be summarized. */
  summary: string | null;
  details: FileDetails;
  usage?: unknown;
  /** pi's leaf when the preview was made: commit with `ifLeaf` set to it. */
  fromLeafId: string | null;
  targetId: string;
  /** Where the leaf goes (a user message's parent). */
  newLeafId: string | null;
  entries: number;
}

export interface ForkData {
  cancelled: boolean;
  /** The session pi switched to (it may exist only in memory until its first message, as in pi). */
  sessionFile?: string;
  sessionId?: string;
  editorText?: string;
}

export interface LabelData {
  changed: boolean;
  entryId?: string;
}

export interface NameData {
  changed: boolean;
  entryId?: string;
}

export interface CompactData {
  compactionId: string;
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: unknown;
  usage?: unknown;
  /** The leaf before the compaction: moving back there undoes it. */
  previousLeafId: string | null;
}

export interface AskData {
  /** Names the turn in the ask events. */
  askId: string;
  /** pi's leaf before the move. */
  previousLeafId: string | null;
  /** pi's leaf when the prompt went in: the node, or the parent of a user message asked from. */
  fromLeafId: string | null;
  /** The `leaf` record the bridge appended for the move (absent when none was needed). */
  leafRecordId?: string;
  /** The model of the turn. */
  model?: { provider: string; id: string };
}

export interface AbortAskData {
  /** The turn was running and pi was told to abort it (false: it had ended already). */
  aborting: boolean;
}

export interface OpData {
  state: StateData;
  subscribe: StateData;
  goto: GotoData;
  summaryPreview: SummaryPreviewData;
  fork: ForkData;
  clone: ForkData;
  label: LabelData;
  name: NameData;
  compact: CompactData;
  planRestore: PlanRestoreData;
  restoreCode: RestoreCodeData;
  codeUndo: CodeUndoData;
  ask: AskData;
  abortAsk: AbortAskData;
}

export type BridgeRequest<O extends BridgeOp = BridgeOp> = { id: string; token: string; op: O } & OpArgs[O];

export type BridgeErrorCode =
  | 'unauthorized'
  | 'malformed'
  | 'too-large'
  | 'unknown-op'
  | 'bad-args'
  | 'busy'
  | 'not-found'
  | 'stale'
  | 'cancelled'
  | 'failed'
  | 'closing'
  // client side only
  | 'timeout'
  | 'peer-gone'
  | 'connect-failed';

export type BridgeReply<O extends BridgeOp = BridgeOp> =
  { id: string; ok: true; data: OpData[O] } | { id: string | null; ok: false; code: BridgeErrorCode; error: string };

export type BridgeEvent =
  | { event: 'leafChanged'; leafId: string | null; previousLeafId: string | null }
  | { event: 'busy' }
  | { event: 'idle' }
  | { event: 'entriesAppended'; ids: string[] }
  | { event: 'sessionSwitched'; reason: string; sessionFile?: string }
  | { event: 'sessionClosed'; reason: string }
  /** The asked turn streams: a piece of the answer's text or of the model's thinking. */
  | { event: 'askDelta'; askId: string; kind: 'text' | 'thinking'; delta: string }
  /** The asked turn runs a tool (start) or has run it (end). */
  | { event: 'askTool'; askId: string; phase: 'start' | 'end'; name: string; toolCallId: string; isError?: boolean }
  /**
   * The asked turn has ended (pi settled). `entryIds`: what pi appended for it, in order; `answerId`: the
   * assistant message holding the answer (read its text from the file); `error`: pi's words when the
   * model call failed. The texts themselves stay in the file (an answer may be longer than a line here).
   */
  | {
      event: 'askEnded';
      askId: string;
      leafId: string | null;
      entryIds: string[];
      answerId?: string;
      aborted: boolean;
      error?: string;
    };
