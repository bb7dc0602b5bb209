// The webview's copy of one session's entry tree: NodeViews by index, parent links and children sorted
// as pi sorts them (entry time ascending, stable by arrival). Deltas from the host (appended nodes,
// labels, leaf moves) are applied in place; everything visual is derived from this in derive.ts.
import type { NodeView } from '../src/protocol';

export class TreeModel {
  nodes: NodeView[] = [];
  readonly index = new Map<string, number>();
  /** Parent index per node, -1 for roots. */
  parent: number[] = [];
  /** Children per node in pi's order (time ascending, then arrival). */
  children: (number[] | undefined)[] = [];
  roots: number[] = [];
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
    this.parent = [];
    this.children = [];
    this.roots = [];
    this.orphans.clear();
    this.append(nodes);
    this.setLeaf(leafId);
    this.version++;
  }

  /** Adds nodes in arrival order; a node with a known id replaces the old one (rare: host resync). */
  append(nodes: NodeView[]): void {
    let rebuild = false;
    for (const n of nodes) {
      const old = this.index.get(n.id);
      if (old !== undefined) {
        if (this.nodes[old].parentId !== n.parentId || this.nodes[old].time !== n.time) rebuild = true;
        this.nodes[old] = n;
        continue;
      }
      const i = this.nodes.length;
      this.nodes.push(n);
      this.index.set(n.id, i);
      this.parent.push(-1);
      this.children.push(undefined);
      if (!rebuild) this.link(i);
      // Children that arrived before this node hang under it now.
      const waiting = this.orphans.get(n.id);
      if (waiting) {
        this.orphans.delete(n.id);
        rebuild = true;
      }
    }
    if (rebuild) this.rebuildLinks();
    this.version++;
  }

  private link(i: number): void {
    const pid = this.nodes[i].parentId;
    const p = pid === null ? undefined : this.index.get(pid);
    if (p === undefined || p === i) {
      this.parent[i] = -1;
      insertSorted(this.roots, i, this.nodes);
      if (pid !== null && p === undefined) {
        const list = this.orphans.get(pid);
        if (list) list.push(i);
        else this.orphans.set(pid, [i]);
      }
      return;
    }
    this.parent[i] = p;
    const kids = this.children[p];
    if (kids) insertSorted(kids, i, this.nodes);
    else this.children[p] = [i];
  }

  private rebuildLinks(): void {
    this.roots = [];
    this.orphans.clear();
    for (let i = 0; i < this.nodes.length; i++) this.children[i] = undefined;
    for (let i = 0; i < this.nodes.length; i++) this.link(i);
    // A parent chain that loops (never sent by a correct host) would hide nodes: break it at the loop.
    const seen = new Uint8Array(this.nodes.length);
    const stack = [...this.roots];
    while (stack.length) {
      const i = stack.pop()!;
      seen[i] = 1;
      const kids = this.children[i];
      if (kids) for (const k of kids) stack.push(k);
    }
    for (let i = 0; i < this.nodes.length; i++) {
      if (seen[i]) continue;
      const p = this.parent[i];
      if (p >= 0) {
        const kids = this.children[p]!;
        kids.splice(kids.indexOf(i), 1);
        if (!kids.length) this.children[p] = undefined;
      }
      this.parent[i] = -1;
      insertSorted(this.roots, i, this.nodes);
      const st = [i];
      while (st.length) {
        const j = st.pop()!;
        seen[j] = 1;
        const kids = this.children[j];
        if (kids) for (const k of kids) if (!seen[k]) st.push(k);
      }
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
    this.nodes[i] = { ...n, label: next };
    if (next === undefined) delete this.nodes[i].label;
    this.version++;
    return true;
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

  /** Pre-order (children in pi order), iterative: safe for 100k-deep chains. */
  preorder(): Int32Array {
    const out = new Int32Array(this.nodes.length);
    let k = 0;
    const stack: number[] = [];
    for (let r = this.roots.length - 1; r >= 0; r--) stack.push(this.roots[r]);
    while (stack.length) {
      const i = stack.pop()!;
      out[k++] = i;
      const kids = this.children[i];
      if (kids) for (let c = kids.length - 1; c >= 0; c--) stack.push(kids[c]);
    }
    return k === out.length ? out : out.slice(0, k);
  }

  depthOf(i: number): number {
    let d = 0;
    for (let p = this.parent[i]; p >= 0; p = this.parent[p]) d++;
    return d;
  }
}

/** Inserts `i` keeping (time, index) order; appends are O(1) in the common case. */
function insertSorted(list: number[], i: number, nodes: NodeView[]): void {
  const t = nodes[i].time;
  let pos = list.length;
  while (pos > 0) {
    const j = list[pos - 1];
    const tj = nodes[j].time;
    if (tj < t || (tj === t && j < i)) break;
    pos--;
  }
  if (pos === list.length) list.push(i);
  else list.splice(pos, 0, i);
}
