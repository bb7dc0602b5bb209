// The keymap registry: every keyboard command with its bindings, in one table. Dispatch and the `?`
// shortcut sheet are both generated from it, so they cannot drift. Bindings name physical keys
// (`event.code`) where the position matters (letters, brackets, digits), and `event.key` for symbols
// that are typed by meaning (`?`).

export type CommandId =
  | 'nav.prevRow'
  | 'nav.nextRow'
  | 'nav.firstRow'
  | 'nav.lastRow'
  | 'nav.pageUp'
  | 'nav.pageDown'
  | 'nav.collapseOrParent'
  | 'nav.expandOrChild'
  | 'nav.parent'
  | 'nav.child'
  | 'nav.prevSibling'
  | 'nav.nextSibling'
  | 'nav.nextBranch'
  | 'nav.prevBranch'
  | 'nav.nextLabel'
  | 'nav.prevLabel'
  | 'nav.leaf'
  | 'nav.back'
  | 'nav.forward'
  | 'view.toggle'
  | 'view.fit'
  | 'view.overview'
  | 'view.layout'
  | 'view.hover'
  | 'view.zoomIn'
  | 'view.zoomOut'
  | 'view.panUp'
  | 'view.panDown'
  | 'view.panLeft'
  | 'view.panRight'
  | 'view.details'
  | 'view.outline'
  | 'filter.next'
  | 'filter.prev'
  | 'find.open'
  | 'find.next'
  | 'find.prev'
  | 'act.move'
  | 'act.moveSummary'
  | 'act.fork'
  | 'act.clone'
  | 'act.label'
  | 'act.clearLabel'
  | 'act.copy'
  | 'act.continue'
  | 'act.context'
  | 'act.ask'
  | 'act.variants'
  | 'act.menu'
  | 'act.rename'
  | 'act.compare'
  | 'act.compareLeaf'
  | 'act.branchFiles'
  | 'act.export'
  | 'act.hide'
  | 'view.showHidden'
  | 'view.fold'
  | 'view.foldOffPath'
  | 'view.unfoldAll'
  | 'help'
  | 'escape';

export interface Binding {
  /** `KeyboardEvent.code` (physical key). */
  code?: string;
  /** `KeyboardEvent.key` (typed character), used when code is absent. */
  key?: string;
  shift?: boolean;
  alt?: boolean;
  /** Ctrl on Windows/Linux, Cmd on macOS. */
  mod?: boolean;
}

/** `tree`: only while the tree or graph has focus (not in a text field); `global`: anywhere. */
export type Scope = 'tree' | 'global';
/** Where a key event happens: `field` is a text field, where typed characters belong to the field. */
export type KeyContext = Scope | 'field';

export interface Command {
  id: CommandId;
  title: string;
  group: 'Move around' | 'View' | 'Find and filter' | 'Actions' | 'Help';
  scope: Scope;
  bindings: Binding[];
}

const c = (
  id: CommandId,
  group: Command['group'],
  title: string,
  bindings: Binding[],
  scope: Scope = 'tree',
): Command => ({ id, title, group, scope, bindings });

export const KEYMAP: readonly Command[] = [
  c('nav.prevRow', 'Move around', 'Previous row', [{ code: 'ArrowUp' }, { code: 'KeyK' }]),
  c('nav.nextRow', 'Move around', 'Next row', [{ code: 'ArrowDown' }, { code: 'KeyJ' }]),
  c('nav.firstRow', 'Move around', 'First row', [{ code: 'Home' }]),
  c('nav.lastRow', 'Move around', 'Last row', [{ code: 'End' }]),
  c('nav.pageUp', 'Move around', 'Page up', [{ code: 'PageUp' }]),
  c('nav.pageDown', 'Move around', 'Page down', [{ code: 'PageDown' }]),
  c('nav.collapseOrParent', 'Move around', 'Collapse, or go to the owning branch point', [{ code: 'ArrowLeft' }]),
  c('nav.expandOrChild', 'Move around', 'Expand, or go to the first child', [{ code: 'ArrowRight' }]),
  c('nav.parent', 'Move around', 'Parent entry', [{ code: 'ArrowUp', alt: true }]),
  c('nav.child', 'Move around', 'Child entry (towards the current leaf first)', [{ code: 'ArrowDown', alt: true }]),
  c('nav.prevSibling', 'Move around', 'Previous sibling', [{ code: 'BracketLeft' }]),
  c('nav.nextSibling', 'Move around', 'Next sibling', [{ code: 'BracketRight' }]),
  c('nav.nextBranch', 'Move around', 'Next branch point', [{ code: 'KeyB' }]),
  c('nav.prevBranch', 'Move around', 'Previous branch point', [{ code: 'KeyB', shift: true }]),
  c('nav.nextLabel', 'Move around', 'Next labelled entry', [{ code: 'KeyG' }]),
  c('nav.prevLabel', 'Move around', 'Previous labelled entry', [{ code: 'KeyG', shift: true }]),
  c('nav.leaf', 'Move around', 'Current leaf (select and centre)', [{ code: 'Period' }]),
  c('nav.back', 'Move around', 'Back to the previously visited entry', [{ code: 'ArrowLeft', alt: true }]),
  c('nav.forward', 'Move around', 'Forward', [{ code: 'ArrowRight', alt: true }]),
  c('view.toggle', 'View', 'Expand or collapse the selected segment or branch', [{ code: 'Space' }]),
  c('view.fit', 'View', 'Fit: the whole tree, or the selection and its branches when the tree is too big to read', [
    { code: 'Digit0' },
    { code: 'Numpad0' },
  ]),
  c('view.overview', 'View', 'The whole tree, however small', [{ code: 'Digit0', shift: true }]),
  c('view.layout', 'View', 'Switch between the graph and rows (one row per entry)', [{ code: 'KeyV' }]),
  c('view.hover', 'View', 'Card of the selected entry: whole text, time, model, tokens (again: focus it)', [
    { code: 'KeyI' },
  ]),
  c('view.zoomIn', 'View', 'Zoom in', [{ code: 'Equal' }, { code: 'Equal', shift: true }, { code: 'NumpadAdd' }]),
  c('view.zoomOut', 'View', 'Zoom out', [{ code: 'Minus' }, { code: 'NumpadSubtract' }]),
  c('view.panUp', 'View', 'Pan up', [{ code: 'ArrowUp', shift: true }]),
  c('view.panDown', 'View', 'Pan down', [{ code: 'ArrowDown', shift: true }]),
  c('view.panLeft', 'View', 'Pan left', [{ code: 'ArrowLeft', shift: true }]),
  c('view.panRight', 'View', 'Pan right', [{ code: 'ArrowRight', shift: true }]),
  c('view.details', 'View', 'Show or hide the details pane', [{ code: 'KeyD' }]),
  c('view.outline', 'View', 'Show or hide the outline list', [{ code: 'KeyO', alt: true }]),
  c('view.fold', 'View', 'Fold or unfold everything below the selected node', [{ code: 'KeyZ' }]),
  c('view.foldOffPath', 'View', 'Fold every branch off the current path', [{ code: 'KeyZ', shift: true }]),
  c('view.unfoldAll', 'View', 'Unfold everything', [{ code: 'KeyZ', alt: true }]),
  c('view.showHidden', 'View', 'Show or hide the branches marked hidden', [{ code: 'KeyH', shift: true }]),
  c('filter.next', 'Find and filter', 'Next filter (default → no tools → user → labelled → all)', [{ code: 'KeyO' }]),
  c('filter.prev', 'Find and filter', 'Previous filter', [{ code: 'KeyO', shift: true }]),
  c(
    'find.open',
    'Find and filter',
    'Find (role: tool: label: file: model: re:)',
    [{ code: 'KeyF', mod: true }, { code: 'Slash' }],
    'global',
  ),
  c('find.next', 'Find and filter', 'Next match', [{ code: 'F3' }], 'global'),
  c('find.prev', 'Find and filter', 'Previous match', [{ code: 'F3', shift: true }], 'global'),
  c('act.move', 'Actions', 'Move the leaf here (on a segment: expand it)', [
    { code: 'Enter' },
    { code: 'NumpadEnter' },
  ]),
  c('act.moveSummary', 'Actions', 'Move here with a branch summary…', [{ code: 'Enter', shift: true }]),
  c('act.fork', 'Actions', 'Fork a new session from this user message', [{ code: 'KeyF' }]),
  c('act.clone', 'Actions', 'Clone the session up to here', [{ code: 'KeyF', shift: true }]),
  c('act.label', 'Actions', 'Edit label', [{ code: 'F2' }, { code: 'KeyL', shift: true }]),
  c('act.clearLabel', 'Actions', 'Clear label', [{ code: 'Delete', shift: true }]),
  c('act.copy', 'Actions', 'Copy the entry text', [
    { code: 'KeyC', mod: true },
    { code: 'KeyX', mod: true },
  ]),
  c('act.continue', 'Actions', 'Continue in pi from here', [{ code: 'KeyP' }]),
  c('act.context', 'Actions', 'Context at this entry (what the model would see)', [{ code: 'KeyX' }]),
  c('act.ask', 'Actions', 'Ask pi from here: write a prompt in the details pane (Enter asks)', [{ code: 'KeyA' }]),
  c('act.variants', 'Actions', 'Try variants from here: one prompt, several pis side by side', [
    { code: 'KeyV', shift: true },
  ]),
  c('act.menu', 'Actions', 'Context menu', [{ code: 'F10', shift: true }, { code: 'ContextMenu' }]),
  c('act.rename', 'Actions', 'Rename the session', [{ code: 'F2', shift: true }]),
  c('act.compare', 'Actions', 'Compare with… (mark this entry, then press C on the other)', [{ code: 'KeyC' }]),
  c('act.compareLeaf', 'Actions', 'Compare with the current leaf', [{ code: 'KeyC', shift: true }]),
  c('act.branchFiles', 'Actions', 'Files changed on the branch from the root to here', [{ code: 'KeyE' }]),
  c('act.export', 'Actions', 'Export the branch from the root to here as Markdown', [{ code: 'KeyE', shift: true }]),
  c('act.hide', 'Actions', 'Hide this dead-end branch (or show it again); nothing is deleted', [{ code: 'KeyH' }]),
  c('help', 'Help', 'Keyboard shortcuts', [{ key: '?' }, { code: 'Slash', shift: true }]),
  c('escape', 'Help', 'Close the open sheet or dialog; clear find', [{ code: 'Escape' }], 'global'),
];

export interface KeyLike {
  code: string;
  key: string;
  shiftKey: boolean;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
}

export function bindingMatches(b: Binding, e: KeyLike, mac = false): boolean {
  const mod = mac ? e.metaKey : e.ctrlKey;
  const otherMod = mac ? e.ctrlKey : e.metaKey;
  if (otherMod) return false;
  if (!!b.mod !== mod || !!b.alt !== e.altKey) return false;
  if (b.code !== undefined) return b.code === e.code && !!b.shift === e.shiftKey;
  // By typed character: the layout decides which Shift state produces it.
  return b.key === e.key;
}

/** A key that types a character into a text field (a letter, `/`, `?`, AltGr symbols): no Ctrl or Cmd. */
export function typesCharacter(e: KeyLike): boolean {
  return e.key.length === 1 && !e.ctrlKey && !e.metaKey;
}

/**
 * Ctrl/Cmd+A, +Z, +Y and +Shift+Z: select all, undo and redo, which a text field does itself. (VS Code's
 * webview frame would send them to the workbench, which runs them on the webview a few tasks later.)
 */
export function isFieldEditingKey(e: KeyLike, mac = false): boolean {
  const mod = mac ? e.metaKey : e.ctrlKey;
  if (!mod || e.altKey || (mac ? e.ctrlKey : e.metaKey)) return false;
  // By the typed letter, as VS Code matches them (Ctrl+A is where the layout has its A).
  const k = e.key.toLowerCase();
  return k === 'a' || k === 'z' || (k === 'y' && !e.shiftKey);
}

/**
 * The command for a key event where it happens (`tree` also allows `global` commands). In a text field
 * only global commands apply, and never to a key that types a character: `/` in the find box is a
 * slash, not "open find".
 */
export function resolveKey(
  e: KeyLike,
  where: KeyContext,
  mac = false,
  keymap: readonly Command[] = KEYMAP,
): Command | undefined {
  if (where === 'field' && typesCharacter(e)) return undefined;
  const scope: Scope = where === 'field' ? 'global' : where;
  // Bindings by typed character first: `?` must win over the physical key it shares with `/`.
  for (const byKey of [true, false]) {
    for (const cmd of keymap) {
      if (scope === 'global' && cmd.scope !== 'global') continue;
      if (cmd.bindings.some((b) => (b.code === undefined) === byKey && bindingMatches(b, e, mac))) return cmd;
    }
  }
  return undefined;
}

const KEY_NAMES: Record<string, string> = {
  ArrowUp: '↑',
  ArrowDown: '↓',
  ArrowLeft: '←',
  ArrowRight: '→',
  BracketLeft: '[',
  BracketRight: ']',
  Period: '.',
  Slash: '/',
  Equal: '=',
  Minus: '-',
  NumpadAdd: 'Num +',
  NumpadSubtract: 'Num -',
  NumpadEnter: 'Num Enter',
  Numpad0: 'Num 0',
  // A keycap "0" next to the letter "O" (filter keys) reads alike in many fonts: say which it is.
  Digit0: '0 (zero)',
  ContextMenu: 'Menu',
  PageUp: 'Page Up',
  PageDown: 'Page Down',
};

export function formatBinding(b: Binding, mac = false): string {
  const parts: string[] = [];
  if (b.mod) parts.push(mac ? '⌘' : 'Ctrl');
  if (b.alt) parts.push(mac ? '⌥' : 'Alt');
  if (b.shift) parts.push('Shift');
  let name = b.key ?? b.code ?? '';
  if (b.code) name = KEY_NAMES[b.code] ?? b.code.replace(/^Key|^Digit/, '');
  parts.push(name);
  return parts.join('+');
}

export interface SheetGroup {
  group: string;
  rows: { id: CommandId; keys: string[]; title: string }[];
}

/** The `?` sheet, generated from the registry. */
export function shortcutSheet(mac = false, keymap: readonly Command[] = KEYMAP): SheetGroup[] {
  const groups: SheetGroup[] = [];
  for (const cmd of keymap) {
    let g = groups.find((x) => x.group === cmd.group);
    if (!g) groups.push((g = { group: cmd.group, rows: [] }));
    g.rows.push({ id: cmd.id, keys: cmd.bindings.map((b) => formatBinding(b, mac)), title: cmd.title });
  }
  return groups;
}

/** @internal Bindings that two commands share in overlapping scopes (must be empty; the tests check it). */
export function conflicts(keymap: readonly Command[] = KEYMAP): string[] {
  const seen = new Map<string, CommandId>();
  const out: string[] = [];
  for (const cmd of keymap) {
    for (const b of cmd.bindings) {
      const k = `${b.code ?? 'key:' + b.key}|${!!b.shift}|${!!b.alt}|${!!b.mod}`;
      const prev = seen.get(k);
      if (prev) out.push(`${formatBinding(b)}: ${prev} and ${cmd.id}`);
      else seen.set(k, cmd.id);
    }
  }
  return out;
}
