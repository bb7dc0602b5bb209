// Runtime validation of what the tree webview sends (src/protocol.ts has the shapes). The webview is
// untrusted: every message is checked field by field, extra keys refused, ids and texts bounded, before
// the host looks at it; entry existence is then checked by the host against the session's index.
import type { RequestBody, RequestKind, WebviewMessage } from './protocol';
import {
  extraKey,
  isEntryId,
  isRecord,
  isText,
  validateBare,
  validateRequest,
  type Validated,
} from './shared/messaging';

export const LIMITS = {
  id: 128,
  label: 1000,
  name: 1000,
  focus: 10_000,
  summary: 1_000_000,
  text: 1_000_000,
  /** An Ask from here prompt (what pi's bridge takes is larger; a prompt box's text is far below it). */
  prompt: 100_000,
  /** A model's provider or id (pi's models.json names). */
  modelPart: 200,
};

type Check = Validated<WebviewMessage>;

const idOrNull = (v: unknown): v is string | null => v === null || isEntryId(v);

type Body = Record<string, unknown>;

/** The first thing wrong with a body's fields (its keys are known to be allowed), or undefined. */
type FieldCheck = (b: Body) => string | undefined;

const optionalId = (v: unknown) => v === undefined || isEntryId(v);
const optionalText = (v: unknown, max: number) => v === undefined || isText(v, max);
const entryId: FieldCheck = (b) => (isEntryId(b.id) ? undefined : 'id must be an entry id');
const entryIdOrNull: FieldCheck = (b) => (idOrNull(b.id) ? undefined : 'id must be an entry id or null');

/** A model as pi names it: exactly `{ provider, id }`, two short one-line strings. */
function modelError(m: unknown): string | undefined {
  if (!isRecord(m)) return 'model must be an object';
  const extra = extraKey(m, ['provider', 'id']);
  if (extra) return `model: ${extra}`;
  const part = (v: unknown) =>
    typeof v === 'string' && v.trim().length > 0 && v.length <= LIMITS.modelPart && !/\p{Cc}/u.test(v);
  return part(m.provider) && part(m.id) ? undefined : 'model must be {provider, id}: two non-empty one-line strings';
}

/** Every kind with the fields it may carry (the compiler keeps this in step with RequestBody) and their check. */
const RULES: {
  [K in RequestKind]: {
    fields: readonly Exclude<keyof Extract<RequestBody, { kind: K }>, 'kind'>[];
    check: FieldCheck;
  };
} = {
  getEntry: { fields: ['id'], check: entryId },
  getContext: { fields: ['id'], check: entryIdOrNull },
  moveTo: { fields: ['id'], check: entryIdOrNull },
  summaryPreview: {
    fields: ['id', 'focus'],
    check: (b) => entryIdOrNull(b) ?? (optionalText(b.focus, LIMITS.focus) ? undefined : 'focus must be a string'),
  },
  moveWithSummary: {
    fields: ['id', 'summary', 'previewId'],
    check: (b) => {
      if (!idOrNull(b.id)) return 'id must be an entry id or null';
      if (!isText(b.summary, LIMITS.summary)) return 'summary must be a string';
      return optionalId(b.previewId) ? undefined : 'previewId must be an id';
    },
  },
  cancelPreview: {
    fields: ['previewId'],
    check: (b) => (isEntryId(b.previewId) ? undefined : 'previewId must be an id'),
  },
  compactPreview: {
    fields: ['focus'],
    check: (b) => (optionalText(b.focus, LIMITS.focus) ? undefined : 'focus must be a string'),
  },
  compactCommit: {
    fields: ['previewId', 'summary'],
    check: (b) => {
      if (!isEntryId(b.previewId)) return 'previewId must be an id';
      return isText(b.summary, LIMITS.summary) && b.summary.trim() ? undefined : 'summary must be a non-empty string';
    },
  },
  fork: { fields: ['id'], check: entryId },
  clone: { fields: ['id'], check: entryId },
  setLabel: {
    fields: ['id', 'label'],
    check: (b) => entryId(b) ?? (optionalText(b.label, LIMITS.label) ? undefined : 'label must be a string'),
  },
  rename: { fields: ['name'], check: (b) => (isText(b.name, LIMITS.name) ? undefined : 'name must be a string') },
  copyText: { fields: ['id'], check: entryId },
  continueInPi: {
    fields: ['id', 'text'],
    check: (b) => {
      if (!optionalId(b.id)) return 'id must be an entry id';
      return optionalText(b.text, LIMITS.text) ? undefined : 'text must be a string';
    },
  },
  setupSummaryModel: { fields: [], check: () => undefined },
  getChanges: { fields: ['id'], check: entryId },
  openChange: {
    fields: ['id', 'index'],
    check: (b) => {
      if (!isEntryId(b.id)) return 'id must be an entry id';
      const ok = typeof b.index === 'number' && Number.isSafeInteger(b.index) && b.index >= 0 && b.index <= 10_000;
      return ok ? undefined : 'index must be a small non-negative integer';
    },
  },
  branchFiles: { fields: ['id'], check: entryId },
  compare: {
    fields: ['id', 'other'],
    check: (b) => entryId(b) ?? (idOrNull(b.other) ? undefined : 'other must be an entry id or null'),
  },
  exportBranch: {
    fields: ['id', 'to'],
    check: (b) =>
      entryId(b) ?? (b.to === 'editor' || b.to === 'clipboard' ? undefined : 'to must be "editor" or "clipboard"'),
  },
  setHidden: {
    fields: ['id', 'hidden'],
    check: (b) => entryId(b) ?? (typeof b.hidden === 'boolean' ? undefined : 'hidden must be a boolean'),
  },
  openLink: { fields: ['token'], check: (b) => (isEntryId(b.token) ? undefined : 'token must be an id') },
  codeState: { fields: ['id'], check: entryId },
  openCodeDiff: {
    fields: ['id', 'other'],
    check: (b) => entryId(b) ?? (optionalId(b.other) ? undefined : 'other must be an entry id'),
  },
  restoreCode: { fields: ['id'], check: entryId },
  undoRestore: {
    fields: ['redo'],
    check: (b) => (b.redo === undefined || typeof b.redo === 'boolean' ? undefined : 'redo must be a boolean'),
  },
  askFrom: {
    fields: ['id', 'prompt', 'model'],
    check: (b) => {
      if (!isEntryId(b.id)) return 'id must be an entry id';
      if (!isText(b.prompt, LIMITS.prompt) || !b.prompt.trim())
        return `prompt must be a non-empty string of at most ${LIMITS.prompt} characters`;
      return b.model === undefined ? undefined : modelError(b.model);
    },
  },
  cancelAsk: { fields: [], check: () => undefined },
  listModels: { fields: [], check: () => undefined },
  tryVariants: {
    fields: ['id', 'prompt'],
    check: (b) =>
      entryId(b) ??
      (optionalText(b.prompt, LIMITS.prompt)
        ? undefined
        : `prompt must be a string of at most ${LIMITS.prompt} characters`),
  },
};

/** Validates the shape of a request body; entry existence is checked by the host against the index. */
export function validateBody(b: unknown): Validated<RequestBody> {
  if (!isRecord(b) || typeof b.kind !== 'string') return { ok: false, reason: 'body is not an object with a kind' };
  // Own properties only: a kind such as "__proto__" or "toString" is unknown, not inherited.
  const rule = Object.prototype.hasOwnProperty.call(RULES, b.kind) ? RULES[b.kind as RequestKind] : undefined;
  const reason = rule ? (extraKey(b, ['kind', ...rule.fields]) ?? rule.check(b)) : 'unknown request kind';
  if (reason !== undefined) return { ok: false, reason: `${b.kind}: ${reason}` };
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
