// Lanes of the row layout (like git-graph's graph column): one row per item in pi's /tree order, each
// item in a lane; the first child to come next continues its parent's lane, every other child gets a
// lane of its own from its parent's row down to its own, and a lane is free again once its branch
// ends. Pure and linear in rows × open lanes (pi sessions keep few lanes open).
import type { Item } from './derive';

export interface RowLanes {
  /** The item's lane (0 = leftmost). */
  lane: number;
  /** A line comes into the item from above (it has a parent). */
  up: boolean;
  /** A line leaves the item downwards in its own lane (its first child is the next row of that lane). */
  down: boolean;
  /** Lanes of other branches passing through this row, and which of them are on the current path. */
  pass: number[];
  passOnPath: number[];
  /** Lanes the item's other children start in (a curve from the item into each). */
  forks: number[];
}

export interface Lanes {
  rows: RowLanes[];
  /** Lanes in use at once, at most (the width of the lane column). */
  width: number;
}

export function computeLanes(rows: readonly Item[]): Lanes {
  const open: (Item | null)[] = [];
  const out: RowLanes[] = new Array(rows.length);
  let width = 0;
  const free = (): number => {
    const k = open.indexOf(null);
    return k >= 0 ? k : open.length;
  };
  for (let r = 0; r < rows.length; r++) {
    const it = rows[r];
    let lane = open.indexOf(it);
    const up = lane >= 0;
    if (!up) lane = free();
    open[lane] = null;
    const pass: number[] = [];
    const passOnPath: number[] = [];
    for (let k = 0; k < open.length; k++) {
      const next = open[k];
      if (!next) continue;
      pass.push(k);
      if (next.onPath && next.parent?.onPath) passOnPath.push(k);
    }
    // Children in the order their rows come (the one on the current path first).
    const kids = it.children ? [...it.children].sort((a, b) => a.row - b.row) : [];
    const forks: number[] = [];
    if (kids.length) {
      open[lane] = kids[0];
      for (let c = 1; c < kids.length; c++) {
        const k = free();
        open[k] = kids[c];
        forks.push(k);
      }
    }
    width = Math.max(width, open.length, lane + 1);
    out[r] = { lane, up, down: kids.length > 0, pass, passOnPath, forks };
  }
  return { rows: out, width };
}
