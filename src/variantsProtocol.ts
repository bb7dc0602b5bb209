// The variants view's messages (a webview panel on the same bundle as the tree, opened with
// data-view="variants"), with runtime validation of what it sends. As in the tree and the compare view:
// the webview names a variant by its place in the run and a file by its place in that variant's list,
// never a path; the host looks both up in the run it holds before it opens or writes anything.
import { isCount, knownKind, validatePanelMessage, type Reply, type Validated } from './shared/messaging';

export type VariantCardPhase = 'queued' | 'preparing' | 'running' | 'checking' | 'done' | 'failed' | 'cancelled';

/** A file a variant changed, as the view lists it (its path relative to the working folder, as text). */
export interface VariantCardFile {
  name: string;
  status: 'created' | 'deleted' | 'changed';
  added: number;
  removed: number;
}

/** One variant as a column of the view. */
export interface VariantCard {
  index: number;
  /** "provider/id", or pi's default model. */
  model: string;
  phase: VariantCardPhase;
  /** The answer so far (as it streams), plain text. */
  answer: string;
  files: VariantCardFile[];
  tokens?: { input: number; output: number; total: number };
  cost?: number;
  ms?: number;
  check?: { exitCode: number | null; signal?: string; output: string; ms: number } | null;
  error?: string;
  /** Its session exists (Open session, Adopt and Discard are offered). */
  made: boolean;
  /** Its files were adopted into the working folder (Undo is offered). */
  adopted?: boolean;
  discarded?: boolean;
}

export interface VariantsInfo {
  prompt: string;
  /** The node the variants fork from, in one line. */
  node: string;
  /** The check command line, when there is one. */
  check?: string;
}

export type VariantsHostMessage =
  /** The run and every variant as it is now (the first message, and after the view was hidden). */
  | { type: 'variantsView'; info: VariantsInfo; variants: VariantCard[] }
  /** One variant changed (its phase, files, check…). */
  | { type: 'variant'; variant: VariantCard }
  /** More text of a variant's answer. */
  | { type: 'variantDelta'; index: number; delta: string }
  | Reply;

export type VariantsRequest =
  /** Cancels one variant's run (its pi aborts the turn). */
  | { kind: 'cancel'; index: number }
  /** Cancels every variant still running. */
  | { kind: 'cancelAll' }
  /** Opens the variant's session in its tree. */
  | { kind: 'openSession'; index: number }
  /** The variant's file `file` (its place in the card's list) against the working folder, in VS Code's diff editor. */
  | { kind: 'diffFile'; index: number; file: number }
  /** All the variant's files against the working folder, in the multi-file diff editor. */
  | { kind: 'diffAll'; index: number }
  /** Adopts the variant's files: previewed, conflicts decided by the user, written, Undo offered. */
  | { kind: 'adopt'; index: number }
  /** Puts back what the variant's last adopt wrote. */
  | { kind: 'undoAdopt'; index: number }
  /** Removes the variant's folder (asked first; its session stays). */
  | { kind: 'discard'; index: number };

type Empty = Record<string, never>;

export interface VariantsReplies {
  cancel: { cancelling: boolean };
  cancelAll: { cancelling: number };
  openSession: Empty;
  diffFile: Empty;
  diffAll: { files: number };
  adopt: { adopted: boolean };
  undoAdopt: { undone: boolean };
  discard: { discarded: boolean };
}

export type VariantsWebviewMessage = { type: 'ready' } | { type: 'request'; seq: number; body: VariantsRequest };

/** The most variants a run has (the flow's limit). */
export const MAX_VARIANTS = 16;
const MAX_FILES = 100_000;

const FIELDS: Record<VariantsRequest['kind'], string[]> = {
  cancel: ['index'],
  cancelAll: [],
  openSession: ['index'],
  diffFile: ['index', 'file'],
  diffAll: ['index'],
  adopt: ['index'],
  undoAdopt: ['index'],
  discard: ['index'],
};

export function validateVariantsMessage(m: unknown): Validated<VariantsWebviewMessage> {
  return validatePanelMessage(m, validateVariantsBody);
}

function validateVariantsBody(body: unknown): Validated<VariantsRequest> {
  const known = knownKind(body, FIELDS);
  if (!known.ok) return known;
  const { kind, body: b } = known.value;
  if (FIELDS[kind].includes('index') && !isCount(b.index, MAX_VARIANTS - 1))
    return { ok: false, reason: `${kind}: index must be a variant's place (0-${MAX_VARIANTS - 1})` };
  if (kind === 'diffFile' && !isCount(b.file, MAX_FILES))
    return { ok: false, reason: 'diffFile: file must be a non-negative integer' };
  return { ok: true, value: b as unknown as VariantsRequest };
}
