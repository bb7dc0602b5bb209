// Folding beyond branch points: fold or unfold the subtree under any node, fold every branch off the
// current path (each becomes one node with its hidden count), unfold all. Folds are the tree's own
// (TreeView.folded, kept in the UI state); pi clears them when the filter changes, and so do we.
import type { Item } from '../model/derive';
import type { TreeModel } from '../model/treeModel';
import type { TreeView } from './treeView';

/** The entry to fold so that what is below `it` goes: a segment keeps its run and hides what follows. */
function foldEntry(it: Item): number {
  return it.seg ? it.members![it.members!.length - 1] : it.entry;
}

/** Folds (or unfolds) the subtree below the selected item. Returns what happened, for announcing. */
export function toggleFold(tree: TreeView, model: TreeModel, it: Item | undefined): string {
  if (!it) return 'Nothing selected';
  const id = model.nodes[foldEntry(it)].id;
  if (it.folded || tree.folded.has(id)) {
    tree.folded.delete(id);
    tree.folded.delete(model.nodes[it.entry].id);
    tree.refresh();
    return 'Unfolded';
  }
  if (!it.children?.length) return 'Nothing below this node to fold';
  tree.folded.add(id);
  tree.refresh();
  return 'Folded';
}

/** Folds the first node of every branch that leaves the current path (and of roots off it). */
export function foldOffPath(tree: TreeView, model: TreeModel): string {
  const d = tree.derived;
  if (!d) return 'Nothing to fold';
  let n = 0;
  const fold = (c: Item) => {
    if (c.onPath) return;
    // A single entry has nothing to fold; a run folds after its first entry, a node under itself.
    if (!c.children?.length && !(c.seg && c.members!.length > 1)) return;
    const id = model.nodes[c.entry].id;
    if (tree.folded.has(id)) return;
    tree.folded.add(id);
    n++;
  };
  for (const c of d.root.children ?? []) fold(c);
  for (const it of d.items) if (it.onPath) for (const c of it.children ?? []) fold(c);
  if (!n) return 'Every branch off the current path is folded already';
  tree.refresh();
  return `Folded ${n} ${n === 1 ? 'branch' : 'branches'} off the current path`;
}

export function unfoldAll(tree: TreeView): string {
  const n = tree.folded.size;
  tree.folded.clear();
  tree.refresh();
  return n ? `Unfolded ${n} ${n === 1 ? 'node' : 'nodes'}` : 'Nothing is folded';
}
