// Where keyboard navigation goes from the selected item (pure): structural moves (parent, the child
// towards the leaf, siblings, the owning branch point) and the next row that passes a test.
import type { Derived, Item } from '../model/derive';

export type StructuralMove =
  'nav.parent' | 'nav.child' | 'nav.prevSibling' | 'nav.nextSibling' | 'nav.collapseOrParent' | 'nav.expandOrChild';

export function isBranchPoint(it: Item): boolean {
  return !!it.children && it.children.length >= 2;
}

/** aria-expanded of an item: false for segments and folds, true for branch points and expanded runs. */
export function expandedState(it: Item): boolean | undefined {
  if (it.seg) return false;
  if (it.folded) return false;
  if (isBranchPoint(it)) return true;
  if (it.run && it.run.members[0] === it.entry) return true;
  return undefined;
}

export function structuralTarget(move: StructuralMove, it: Item, d: Derived): Item | undefined {
  switch (move) {
    case 'nav.parent':
      return it.parent && it.parent.depth > 0 ? it.parent : undefined;
    case 'nav.child': {
      const ch = it.children;
      return ch ? (ch.find((c) => c.onPath) ?? ch[0]) : undefined;
    }
    case 'nav.prevSibling':
    case 'nav.nextSibling': {
      const sib = it.parent?.children;
      if (!sib) return undefined;
      return sib[sib.indexOf(it) + (move === 'nav.nextSibling' ? 1 : -1)];
    }
    case 'nav.collapseOrParent':
      // APG: the owning item of this indentation run (the branch point above).
      for (let r = it.row - 1; r >= 0; r--) if (d.rows[r].level < it.level) return d.rows[r];
      return undefined;
    case 'nav.expandOrChild':
      return it.children?.[0] && it.children.length >= 2
        ? (it.children.find((c) => c.onPath) ?? it.children[0])
        : undefined;
  }
}

/** The first row after (dir 1) or before (-1) `from` that passes `pred`, wrapping around. */
export function seekRow(
  rows: readonly Item[],
  from: Item | undefined,
  pred: (it: Item) => boolean,
  dir: 1 | -1,
): Item | undefined {
  const n = rows.length;
  const start = from ? from.row : -1;
  for (let k = 1; k <= n; k++) {
    const r = rows[(((start + dir * k) % n) + n) % n];
    if (pred(r)) return r;
  }
  return undefined;
}
