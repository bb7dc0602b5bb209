// Keyboard routing: Tab stays inside a modal dialog; other keys resolve through the keymap (app/keymap.ts)
// in the scope of where focus is (tree keys only on the tree or graph, global keys anywhere) and run
// their command. Editing keys in a text field (select all, undo, redo) are left to the browser and kept
// from VS Code: its webview frame forwards every keydown to the workbench, whose Select All / Undo /
// Redo then come back as an `execCommand` some tasks later, after the keys typed meanwhile (Ctrl+A,
// Backspace and fast typing lost the first character: the late "select all" selected it and the next
// key replaced it).
import type { OverlayStack } from '../ui/overlays';
import { isFieldEditingKey, resolveKey, type CommandId } from './keymap';

export interface KeyboardHost {
  overlays: OverlayStack;
  /** The tree's keyboard stop (the outline list). */
  treeEl: HTMLElement;
  mac: boolean;
  run(id: CommandId): void;
}

export function bindKeyboard(doc: Document, host: KeyboardHost): void {
  doc.addEventListener('keydown', (ev) => {
    if (host.overlays.trapTab(ev)) return;
    const t = ev.target as Element | null;
    const top = host.overlays.top();
    const inField = !!t?.closest?.(
      'input, textarea, select, vscode-textfield, vscode-textarea, [contenteditable="true"]',
    );
    if (inField && isFieldEditingKey(ev, host.mac)) {
      // The browser's own editing runs now, in order with the typing; the workbench never sees the key.
      ev.stopPropagation();
      return;
    }
    const inOverlay = !!top && !!t && top.el.contains(t);
    const onTree = t === host.treeEl || t === doc.body || t === doc.documentElement || !!t?.closest?.('.graph');
    // Typed characters belong to the field they are typed in (`/`, `?` in a find query or a label).
    const where = inField ? 'field' : inOverlay || top || !onTree ? 'global' : 'tree';
    const cmd = resolveKey(ev, where, host.mac);
    if (!cmd) return;
    ev.preventDefault();
    ev.stopPropagation();
    host.run(cmd.id);
  });
}
