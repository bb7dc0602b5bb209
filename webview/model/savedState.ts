// UI state that survives hiding, reloading and restarting (acquireVsCodeApi().getState/setState): what
// the user is looking at and how, never session data. Versioned; unknown or broken state is dropped.
import type { TreeLayout } from '../../src/protocol';
import { isFilterMode, type FilterMode } from '../../src/shared/treeFilter';

export const STATE_VERSION = 1;
const MAX_IDS = 5000;

export interface ViewState {
  /** World point at the centre of the graph and the zoom factor. */
  cx: number;
  cy: number;
  k: number;
}

export interface SavedState {
  v: typeof STATE_VERSION;
  sessionId?: string;
  /** The host's opaque token (SessionMeta.restoreToken): its panel serializer reads it after a restart. */
  restoreToken?: string;
  /** Selected item key: an entry id, or `seg:<first entry id>`. */
  selected?: string;
  view?: ViewState;
  filter: FilterMode;
  query: string;
  expanded: string[];
  folded: string[];
  outline: boolean;
  details: boolean;
  /** The graph or rows; unset until the user picks one (the setting decides until then). */
  layout?: TreeLayout;
}

export function defaultState(): SavedState {
  return { v: STATE_VERSION, filter: 'default', query: '', expanded: [], folded: [], outline: true, details: true };
}

const ids = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.length <= 200).slice(-MAX_IDS) : [];
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Reads whatever getState() returned; anything unusable falls back to defaults field by field. */
export function restoreState(raw: unknown): SavedState {
  const s = defaultState();
  if (typeof raw !== 'object' || raw === null) return s;
  const r = raw as Record<string, unknown>;
  if (r.v !== STATE_VERSION) return s;
  if (typeof r.sessionId === 'string') s.sessionId = r.sessionId;
  if (typeof r.restoreToken === 'string') s.restoreToken = r.restoreToken;
  if (typeof r.selected === 'string') s.selected = r.selected;
  const v = r.view as Record<string, unknown> | undefined;
  if (v && num(v.cx) && num(v.cy) && num(v.k) && v.k > 0) s.view = { cx: v.cx, cy: v.cy, k: v.k };
  if (isFilterMode(r.filter)) s.filter = r.filter;
  if (typeof r.query === 'string') s.query = r.query.slice(0, 1000);
  s.expanded = ids(r.expanded);
  s.folded = ids(r.folded);
  if (typeof r.outline === 'boolean') s.outline = r.outline;
  if (typeof r.details === 'boolean') s.details = r.details;
  if (r.layout === 'graph' || r.layout === 'rows') s.layout = r.layout;
  return s;
}

export function capIds(set: Iterable<string>): string[] {
  const a = [...set];
  return a.length > MAX_IDS ? a.slice(-MAX_IDS) : a;
}
