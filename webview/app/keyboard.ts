// Keyboard routing: Tab stays inside a modal dialog; other keys resolve through the keymap (app/keymap.ts)
// in the scope of where focus is (tree keys only on the tree or graph, global keys anywhere) and run
// their command.
import type { OverlayStack } from '../ui/overlays';
import { resolveKey, type CommandId } from './keymap';

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
    const inField = !!t?.closest?.('input, textarea, select, vscode-textfield, vscode-textarea, [contenteditable="true"]');
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
