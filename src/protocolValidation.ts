// Runtime validation of what the tree webview sends (src/protocol.ts has the shapes). The webview is
// untrusted: every message is checked field by field, extra keys refused, ids and texts bounded, before
// the host looks at it; entry existence is then checked by the host against the session's index.
import type { RequestBody, RequestKind, WebviewMessage } from './protocol';
import { extraKey, isEntryId, isRecord, isText, validateBare, validateRequest, type Validated } from './shared/messaging';

export const LIMITS = {
  id: 128,
  label: 1000,
  name: 1000,
  focus: 10_000,
  summary: 1_000_000,
  text: 1_000_000,
};

type Check = Validated<WebviewMessage>;

const idOrNull = (v: unknown): v is string | null => v === null || isEntryId(v);

/** Validates the shape of a request body; entry existence is checked by the host against the index. */
export function validateBody(b: unknown): Validated<RequestBody> {
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
  const extra = extraKey(b, ['kind', ...allowed]);
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
      if (!isEntryId(b.id)) return bad('id must be an entry id');
      break;
    case 'openCodeDiff':
      if (!isEntryId(b.id)) return bad('id must be an entry id');
      if (b.other !== undefined && !isEntryId(b.other)) return bad('other must be an entry id');
      break;
    case 'undoRestore':
      if (b.redo !== undefined && typeof b.redo !== 'boolean') return bad('redo must be a boolean');
      break;
    case 'openChange':
      if (!isEntryId(b.id)) return bad('id must be an entry id');
      if (typeof b.index !== 'number' || !Number.isSafeInteger(b.index) || b.index < 0 || b.index > 10_000) return bad('index must be a small non-negative integer');
      break;
    case 'compare':
      if (!isEntryId(b.id)) return bad('id must be an entry id');
      if (!idOrNull(b.other)) return bad('other must be an entry id or null');
      break;
    case 'exportBranch':
      if (!isEntryId(b.id)) return bad('id must be an entry id');
      if (b.to !== 'editor' && b.to !== 'clipboard') return bad('to must be "editor" or "clipboard"');
      break;
    case 'setHidden':
      if (!isEntryId(b.id)) return bad('id must be an entry id');
      if (typeof b.hidden !== 'boolean') return bad('hidden must be a boolean');
      break;
    case 'openLink':
      if (!isEntryId(b.token)) return bad('token must be an id');
      break;
    case 'getContext':
    case 'moveTo':
      if (!idOrNull(b.id)) return bad('id must be an entry id or null');
      break;
    case 'summaryPreview':
      if (!idOrNull(b.id)) return bad('id must be an entry id or null');
      if (b.focus !== undefined && !isText(b.focus, LIMITS.focus)) return bad('focus must be a string');
      break;
    case 'moveWithSummary':
      if (!idOrNull(b.id)) return bad('id must be an entry id or null');
      if (!isText(b.summary, LIMITS.summary)) return bad('summary must be a string');
      if (b.previewId !== undefined && !isEntryId(b.previewId)) return bad('previewId must be an id');
      break;
    case 'cancelPreview':
      if (!isEntryId(b.previewId)) return bad('previewId must be an id');
      break;
    case 'compactPreview':
      if (b.focus !== undefined && !isText(b.focus, LIMITS.focus)) return bad('focus must be a string');
      break;
    case 'compactCommit':
      if (!isEntryId(b.previewId)) return bad('previewId must be an id');
      if (!isText(b.summary, LIMITS.summary) || !b.summary.trim()) return bad('summary must be a non-empty string');
      break;
    case 'setLabel':
      if (!isEntryId(b.id)) return bad('id must be an entry id');
      if (b.label !== undefined && !isText(b.label, LIMITS.label)) return bad('label must be a string');
      break;
    case 'rename':
      if (!isText(b.name, LIMITS.name)) return bad('name must be a string');
      break;
    case 'continueInPi':
      if (b.id !== undefined && !isEntryId(b.id)) return bad('id must be an entry id');
      if (b.text !== undefined && !isText(b.text, LIMITS.text)) return bad('text must be a string');
      break;
  }
  return { ok: true, value: b as unknown as RequestBody };
}

export function validateWebviewMessage(m: unknown): Check {
  if (!isRecord(m) || typeof m.type !== 'string') return { ok: false, reason: 'message is not an object with a type' };
  switch (m.type) {
    case 'ready':
    case 'shown':
      return validateBare(m, m.type);
    case 'selected': {
      const extra = extraKey(m, ['type', 'id']);
      if (extra) return { ok: false, reason: `selected: ${extra}` };
      if (!idOrNull(m.id)) return { ok: false, reason: 'selected: id must be an entry id or null' };
      return { ok: true, value: { type: 'selected', id: m.id } };
    }
    case 'request':
      return validateRequest(m, validateBody);
    default:
      return { ok: false, reason: `unknown message type "${String(m.type).slice(0, 40)}"` };
  }
}
