// pi's /tree filter modes (pi 1.6.0 tree-selector `applyFilter`), written once over the few facts they
// read, so the CLI (`pi-tree tree --filter`, src/core/treeView.ts) and the webview hide the same entries.
// Pure: no Node, no DOM; the webview may import it.

export type FilterMode = 'default' | 'no-tools' | 'user-only' | 'labeled-only' | 'all';
export const FILTER_MODES: readonly FilterMode[] = ['default', 'no-tools', 'user-only', 'labeled-only', 'all'];

/**
 * Bookkeeping entries hidden by pi's default view. `leaf` (pi-tree's jump record) and
 * `active_tools_change` (harness) are unknown to pi 1.6.0, which would show them as empty rows; they are
 * bookkeeping of the same sort as `label`, so pi-tree hides them with the rest.
 */
const SETTINGS_TYPES = new Set([
  'label',
  'context_edit',
  'custom',
  'model_change',
  'thinking_level_change',
  'session_info',
  'leaf',
  'active_tools_change',
]);

/** What the filter reads of an entry (a NodeView has these fields; the core derives them from the entry). */
export interface FilterFacts {
  /** Entry type as stored (`message`, `label`, …). */
  type: string;
  /** Message role, for `message` entries. */
  role?: string;
  /** An assistant message without visible text (tool calls only). */
  noText?: boolean;
  /** An assistant message that ended with an error or was aborted. */
  error?: boolean;
  label?: string;
}

export function isFilterMode(v: unknown): v is FilterMode {
  return typeof v === 'string' && (FILTER_MODES as readonly string[]).includes(v);
}

/** Whether pi's /tree would list this entry in `mode` (search and folds are applied elsewhere). */
export function passesFilter(n: FilterFacts, mode: FilterMode, isLeaf: boolean): boolean {
  // Always hidden, in every mode.
  if (n.type === 'usage') return false;
  // Text-less assistant messages (tool calls only) unless the current leaf or ended by error/abort.
  if (!isLeaf && n.type === 'message' && n.role === 'assistant' && n.noText && !n.error) return false;
  switch (mode) {
    case 'user-only':
      return n.type === 'message' && n.role === 'user';
    case 'no-tools':
      return !SETTINGS_TYPES.has(n.type) && !(n.type === 'message' && n.role === 'toolResult');
    case 'labeled-only':
      return n.label !== undefined;
    case 'all':
      return true;
    default:
      return !SETTINGS_TYPES.has(n.type);
  }
}

/** The next (or previous) mode in pi's cycling order. */
export function nextFilter(mode: FilterMode, step: 1 | -1): FilterMode {
  const i = FILTER_MODES.indexOf(mode);
  return FILTER_MODES[(i + step + FILTER_MODES.length) % FILTER_MODES.length];
}
