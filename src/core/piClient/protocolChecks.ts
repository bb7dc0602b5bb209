// What the bridge reads is checked here before anything acts on it: each request line (its token, id,
// op and the op's arguments) and each discovery record read from disk. The bridge trusts nothing it reads
// from its socket, and pi-tree nothing it reads from a record file. The shapes are protocol.ts's.
import {
  BRIDGE_OPS,
  BRIDGE_PROTOCOL,
  MAX_LINE_BYTES,
  ENTRY_ID_RE,
  MUTATING_OPS,
  TOKEN_RE,
  type BridgeErrorCode,
  type BridgeOp,
  type BridgeRecord,
  type BridgeRequest,
} from './protocol.js';

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
