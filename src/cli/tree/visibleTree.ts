// The tree pi's /tree draws: each visible entry's visible children (the children of a hidden entry go to
// its nearest visible ancestor), as linked lists in file order, and a node's children in pi's order, the
// one holding the current path first. Typed arrays over record numbers (no object per entry), built
// iteratively: sessions are deep.
import type { SessionIndex } from '../../core/index/sessionIndex.js';

export class VisibleTree {
  /** The virtual root: the parent of the top rows. */
  readonly root: number;
  /** What kidsOf found: kids[from…from + count). */
  readonly kids: Int32Array;
  from = 1;
  private readonly first: Int32Array;
  private readonly next: Int32Array;

  /** Over records 0…n-1 of `index` (its tree prepared); `visible` / `onPath`: 1 for the records shown / on the current path. */
  constructor(
    index: SessionIndex,
    n: number,
    visible: Uint8Array,
    private readonly onPath: Uint8Array,
  ) {
    this.root = n;
    const first = (this.first = new Int32Array(n + 1).fill(-1));
    const next = (this.next = new Int32Array(n).fill(-1));
    const last = new Int32Array(n + 1).fill(-1);
    const count = new Int32Array(n + 1);
    const stack: number[] = [];
    const under: number[] = [];
    const pushKids = (p: number, vis: number) => {
      const start = stack.length;
      for (let c = index.firstChildOf(p); c >= 0; c = index.nextSiblingOf(c)) {
        stack.push(c);
        under.push(vis);
      }
      // reversed, so that they come off the stack in order
      for (let a = start, b = stack.length - 1; a < b; a++, b--) {
        [stack[a], stack[b]] = [stack[b], stack[a]];
        [under[a], under[b]] = [under[b], under[a]];
      }
    };
    pushKids(-1, n);
    while (stack.length) {
      const i = stack.pop()!;
      let vis = under.pop()!;
      if (visible[i]) {
        if (last[vis] < 0) first[vis] = i;
        else next[last[vis]] = i;
        last[vis] = i;
        count[vis]++;
        vis = i;
      }
      pushKids(i, vis);
    }
    let widest = 0;
    for (let p = 0; p <= n; p++) if (count[p] > widest) widest = count[p];
    this.kids = new Int32Array(widest + 1);
  }

  /** The visible children of `p` in pi's order, the one holding the current path first, into kids[from…]; returns how many. */
  kidsOf(p: number): number {
    const kids = this.kids;
    const next = this.next;
    const onPath = this.onPath;
    let m = 1;
    let first = -1;
    for (let c = this.first[p]; c >= 0; c = next[c]) {
      if (first < 0 && onPath[c]) first = c;
      else kids[m++] = c;
    }
    this.from = first >= 0 ? 0 : 1;
    kids[0] = first;
    return m - this.from;
  }
}
