// The compare view's messages (a second webview panel on the same bundle, opened with data-view="compare"),
// with runtime validation of what it sends. As in the tree: the webview names sides and entry ids, never a
// path; the host checks each id against the side's path before reading anything.
import { isCount, isEntryId, knownKind, validatePanelMessage, type Reply, type Validated } from './shared/messaging';

/** One entry of a turn, as one line. */
export interface CompareItem {
  id: string;
  type: string;
  role?: string;
  text: string;
  /** Tool calls of an assistant message, as pi's /tree writes them (`[edit: src/a.ts]`). */
  calls?: string[];
  error?: boolean;
}

export interface CompareTurn {
  /** Index of the turn on its side. */
  index: number;
  userId?: string;
  /** The user message that opens the turn (one line), if it opens with one. */
  user?: string;
  /** The turn's entries as lines (bookkeeping such as labels left out). */
  items: CompareItem[];
  /** Entries in the turn. */
  entries: number;
  /** Entries past the ones listed (a very long turn). */
  more: number;
  startTime: number;
  endTime: number;
}

export interface CompareRow {
  index: number;
  a?: CompareTurn;
  b?: CompareTurn;
}

export interface CompareTotals {
  entries: number;
  messages: number;
  turns: number;
  userMessages: number;
  assistantMessages: number;
  toolCalls: number;
  toolResults: number;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  cost: number;
  models: { provider: string; model: string; messages: number }[];
  /** From the ancestor's time (else the side's first entry) to the side's last entry, in ms. */
  wallMs: number;
}

export interface CompareSideInfo {
  /** Session title (name, else first message) and file name. */
  title: string;
  fileName: string;
  /** The compared node and its one-line text. */
  nodeId: string;
  nodeText: string;
  /** Entries after the common ancestor. */
  entries: number;
}

export interface CompareView {
  ancestor: { id: string | null; text: string; time: number; common: number };
  a: CompareSideInfo;
  b: CompareSideInfo;
  /** Aligned rows in all (fetched a page at a time). */
  rows: number;
}

export type CompareSide = 'a' | 'b';

export type CompareHostMessage =
  /** The comparison and its first page of rows. */
  | { type: 'compareView'; view: CompareView; rows: CompareRow[] }
  /** A side's totals and touched files, once summed (they come after the first screen). */
  | { type: 'compareSide'; side: CompareSide; totals: CompareTotals; files: string[]; exact?: boolean }
  | Reply;

export type CompareRequest =
  /** More aligned rows. */
  | { kind: 'rows'; from: number; count: number }
  /** The full text of one entry of a side (an item expanded). */
  | { kind: 'entryText'; side: CompareSide; id: string }
  /** VS Code's diff editor on row `row`'s two turns, as Markdown. */
  | { kind: 'diffRow'; row: number }
  /** VS Code's diff editor on both whole sides, as Markdown. */
  | { kind: 'diffSides' }
  /** The code at both nodes in the multi-file diff editor (checkpoints, or what the record tells). */
  | { kind: 'codeDiff' }
  /** Shows an entry of a side in its session's tree. */
  | { kind: 'reveal'; side: CompareSide; id: string };

export interface CompareReplies {
  rows: CompareRow[];
  entryText: { text: string; truncated: boolean };
  diffRow: Record<string, never>;
  diffSides: Record<string, never>;
  codeDiff: Record<string, never>;
  reveal: Record<string, never>;
}

export type CompareWebviewMessage = { type: 'ready' } | { type: 'request'; seq: number; body: CompareRequest };

const side = (v: unknown): v is CompareSide => v === 'a' || v === 'b';

const FIELDS: Record<CompareRequest['kind'], string[]> = {
  rows: ['from', 'count'],
  entryText: ['side', 'id'],
  diffRow: ['row'],
  diffSides: [],
  codeDiff: [],
  reveal: ['side', 'id'],
};

export function validateCompareMessage(m: unknown): Validated<CompareWebviewMessage> {
  return validatePanelMessage(m, validateCompareBody);
}

function validateCompareBody(body: unknown): Validated<CompareRequest> {
  const known = knownKind(body, FIELDS);
  if (!known.ok) return known;
  const { kind, body: b } = known.value;
  const bad = (why: string) => ({ ok: false as const, reason: `${kind}: ${why}` });
  switch (kind) {
    case 'rows':
      if (!isCount(b.from, 10_000_000) || !isCount(b.count, 500) || b.count === 0)
        return bad('from and count (1-500) must be integers');
      break;
    case 'entryText':
    case 'reveal':
      if (!side(b.side)) return bad('side must be "a" or "b"');
      if (!isEntryId(b.id)) return bad('id must be an entry id');
      break;
    case 'diffRow':
      if (!isCount(b.row, 10_000_000)) return bad('row must be a non-negative integer');
      break;
  }
  return { ok: true, value: b as unknown as CompareRequest };
}
