// Runtime validation of what the tree webview sends (src/protocol.ts has the shapes). The webview is
// untrusted: every message is checked field by field, extra keys refused, ids and texts bounded, before
// the host looks at it; entry existence is then checked by the host against the session's index.
import type { RequestBody, RequestKind, WebviewMessage } from './protocol';

export const LIMITS = {
  id: 128,
  label: 1000,
  name: 1000,
  focus: 10_000,
  summary: 1_000_000,
  text: 1_000_000,
};

const ID_RE = /^[A-Za-z0-9_.:-]{1,128}$/;

type Check = { ok: true; value: WebviewMessage } | { ok: false; reason: string };

/** A plain object (what structured clone delivers); anything with another prototype is refused. */
function isRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
function str(v: unknown, max: number): v is string {
  return typeof v === 'string' && v.length <= max;
}
function id(v: unknown): v is string {
  return typeof v === 'string' && ID_RE.test(v);
}
function idOrNull(v: unknown): v is string | null {
  return v === null || id(v);
}
function onlyKeys(o: Record<string, unknown>, keys: string[]): string | undefined {
  for (const k of Object.keys(o)) if (!keys.includes(k)) return `unexpected field "${k}"`;
  return undefined;
}

/** Validates the shape of a request body; entry existence is checked by the host against the index. */
export function validateBody(b: unknown): { ok: true; value: RequestBody } | { ok: false; reason: string } {
  if (!isRecord(b) || typeof b.kind !== 'string') return { ok: false, reason: 'body is not an object with a kind' };
  const bad = (r: string) => ({ ok: false as const, reason: `${b.kind as string}: ${r}` });
  // Every kind with the fields it may carry (the compiler keeps this in step with RequestBody).
  const fields: { [K in RequestKind]: readonly Exclude<keyof Extract<RequestBody, { kind: K }>, 'kind'>[] } = {
    getEntry: ['id'],
    getContext: ['id'],
    moveTo: ['id'],
    summaryPreview: ['id', 'focus'],
    moveWithSummary: ['id', 'summary', 'previewId'],
    cancelPreview: ['previewId'],
    compactPreview: ['focus'],
    compactCommit: ['previewId', 'summary'],
    fork: ['id'],
    clone: ['id'],
    setLabel: ['id', 'label'],
    rename: ['name'],
    copyText: ['id'],
    continueInPi: ['id', 'text'],
    setupSummaryModel: [],
    getChanges: ['id'],
    openChange: ['id', 'index'],
    branchFiles: ['id'],
    compare: ['id', 'other'],
    exportBranch: ['id', 'to'],
    setHidden: ['id', 'hidden'],
    openLink: ['token'],
    codeState: ['id'],
    openCodeDiff: ['id', 'other'],
    restoreCode: ['id'],
    undoRestore: ['redo'],
  };
  // Own properties only: a kind such as "__proto__" or "toString" is unknown, not inherited.
  const allowed: readonly string[] | undefined = Object.prototype.hasOwnProperty.call(fields, b.kind) ? fields[b.kind as RequestKind] : undefined;
  if (!allowed) return bad('unknown request kind');
  const extra = onlyKeys(b, ['kind', ...allowed]);
  if (extra) return bad(extra);
  switch (b.kind) {
    case 'getEntry':
    case 'fork':
    case 'clone':
    case 'copyText':
    case 'getChanges':
    case 'branchFiles':
    case 'codeState':
    case 'restoreCode':
      if (!id(b.id)) return bad('id must be an entry id');
      break;
    case 'openCodeDiff':
      if (!id(b.id)) return bad('id must be an entry id');
      if (b.other !== undefined && !id(b.other)) return bad('other must be an entry id');
      break;
    case 'undoRestore':
      if (b.redo !== undefined && typeof b.redo !== 'boolean') return bad('redo must be a boolean');
      break;
    case 'openChange':
      if (!id(b.id)) return bad('id must be an entry id');
      if (typeof b.index !== 'number' || !Number.isSafeInteger(b.index) || b.index < 0 || b.index > 10_000) return bad('index must be a small non-negative integer');
      break;
    case 'compare':
      if (!id(b.id)) return bad('id must be an entry id');
      if (!idOrNull(b.other)) return bad('other must be an entry id or null');
      break;
    case 'exportBranch':
      if (!id(b.id)) return bad('id must be an entry id');
      if (b.to !== 'editor' && b.to !== 'clipboard') return bad('to must be "editor" or "clipboard"');
      break;
    case 'setHidden':
      if (!id(b.id)) return bad('id must be an entry id');
      if (typeof b.hidden !== 'boolean') return bad('hidden must be a boolean');
      break;
    case 'openLink':
      if (!id(b.token)) return bad('token must be an id');
      break;
    case 'getContext':
    case 'moveTo':
      if (!idOrNull(b.id)) return bad('id must be an entry id or null');
      break;
    case 'summaryPreview':
      if (!idOrNull(b.id)) return bad('id must be an entry id or null');
      if (b.focus !== undefined && !str(b.focus, LIMITS.focus)) return bad('focus must be a string');
      break;
    case 'moveWithSummary':
      if (!idOrNull(b.id)) return bad('id must be an entry id or null');
      if (!str(b.summary, LIMITS.summary)) return bad('summary must be a string');
      if (b.previewId !== undefined && !id(b.previewId)) return bad('previewId must be an id');
      break;
    case 'cancelPreview':
      if (!id(b.previewId)) return bad('previewId must be an id');
      break;
    case 'compactPreview':
      if (b.focus !== undefined && !str(b.focus, LIMITS.focus)) return bad('focus must be a string');
      break;
    case 'compactCommit':
      if (!id(b.previewId)) return bad('previewId must be an id');
      if (!str(b.summary, LIMITS.summary) || !b.summary.trim()) return bad('summary must be a non-empty string');
      break;
    case 'setLabel':
      if (!id(b.id)) return bad('id must be an entry id');
      if (b.label !== undefined && !str(b.label, LIMITS.label)) return bad('label must be a string');
      break;
    case 'rename':
      if (!str(b.name, LIMITS.name)) return bad('name must be a string');
      break;
    case 'continueInPi':
      if (b.id !== undefined && !id(b.id)) return bad('id must be an entry id');
      if (b.text !== undefined && !str(b.text, LIMITS.text)) return bad('text must be a string');
      break;
  }
  return { ok: true, value: b as unknown as RequestBody };
}

export function validateWebviewMessage(m: unknown): Check {
  if (!isRecord(m) || typeof m.type !== 'string') return { ok: false, reason: 'message is not an object with a type' };
  switch (m.type) {
    case 'ready': {
      const extra = onlyKeys(m, ['type']);
      return extra ? { ok: false, reason: `ready: ${extra}` } : { ok: true, value: { type: 'ready' } };
    }
    case 'shown': {
      const extra = onlyKeys(m, ['type']);
      return extra ? { ok: false, reason: `shown: ${extra}` } : { ok: true, value: { type: 'shown' } };
    }
    case 'selected': {
      const extra = onlyKeys(m, ['type', 'id']);
      if (extra) return { ok: false, reason: `selected: ${extra}` };
      if (!idOrNull(m.id)) return { ok: false, reason: 'selected: id must be an entry id or null' };
      return { ok: true, value: { type: 'selected', id: m.id } };
    }
    case 'request': {
      const extra = onlyKeys(m, ['type', 'seq', 'body']);
      if (extra) return { ok: false, reason: `request: ${extra}` };
      if (typeof m.seq !== 'number' || !Number.isSafeInteger(m.seq) || m.seq < 0) return { ok: false, reason: 'request: seq must be a non-negative integer' };
      const body = validateBody(m.body);
      if (!body.ok) return body;
      return { ok: true, value: { type: 'request', seq: m.seq, body: body.value } };
    }
    default:
      return { ok: false, reason: `unknown message type "${String(m.type).slice(0, 40)}"` };
  }
}
