// VS Code's native webview context menu: the data-vscode-context a node or row carries (what the
// package.json menus match on), and opening the menu for the selection from the keyboard.
import type { NodeView } from '../../src/protocol';
import type { Item } from '../model/derive';

/** `panel`: this tree's token, so a menu command goes to the tree it was opened in (not the one in front). */
export function vscodeContext(it: Item, nodes: readonly NodeView[], panel?: string): string {
  if (it.seg)
    return JSON.stringify({
      webviewSection: 'segment',
      preventDefaultContextMenuItems: true,
      ...(panel ? { panel } : {}),
    });
  const n = nodes[it.entry];
  // A family link is no entry: the node menu's commands do not apply to it.
  if (n.kind === 'link') return JSON.stringify({ webviewSection: 'link', preventDefaultContextMenuItems: true });
  return JSON.stringify({
    webviewSection: 'node',
    ...(panel ? { panel } : {}),
    entryId: n.id,
    entryRole: n.role ?? n.kind,
    entryKind: n.kind,
    labelled: n.label !== undefined,
    isLeaf: it.isLeaf,
    preventDefaultContextMenuItems: true,
  });
}

/**
 * Shift+F10 / the Menu key: VS Code opens the native menu for a contextmenu event on the element, so one
 * is dispatched on the item's node when it is in view, else on its outline row.
 */
export function openContextMenu(
  it: Item,
  graph: { el: HTMLElement; elementOf(it: Item): Element | undefined },
  outline: { elementOf(it: Item): Element | undefined },
): void {
  let el: Element | undefined = graph.elementOf(it);
  let r = el?.getBoundingClientRect();
  const g = graph.el.getBoundingClientRect();
  if (!el || !r || r.bottom < g.top || r.top > g.bottom || r.right < g.left || r.left > g.right) {
    el = outline.elementOf(it);
    r = el?.getBoundingClientRect();
  }
  if (!el || !r) return;
  el.dispatchEvent(
    new MouseEvent('contextmenu', {
      bubbles: true,
      cancelable: true,
      view: window,
      button: 2,
      clientX: Math.round(r.left + Math.min(24, r.width / 2)),
      clientY: Math.round(r.top + r.height / 2),
    }),
  );
}
