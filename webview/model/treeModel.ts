// The webview's copy of one session's entry tree: NodeViews by index, parent links and children in
// pi's order (entry time ascending, stable by arrival). Links live in typed arrays (first child, next
// sibling) so that loading 100k entries allocates next to nothing per entry. Deltas from the host
// (appended nodes, labels, leaf moves) are applied in place; derive.ts computes everything visual.
import type { NodeView } from '../../src/protocol';

export class TreeModel {
  nodes: NodeView[] = [];
  readonly index = new Map<string, number>();
  /** Parent index per node, -1 for roots (length may exceed `size`). */
  parent = new Int32Array(0);
  private firstChild = new Int32Array(0);
  private lastChild = new Int32Array(0);
  private nextSibling = new Int32Array(0);
  private childN = new Int32Array(0);
  private times = new Float64Array(0);
  private firstRoot = -1;
  private lastRoot = -1;
  leaf = -1;
  /** Bumped on every change that needs a new derivation (structure, labels, leaf). */
  version = 0;
  /** Nodes whose parent has not arrived yet, by the missing parent id. */
  private orphans = new Map<string, number[]>();
  private pathCache: { leaf: number; version: number; mask: Uint8Array } | undefined;

  get size(): number {
    return this.nodes.length;
  }

  get leafId(): string | null {
    return this.leaf >= 0 ? this.nodes[this.leaf].id : null;
  }

  /** Replaces everything (snapshot). */
  load(nodes: NodeView[], leafId: string | null): void {
    this.nodes = [];
    this.index.clear();
    this.orphans.clear();
    this.firstRoot = this.lastRoot = -1;
    this.leaf = -1;
    this.grow(nodes.length);
    this.append(nodes);
    this.setLeaf(leafId);
    this.version++;
  }

  private grow(min: number): void {
    if (this.parent.length >= min) return;
    const cap = Math.max(min, Math.ceil(this.parent.length * 1.5), 64);
    const g = <T extends Int32Array | Float64Array>(a: T, C: new (n: number) => T): T => {
      const b = new C(cap);
      b.set(a);
      return b;
    };
    this.parent = g(this.parent, Int32Array);
    this.firstChild = g(this.firstChild, Int32Array);
    this.lastChild = g(this.lastChild, Int32Array);
    this.nextSibling = g(this.nextSibling, Int32Array);
    this.childN = g(this.childN, Int32Array);
    this.times = g(this.times, Float64Array);
  }

  /** Adds nodes in arrival order; a node with a known id replaces the old one (rare: host resync). */
  append(nodes: NodeView[]): void {
    let rebuild = false;
    this.grow(this.nodes.length + nodes.length);
    for (const n of nodes) {
      const old = this.index.get(n.id);
      if (old !== undefined) {
        if (this.nodes[old].parentId !== n.parentId || this.nodes[old].time !== n.time) rebuild = true;
        this.nodes[old] = n;
        this.times[old] = n.time;
        continue;
      }
      const i = this.nodes.length;
      this.nodes.push(n);
      this.index.set(n.id, i);
      this.times[i] = n.time;
      this.firstChild[i] = this.lastChild[i] = this.nextSibling[i] = -1;
      this.childN[i] = 0;
      if (!rebuild) this.link(i);
      // Children that arrived before this node hang under it now.
      if (this.orphans.size && this.orphans.has(n.id)) rebuild = true;
    }
    if (rebuild) this.rebuildLinks();
    this.version++;
  }

  private link(i: number): void {
    const pid = this.nodes[i].parentId;
    const p = pid === null ? undefined : this.index.get(pid);
    if (p === undefined || p === i) {
      this.parent[i] = -1;
      this.insertRoot(i);
      if (pid !== null && p === undefined) {
        const list = this.orphans.get(pid);
        if (list) list.push(i);
        else this.orphans.set(pid, [i]);
      }
      return;
    }
    this.parent[i] = p;
    this.childN[p]++;
    const last = this.lastChild[p];
    if (last < 0) {
      this.firstChild[p] = this.lastChild[p] = i;
    } else if (this.before(last, i)) {
      this.nextSibling[last] = i;
      this.lastChild[p] = i;
    } else {
      // Out of time order (rare): walk to the insertion point.
      let prev = -1;
      let c = this.firstChild[p];
      while (c >= 0 && this.before(c, i)) {
        prev = c;
        c = this.nextSibling[c];
      }
      this.nextSibling[i] = c;
      if (prev < 0) this.firstChild[p] = i;
      else this.nextSibling[prev] = i;
    }
  }

  private insertRoot(i: number): void {
    if (this.lastRoot < 0) {
      this.firstRoot = this.lastRoot = i;
      return;
    }
    if (this.before(this.lastRoot, i)) {
      this.nextSibling[this.lastRoot] = i;
      this.lastRoot = i;
      return;
    }
    let prev = -1;
    let c = this.firstRoot;
    while (c >= 0 && this.before(c, i)) {
      prev = c;
      c = this.nextSibling[c];
    }
    this.nextSibling[i] = c;
    if (prev < 0) this.firstRoot = i;
    else this.nextSibling[prev] = i;
  }

  /** pi's sibling order: time ascending, then arrival. */
  private before(a: number, b: number): boolean {
    const ta = this.times[a];
    const tb = this.times[b];
    return ta < tb || (ta === tb && a < b);
  }

  private rebuildLinks(): void {
    const n = this.nodes.length;
    this.orphans.clear();
    this.firstRoot = this.lastRoot = -1;
    this.firstChild.fill(-1, 0, n);
    this.lastChild.fill(-1, 0, n);
    this.nextSibling.fill(-1, 0, n);
    this.childN.fill(0, 0, n);
    for (let i = 0; i < n; i++) this.link(i);
    // A parent chain that loops (never sent by a correct host) would hide nodes: cut it into a root.
    const seen = new Uint8Array(n);
    for (const i of this.preorder()) seen[i] = 1;
    for (let i = 0; i < n; i++) {
      if (seen[i]) continue;
      this.unlink(i);
      this.parent[i] = -1;
      this.nextSibling[i] = -1;
      this.insertRoot(i);
      for (const j of this.preorder(i)) seen[j] = 1;
    }
  }

  private unlink(i: number): void {
    const p = this.parent[i];
    if (p < 0) return;
    let prev = -1;
    for (let c = this.firstChild[p]; c >= 0; prev = c, c = this.nextSibling[c]) {
      if (c !== i) continue;
      if (prev < 0) this.firstChild[p] = this.nextSibling[c];
      else this.nextSibling[prev] = this.nextSibling[c];
      if (this.lastChild[p] === c) this.lastChild[p] = prev;
      this.childN[p]--;
      return;
    }
  }

  setLeaf(id: string | null): void {
    const i = id === null ? -1 : (this.index.get(id) ?? -1);
    if (i !== this.leaf) {
      this.leaf = i;
      this.version++;
    }
  }

  setLabel(id: string, label: string | undefined): boolean {
    const i = this.index.get(id);
    if (i === undefined) return false;
    const n = this.nodes[i];
    const next = label === '' ? undefined : label;
    if (n.label === next) return false;
    const copy = { ...n, label: next };
    if (next === undefined) delete copy.label;
    this.nodes[i] = copy;
    this.version++;
    return true;
  }

  childCount(i: number): number {
    return this.childN[i];
  }

  childrenOf(i: number): number[] {
    const out: number[] = [];
    for (let c = this.firstChild[i]; c >= 0; c = this.nextSibling[c]) out.push(c);
    return out;
  }

  get roots(): number[] {
    const out: number[] = [];
    for (let c = this.firstRoot; c >= 0; c = this.nextSibling[c]) out.push(c);
    return out;
  }

  /** 1 for every node on the path from a root to the current leaf. */
  pathMask(): Uint8Array {
    const c = this.pathCache;
    if (c && c.leaf === this.leaf && c.version === this.version) return c.mask;
    const mask = new Uint8Array(this.nodes.length);
    let i = this.leaf;
    let guard = this.nodes.length;
    while (i >= 0 && guard-- > 0) {
      mask[i] = 1;
      i = this.parent[i];
    }
    this.pathCache = { leaf: this.leaf, version: this.version, mask };
    return mask;
  }

  /**
   * Pre-order (children in pi order) of the whole forest, or of one subtree. Walks the links with
   * parent pointers instead of a stack: no recursion, no allocation but the result.
   */
  preorder(from?: number): Int32Array {
    const out = new Int32Array(from === undefined ? this.nodes.length : this.nodes.length);
    let k = 0;
    const fc = this.firstChild;
    const ns = this.nextSibling;
    const par = this.parent;
    for (let r = from ?? this.firstRoot; r >= 0; r = from === undefined ? ns[r] : -1) {
      let i = r;
      for (;;) {
        out[k++] = i;
        if (fc[i] >= 0) {
          i = fc[i];
          continue;
        }
        while (i !== r && ns[i] < 0) i = par[i];
        if (i === r) break;
        i = ns[i];
      }
    }
    return k === out.length ? out : out.slice(0, k);
  }

  depthOf(i: number): number {
    let d = 0;
    for (let p = this.parent[i]; p >= 0; p = this.parent[p]) d++;
    return d;
  }
}
