// Branches the user marked hidden (pi-tree's own mark, kept by the host outside the session file): the
// marked entries and everything below them leave the default view. A mark on the current path has no
// effect (the path is always shown).
import type { TreeModel } from './treeModel';

/** 1 for every entry a hidden mark hides; undefined when nothing is hidden. */
export function hiddenMask(model: TreeModel, hidden: ReadonlySet<string>): Uint8Array | undefined {
  if (!hidden.size) return undefined;
  const path = model.pathMask();
  const mask = new Uint8Array(model.size);
  let any = false;
  for (const id of hidden) {
    const i = model.index.get(id);
    if (i === undefined || path[i] || mask[i]) continue;
    for (const j of model.preorder(i)) mask[j] = 1;
    any = true;
  }
  return any ? mask : undefined;
}

/** The marked entries that hide something now (on the current path they do not). */
export function effectiveHidden(model: TreeModel, hidden: ReadonlySet<string>): string[] {
  if (!hidden.size) return []; // the path mask costs a walk of the whole path: not after every append
  const path = model.pathMask();
  return [...hidden].filter((id) => {
    const i = model.index.get(id);
    return i !== undefined && !path[i];
  });
}
