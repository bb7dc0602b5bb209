// The in-memory index of one session file: entries in append order, lookup by id (last duplicate wins,
// as in pi), paths, children, leaf recovery, labels, name and diagnostics. The columns and how entries
// are added are indexColumns.ts's; this adds the tree over them: path walks (pi's getBranch), child
// lists in pi's order, parent cycles cut and reported, built in slices for big sessions.
// `EntryRecord` views (one per record, made when first asked for) keep the object API for callers that
// handle a few records; hot paths use the index numbers (`…Idx`, `…Of(i)`).
import { IndexColumns } from './indexColumns.js';
import { F_RAWPARENT, F_REPEAT, F_SELF, F_SUPERSEDED, type EntryRecord } from './indexRecord.js';

const ON_CYCLE = 1;
const CYCLE_ENTRY = 2;

export { F_CONTENT, F_FAST, ROLE_NAMES, type EntryRecord } from './indexRecord.js';

export class SessionIndex extends IndexColumns {
  private cycleChecked = false;
  /** Per record: ON_CYCLE, or CYCLE_ENTRY for the earliest of its cycle (shown as a root); 0: none. */
  private cyclic: Uint8Array | undefined;
  private childrenBuilt = false;
  private firstChild = new Int32Array(0);
  private lastChild = new Int32Array(0);
  private nextSibling = new Int32Array(0);
  private childN = new Int32Array(0);
  private firstRoot = -1;
  private lastRoot = -1;
  private rootN = 0;

  protected treeStale(children: boolean): void {
    this.cycleChecked = false;
    if (children) this.childrenBuilt = false;
  }

  protected grewTo(cap: number): void {
    // A subclass field is not set yet while the base constructor reserves room: nothing built then.
    if (!this.childrenBuilt) return;
    const g = (a: Int32Array) => {
      const b = new Int32Array(cap);
      b.set(a);
      return b;
    };
    this.firstChild = g(this.firstChild);
    this.lastChild = g(this.lastChild);
    this.nextSibling = g(this.nextSibling);
    this.childN = g(this.childN);
  }

  protected added(i: number, prev: number): void {
    if (!this.childrenBuilt) return;
    this.firstChild[i] = this.lastChild[i] = -1;
    this.childN[i] = 0;
    if (prev >= 0)
      this.childrenBuilt = false; // a duplicate id can reshape the tree: rebuilt lazily
    else this.link(i, this.treeParentIdx(i));
  }

  /** id → live record, as a Map (made on first use, then kept up to date). */
  get byId(): Map<string, EntryRecord> {
    if (!this.idMap) {
      const m = new Map<string, EntryRecord>();
      for (let i = 0; i < this.count; i++) m.set(this.idOf(i), this.view(i));
      this.idMap = m;
    }
    return this.idMap;
  }

  /** Live records (the surviving record of each id) in append order. */
  live(): EntryRecord[] {
    const idx = this.liveIdx();
    const out = new Array<EntryRecord>(idx.length);
    for (let k = 0; k < idx.length; k++) out[k] = this.view(idx[k]);
    return out;
  }

  /** Record numbers of the live records, in append order. */
  liveIdx(from = 0): Int32Array {
    if (!this.duplicates) {
      const out = new Int32Array(Math.max(0, this.count - from));
      for (let k = 0; k < out.length; k++) out[k] = from + k;
      return out;
    }
    let n = 0;
    for (let i = from; i < this.count; i++) if (!(this.flags[i] & F_SUPERSEDED)) n++;
    const out = new Int32Array(n);
    n = 0;
    for (let i = from; i < this.count; i++) if (!(this.flags[i] & F_SUPERSEDED)) out[n++] = i;
    return out;
  }

  // ───────────────────────────── paths ─────────────────────────────

  /** The next record up from `i` on a path walk (pi's getBranch): -1 at a root or missing parent. */
  up(i: number): number {
    if (!this.duplicates) {
      const p = this.par[i];
      if (p >= 0) return p;
    }
    const f = this.flags[i];
    if (f & F_SELF) return -1;
    if (f & F_RAWPARENT) return this.lookup(this.parentRaw.get(i)!);
    const p = this.par[i];
    return p < 0 ? -1 : this.latest(p);
  }

  /** Root→id path (like pi's getBranch): stops at a missing parent; cycles are cut and reported. */
  branch(id: string | null | undefined): EntryRecord[] {
    if (!id) return [];
    const idx = this.branchIdx(this.lookup(id));
    const out = new Array<EntryRecord>(idx.length);
    for (let k = 0; k < idx.length; k++) out[k] = this.view(idx[k]);
    return out;
  }

  /** Record numbers root→`i` (i = -1: empty). */
  branchIdx(i: number): Int32Array {
    if (i < 0) return new Int32Array(0);
    const limit = this.size;
    let depth = 0;
    for (let cur = i; cur >= 0; cur = this.up(cur)) {
      // More steps than entries means a cycle: walk again, remembering what was seen.
      if (++depth > limit + 1) return this.branchGuarded(i);
    }
    const out = new Int32Array(depth);
    for (let cur = i, k = depth - 1; cur >= 0; cur = this.up(cur)) out[k--] = cur;
    return out;
  }

  private branchGuarded(i: number): Int32Array {
    const path: number[] = [];
    const seen = new Uint8Array(this.count);
    let cur = i;
    while (cur >= 0 && !seen[cur]) {
      seen[cur] = 1;
      path.push(cur);
      cur = this.up(cur);
    }
    if (cur >= 0) this.checkCycles();
    return Int32Array.from(path.reverse());
  }

  // ───────────────────────────── tree ─────────────────────────────

  /** The parent record used for the tree: undefined for roots (null, self, missing parent, cycle entry). */
  treeParent(rec: EntryRecord): EntryRecord | undefined {
    const p = this.treeParentIdx(rec.seq);
    return p >= 0 ? this.view(p) : undefined;
  }

  treeParentIdx(i: number): number {
    const f = this.flags[i];
    if (f & F_SELF || (this.par[i] < 0 && !(f & F_RAWPARENT))) return -1;
    if (f & F_RAWPARENT || this.duplicates) {
      this.checkCycles();
      // Of the entries in one cycle, the earliest in the file becomes the root, so the cycle is drawn once.
      if (this.cyclic?.[i] === CYCLE_ENTRY) return -1;
    }
    return this.up(i);
  }

  /** Children of `id` (null = roots), oldest first by timestamp as in pi's getTree. */
  childrenOf(id: string | null): EntryRecord[] {
    let p = -1;
    if (id !== null) {
      p = this.lookup(id);
      if (p < 0) return [];
    }
    return this.childrenIdx(p).map((c) => this.view(c));
  }

  roots(): EntryRecord[] {
    return this.childrenOf(null);
  }

  /** Children of record `p` (-1: the roots), in pi's order. */
  childrenIdx(p: number): number[] {
    this.buildChildren();
    const out: number[] = [];
    for (let c = p < 0 ? this.firstRoot : this.firstChild[p]; c >= 0; c = this.nextSibling[c]) out.push(c);
    return out;
  }

  /** How many children record `p` has (-1: roots). */
  childCount(p: number): number {
    this.buildChildren();
    return p < 0 ? this.rootN : this.childN[p];
  }

  /**
   * How many children each record has (by record number), as childCount says, without building the
   * child lists when they are not built yet (stats needs the counts only).
   */
  childCounts(): Int32Array {
    if (this.childrenBuilt && this.cycleChecked) return this.childN;
    this.checkCycles();
    const counts = new Int32Array(this.count);
    for (let i = 0; i < this.count; i++) {
      if (this.flags[i] & F_SUPERSEDED) continue;
      const p = this.treeParentIdx(i);
      if (p >= 0) counts[p]++;
    }
    return counts;
  }

  /** The first child of `p` (-1: the first root), then nextSiblingOf: walks without arrays. */
  firstChildOf(p: number): number {
    this.buildChildren();
    return p < 0 ? this.firstRoot : this.firstChild[p];
  }
  nextSiblingOf(c: number): number {
    return this.nextSibling[c];
  }

  hasCycles(): boolean {
    this.checkCycles();
    return !!this.cyclic;
  }

  /** Marks every entry that sits on a parent cycle (O(n), iterative). */
  private checkCycles(): void {
    if (this.cycleChecked) return;
    for (const _ of this.cycleSteps());
  }

  private *cycleSteps(): Generator<void> {
    this.cyclic = undefined;
    // (checked again after a change: the cycles found before are found again if they are still there)
    for (let k = this.diagnostics.length - 1; k >= 0; k--)
      if (this.diagnostics[k].code === 'cycle') this.diagnostics.splice(k, 1);
    // Parents named before their children, and no id twice: every walk goes to earlier lines, no cycle.
    if (!this.duplicates && !this.parentRaw.size) {
      this.cycleChecked = true;
      return;
    }
    const n = this.count;
    const state = new Uint8Array(n); // 1 = on the current walk, 2 = done
    let work = 0;
    // In the order ids first appear (as a Map of ids iterates), each id's live record.
    for (let s = 0; s < n; s++) {
      if (this.flags[s] & F_REPEAT) continue;
      const start = this.latest(s);
      if (state[start]) continue;
      const walk: number[] = [];
      let cur = start;
      while (cur >= 0 && !state[cur]) {
        state[cur] = 1;
        walk.push(cur);
        cur = this.up(cur);
      }
      if (cur >= 0 && state[cur] === 1) {
        // cur is on this walk: everything from it to the end of the walk is a cycle.
        const members = walk.slice(walk.indexOf(cur));
        this.cyclic ??= new Uint8Array(n);
        let first = members[0];
        for (const m of members) {
          this.cyclic[m] = ON_CYCLE;
          if (m < first) first = m; // (not Math.min(...members): a long cycle overflows the stack)
        }
        this.cyclic[first] = CYCLE_ENTRY;
        this.diagnostics.push({
          line: this.lineCol[first] || undefined,
          severity: 'error',
          code: 'cycle',
          message: `Entries ${members
            .slice(0, 6)
            .map((m) => `"${this.idOf(m)}"`)
            .slice(0, 5)
            .join(
              ', ',
            )}${members.length > 5 ? ', …' : ''} form a parent cycle; the earliest is shown as a root and path walks stop at the cycle.`,
        });
      }
      for (const w of walk) state[w] = 2;
      if ((work += walk.length + 1) > 20_000) {
        work = 0;
        yield;
      }
    }
    this.cycleChecked = true;
  }

  private buildChildren(): void {
    if (this.childrenBuilt && this.cycleChecked) return;
    for (const _ of this.childSteps());
  }

  private *childSteps(): Generator<void> {
    yield* this.cycleSteps();
    const cap = this.cap;
    this.firstChild = new Int32Array(cap).fill(-1);
    this.lastChild = new Int32Array(cap).fill(-1);
    this.nextSibling = new Int32Array(cap).fill(-1);
    this.childN = new Int32Array(cap);
    this.firstRoot = this.lastRoot = -1;
    this.rootN = 0;
    // Appended in file order; a list that comes out of time order (clock skew) is sorted once at the end
    // (inserting each one in place walked the list: quadratic on many siblings after a future one).
    const unsorted = new Set<number>();
    for (let i = 0; i < this.count; i++) {
      if (this.flags[i] & F_SUPERSEDED) continue;
      const p = this.treeParentIdx(i);
      if (!this.link(i, p, true)) unsorted.add(p);
      if ((i & 0x3fff) === 0x3fff) yield;
    }
    for (const p of unsorted) {
      this.sortChildren(p);
      yield;
    }
    this.childrenBuilt = true;
  }

  /** Orders the children of `p` (-1: the roots), now in file order, as pi does: a stable sort by time. */
  private sortChildren(p: number): void {
    const kids: number[] = [];
    for (let c = p < 0 ? this.firstRoot : this.firstChild[p]; c >= 0; c = this.nextSibling[c]) kids.push(c);
    kids.sort((a, b) => this.timeCol[a] - this.timeCol[b]);
    for (let k = 0; k < kids.length; k++) this.nextSibling[kids[k]] = k + 1 < kids.length ? kids[k + 1] : -1;
    if (p < 0) [this.firstRoot, this.lastRoot] = [kids[0], kids[kids.length - 1]];
    else [this.firstChild[p], this.lastChild[p]] = [kids[0], kids[kids.length - 1]];
  }

  /** Builds the tree structures (cycle check, children) in slices, yielding to the event loop. */
  async prepareTree(sliceMs = 8): Promise<void> {
    if (this.childrenBuilt && this.cycleChecked) return;
    let t0 = performance.now();
    for (const _ of this.childSteps()) {
      if (performance.now() - t0 > sliceMs) {
        await new Promise<void>((r) => setImmediate(r));
        t0 = performance.now();
      }
    }
  }

  /** pi's sibling order: time ascending, then file order. */
  private before(a: number, b: number): boolean {
    const ta = this.timeCol[a];
    const tb = this.timeCol[b];
    return ta < tb || (ta === tb && a < b);
  }

  /**
   * Adds `i` to the children of `p` in pi's order; `append`: at the end whatever its time (the caller
   * sorts later). False when it was out of time order.
   */
  private link(i: number, p: number, append = false): boolean {
    this.nextSibling[i] = -1;
    const last = p < 0 ? this.lastRoot : this.lastChild[p];
    if (p < 0) this.rootN++;
    else this.childN[p]++;
    if (last < 0) {
      if (p < 0) this.firstRoot = this.lastRoot = i;
      else this.firstChild[p] = this.lastChild[p] = i;
      return true;
    }
    const inOrder = this.before(last, i);
    if (inOrder || append) {
      this.nextSibling[last] = i;
      if (p < 0) this.lastRoot = i;
      else this.lastChild[p] = i;
      return inOrder;
    }
    // Out of time order (rare): walk to the insertion point.
    let prev = -1;
    let c = p < 0 ? this.firstRoot : this.firstChild[p];
    while (c >= 0 && this.before(c, i)) {
      prev = c;
      c = this.nextSibling[c];
    }
    this.nextSibling[i] = c;
    if (prev >= 0) this.nextSibling[prev] = i;
    else if (p < 0) this.firstRoot = i;
    else this.firstChild[p] = i;
    return false;
  }
}
