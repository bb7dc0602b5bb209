// A leaf move that keeps the derived items only changes their path and leaf marks: set them, and say
// which items changed (only those are drawn again).
import type { Item } from './derive';

/** Sets each item's on-path (`path[entry] === 1`) and leaf marks; returns the keys of the items that changed. */
export function markPath(items: readonly Item[], path: Uint8Array, leaf: number): string[] {
  const changed: string[] = [];
  for (const x of items) {
    const onPath = path[x.entry] === 1;
    const isLeaf = !x.seg && x.entry === leaf;
    if (onPath === x.onPath && isLeaf === x.isLeaf) continue;
    x.onPath = onPath;
    x.isLeaf = isLeaf;
    changed.push(x.key);
  }
  return changed;
}
