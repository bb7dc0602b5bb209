// The wire protocol between pi-tree and the bridge extension running inside pi: one JSON object per
// line over a local socket (Unix domain socket, Windows named pipe). Shared by both ends, so it has no
// imports. Requests carry the token of the discovery record; replies carry the request's id; events
// (pushed after `subscribe`) carry `event` instead.

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

// ---- validation (the bridge trusts nothing it reads from the socket) ----

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optStr = (v: unknown, max: number) => v === undefined || (typeof v === 'string' && v.length <= max);
const optBool = (v: unknown) => v === undefined || typeof v === 'boolean';
const isId = (v: unknown) => typeof v === 'string' && ENTRY_ID_RE.test(v);
const optId = (v: unknown) => v === undefined || isId(v);
const strArr = (v: unknown) =>
  Array.isArray(v) && v.length <= 10_000 && v.every((s) => typeof s === 'string' && s.length <= 4096);

const TEXT_MAX = 200_000;
/** A model's provider or id (pi's models.json names: no line breaks). */
const isModelPart = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= 200 && !/[\r\n]/.test(v);
export const ASK_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;
const SHORT_MAX = 1_000;

/** Checks the per-op arguments of a parsed request; returns a message for the first problem. */
export function checkArgs(op: BridgeOp, r: Record<string, unknown>): string | undefined {
  if (MUTATING_OPS.includes(op)) {
    if (
      r.waitMs !== undefined &&
      !(typeof r.waitMs === 'number' && Number.isFinite(r.waitMs) && r.waitMs >= 0 && r.waitMs <= 3_600_000)
    )
      return 'waitMs must be a number of ms between 0 and 3600000';
    if (r.key !== undefined && !(typeof r.key === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(r.key)))
      return 'key must be 1-64 characters [A-Za-z0-9_-]';
    if (r.ifLeaf !== undefined && r.ifLeaf !== null && !isId(r.ifLeaf)) return 'ifLeaf must be an entry id or null';
  }
  switch (op) {
    case 'state':
    case 'subscribe':
      return undefined;
    case 'goto': {
      if (!isId(r.targetId)) return 'targetId must be an entry id';
      if (!optBool(r.summarize) || !optBool(r.replaceInstructions))
        return 'summarize and replaceInstructions must be booleans';
      if (!optStr(r.customInstructions, TEXT_MAX)) return 'customInstructions must be a string';
      if (!optStr(r.label, SHORT_MAX)) return 'label must be a string';
      if (r.summary !== undefined) {
        const s = r.summary;
        if (!isObj(s) || typeof s.text !== 'string' || !s.text.trim() || s.text.length > MAX_LINE_BYTES)
          return 'summary.text must be a non-empty string';
        if (
          s.details !== undefined &&
          !(isObj(s.details) && strArr(s.details.readFiles) && strArr(s.details.modifiedFiles))
        )
          return 'summary.details must be {readFiles, modifiedFiles}';
      }
      return undefined;
    }
    case 'summaryPreview':
      if (!isId(r.targetId)) return 'targetId must be an entry id';
      if (!optStr(r.customInstructions, TEXT_MAX) || !optBool(r.replaceInstructions))
        return 'customInstructions must be a string, replaceInstructions a boolean';
      return undefined;
    case 'fork':
      if (!isId(r.entryId)) return 'entryId must be an entry id';
      if (r.position !== undefined && r.position !== 'before' && r.position !== 'at')
        return 'position must be "before" or "at"';
      return undefined;
    case 'clone':
      return optId(r.entryId) ? undefined : 'entryId must be an entry id';
    case 'label':
      if (!isId(r.entryId)) return 'entryId must be an entry id';
      return optStr(r.label, SHORT_MAX) ? undefined : 'label must be a string';
    case 'name':
      return typeof r.name === 'string' && r.name.length <= SHORT_MAX ? undefined : 'name must be a string';
    case 'compact':
      return optStr(r.customInstructions, TEXT_MAX) ? undefined : 'customInstructions must be a string';
    case 'planRestore':
      return isId(r.targetId) ? undefined : 'targetId must be an entry id';
    case 'restoreCode': {
      if (!isId(r.targetId)) return 'targetId must be an entry id';
      if (!optBool(r.conversation) || !optBool(r.force)) return 'conversation and force must be booleans';
      if (!optStr(r.fingerprint, 64)) return 'fingerprint must be a string';
      if (r.resolutions !== undefined) {
        if (!isObj(r.resolutions) || Object.keys(r.resolutions).length > 10_000) return 'resolutions must be an object';
        for (const [k, v] of Object.entries(r.resolutions))
          if (k.length > 4096 || (v !== 'mine' && v !== 'theirs' && v !== 'merge'))
            return 'resolutions: mine, theirs or merge per file';
      }
      if (
        r.allowOutside !== undefined &&
        (!Array.isArray(r.allowOutside) ||
          r.allowOutside.length > 10_000 ||
          !r.allowOutside.every((p) => typeof p === 'string' && p.length <= 4096))
      )
        return 'allowOutside must be a list of paths';
      return undefined;
    }
    case 'codeUndo':
      return optBool(r.redo) && optBool(r.force) ? undefined : 'redo and force must be booleans';
    case 'ask': {
      if (!isId(r.targetId)) return 'targetId must be an entry id';
      if (typeof r.prompt !== 'string' || !r.prompt.trim() || r.prompt.length > TEXT_MAX)
        return `prompt must be a non-empty string of at most ${TEXT_MAX} characters`;
      if (r.model !== undefined) {
        const m = r.model;
        if (!isObj(m) || !isModelPart(m.provider) || !isModelPart(m.id))
          return 'model must be {provider, id}, two non-empty strings';
      }
      return undefined;
    }
    case 'abortAsk':
      return typeof r.askId === 'string' && ASK_ID_RE.test(r.askId) ? undefined : 'askId must be an ask id';
  }
}

export type ParsedLine =
  | { ok: true; request: BridgeRequest }
  | { ok: false; id: string | null; code: BridgeErrorCode; error: string; fatal: boolean };

/**
 * Parses and validates one request line, checking the token with `tokenOk` (constant time, supplied by
 * the bridge). `fatal` tells the server to close the connection (bad token, not JSON).
 */
export function parseRequest(line: string, tokenOk: (token: string) => boolean): ParsedLine {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return { ok: false, id: null, code: 'malformed', error: 'not a JSON object', fatal: true };
  }
  if (!isObj(v)) return { ok: false, id: null, code: 'malformed', error: 'not a JSON object', fatal: true };
  const id = typeof v.id === 'string' && v.id.length > 0 && v.id.length <= 64 ? v.id : null;
  if (typeof v.token !== 'string' || !tokenOk(v.token))
    return { ok: false, id, code: 'unauthorized', error: 'missing or wrong token', fatal: true };
  if (id === null)
    return { ok: false, id: null, code: 'malformed', error: 'id must be a string of 1-64 characters', fatal: false };
  if (typeof v.op !== 'string' || !(BRIDGE_OPS as readonly string[]).includes(v.op))
    return {
      ok: false,
      id,
      code: 'unknown-op',
      error: `unknown op ${JSON.stringify(String(v.op)).slice(0, 40)}`,
      fatal: false,
    };
  const problem = checkArgs(v.op as BridgeOp, v);
  if (problem) return { ok: false, id, code: 'bad-args', error: problem, fatal: false };
  return { ok: true, request: v as BridgeRequest };
}

/** Validates a discovery record read from disk (written by a bridge, but a file is only data). */
export function parseRecord(text: string): BridgeRecord | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObj(v)) return undefined;
  const ok =
    v.protocol === BRIDGE_PROTOCOL &&
    Number.isSafeInteger(v.pid) &&
    (v.pid as number) > 0 &&
    typeof v.piVersion === 'string' &&
    v.piVersion.length < 100 &&
    typeof v.sessionFile === 'string' &&
    v.sessionFile.length > 0 &&
    v.sessionFile.length < 4096 &&
    typeof v.sessionId === 'string' &&
    v.sessionId.length < 200 &&
    typeof v.endpoint === 'string' &&
    v.endpoint.length < 4096 &&
    typeof v.token === 'string' &&
    TOKEN_RE.test(v.token) &&
    typeof v.startedAt === 'number';
  if (!ok) return undefined;
  return {
    protocol: v.protocol as number,
    pid: v.pid as number,
    piVersion: v.piVersion as string,
    sessionFile: v.sessionFile as string,
    sessionId: v.sessionId as string,
    endpoint: v.endpoint as string,
    token: v.token as string,
    startedAt: v.startedAt as number,
  };
}
