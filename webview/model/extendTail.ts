// The incremental pass for what pi does all day: entries appended under the current leaf, the leaf moved
// to the last of them. When the drawing keeps its shape (the old leaf and the new entries join the
// segment above, or drop out of view as text-less tool calls do once they are no longer the leaf), the
// new leaf's item takes the old leaf's place, slot and row: no derive, no layout, work independent of the
// session's size. Anything else (a new branch point, a label, a new run, a fold, find hits, filters)
// returns false and the caller does a full pass. The result equals a full pass (test/webview/extendTail).
import { passesFilter } from '../../src/shared/treeFilter';
import { isKeptKind, newItem, type DeriveInput, type Derived, type Item } from './derive';
import type { Layout } from './layout';

/** What `derived` was made from, and what the model was then. */
export interface TailInput extends DeriveInput {
  /** The model's leaf and size when `derived` was made. */
  oldLeaf: number;
  oldSize: number;
}

/** The item that left, the one that took its place, and the segment that grew (if one did). */
export interface TailChange {
  removed: Item;
  added: Item;
  grown: Item | undefined;
}

/** Applies the append to `d` and `layout` in place; false (nothing changed) when a full pass is needed. */
export function extendTail(input: TailInput, d: Derived, layout: Layout): TailChange | false {
  const { model, mode, oldLeaf: L, oldSize } = input;
  const n = model.size;
  const nodes = model.nodes;
  const leaf = model.leaf;
  if (L < 0 || n <= oldSize || leaf !== n - 1) return false;
  const itL = d.itemOf[L];
  if (!itL || itL.seg || itL.entry !== L || itL.children || itL.folded || !itL.parent) return false;
  // The new entries form one chain below the old leaf, nothing else changed shape.
  if (model.childCount(L) !== 1 || model.parent[oldSize] !== L) return false;
  for (let j = oldSize; j < n; j++) {
    if (j > oldSize && model.parent[j] !== j - 1) return false;
    if (model.childCount(j) !== (j === n - 1 ? 0 : 1)) return false;
  }
  for (let j = oldSize - 1; j < n; j++) {
    const id = j === oldSize - 1 ? nodes[L].id : nodes[j].id;
    if (input.folded.has(id) || input.expanded.has(id)) return false;
  }
  const forced = input.forced;
  const hidden = input.hidden;
  const shows = (i: number) => !(hidden && hidden[i]) && passesFilter(nodes[i], mode, i === leaf);
  if (!shows(leaf)) return false;
  // Visible entries below the old leaf's visible parent, in order; all but the new leaf must join a run.
  const P = d.vparent[L];
  const joining: number[] = [];
  const visL = shows(L);
  const consider = (i: number): boolean => {
    if (i === leaf) return true;
    if (!shows(i)) return true;
    if (P < 0 && joining.length === 0) return false; // a root is kept
    if (nodes[i].label !== undefined || isKeptKind(nodes[i], input.checkpoints) || (forced && forced[i])) return false;
    joining.push(i);
    return true;
  };
  if (!consider(L)) return false;
  for (let j = oldSize; j < n; j++) if (!consider(j)) return false;
  const parentItem = itL.parent;
  if (joining.length) {
    // They extend the segment that ends at P (a kept P, or P alone in its run, would change the shape).
    if (!parentItem.seg || parentItem.members![parentItem.members!.length - 1] !== P) return false;
  }

  // Apply: the new leaf's item in the old leaf's place.
  const added = inPlaceOf(itL, nodes[leaf].id, leaf);
  const siblings = parentItem.children!;
  siblings[siblings.indexOf(itL)] = added;
  if (joining.length) for (const m of joining) parentItem.members!.push(m);
  d.items[d.items.lastIndexOf(itL)] = added;
  d.rows[itL.row] = added;
  const level = layout.levels[itL.depth];
  level[level.lastIndexOf(itL)] = added;

  d.visible = grown(d.visible, n, (b, len) => new Uint8Array(b, 0, len));
  d.vparent = grown(d.vparent, n, (b, len) => new Int32Array(b, 0, len));
  d.itemOf[L] = visL ? parentItem : undefined;
  d.visible[L] = visL ? 1 : 0;
  if (!visL) d.visibleCount--;
  let above = visL ? L : P;
  for (let j = oldSize; j < n; j++) {
    d.vparent[j] = above;
    if (!shows(j)) {
      d.visible[j] = 0;
      d.itemOf[j] = undefined;
      continue;
    }
    d.visible[j] = 1;
    d.visibleCount++;
    d.itemOf[j] = j === leaf ? added : parentItem;
    above = j;
  }
  return { removed: itL, added, grown: joining.length ? parentItem : undefined };
}

/** The new leaf's item (entry `entry`, id `id`) in the old leaf's place: its parent, slot and row. */
function inPlaceOf(old: Item, id: string, entry: number): Item {
  const added = newItem(id, false, entry, null);
  added.parent = old.parent;
  added.depth = old.depth;
  added.height = old.height;
  added.x = old.x;
  added.y = old.y;
  added.onPath = true;
  added.isLeaf = true;
  added.row = old.row;
  added.level = old.level;
  added.posinset = old.posinset;
  added.setsize = old.setsize;
  added.owner = old.owner;
  return added;
}

/** `a` with room for `n` entries: a longer view on a bigger buffer, so that appends rarely copy. */
function grown<T extends Uint8Array | Int32Array>(a: T, n: number, make: (buf: ArrayBuffer, len: number) => T): T {
  if (a.length >= n) return a;
  const bytes = n * a.BYTES_PER_ELEMENT;
  if (a.buffer.byteLength >= bytes) return make(a.buffer as ArrayBuffer, n);
  const b = make(new ArrayBuffer(Math.ceil(n * 1.25) * a.BYTES_PER_ELEMENT), n);
  b.set(a);
  return b;
}
