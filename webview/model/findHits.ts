// The entries a find query hits (among those the filter shows, as pi searches what it lists), their order
// for stepping (the outline's: row, then position inside a segment) and the hit count of a segment.
import type { NodeView } from '../../src/protocol';
import { passesFilter, type FilterMode } from '../../src/shared/treeFilter';
import { itemEntries, type Item } from './derive';
import { matchNode, type Query } from './findQuery';
import type { TreeModel } from './treeModel';

/** Up to this many hits become their own items (split out of segments). */
export const HIT_SPLIT_MAX = 2000;

export class FindHits {
  /** 1 for every entry that matches. */
  hits = new Uint8Array(0);
  /** Hit entries in outline order; hidden ones (folds) are skipped. */
  order: number[] = [];
  /** Index in `order` of the hit stepped to last (-1: none yet). */
  pos = -1;
  /** The query, the filter or the entries changed since the hits were computed. */
  dirty = true;
  private readonly textCache = new Map<NodeView, string>();

  compute(model: TreeModel, query: Query, mode: FilterMode): void {
    const n = model.size;
    this.hits = new Uint8Array(n);
    this.dirty = false;
    if (!query.terms.length) {
      this.order = [];
      return;
    }
    const nodes = model.nodes;
    const leaf = model.leaf;
    for (let i = 0; i < n; i++) {
      if (passesFilter(nodes[i], mode, i === leaf) && matchNode(nodes[i], query, this.textCache)) this.hits[i] = 1;
    }
  }

  /** The entries derive() must keep as their own items (when there are few enough hits). */
  forced(): Uint8Array | undefined {
    return this.order.length && this.order.length <= HIT_SPLIT_MAX ? this.hits : undefined;
  }

  /** Orders the hits by the outline's rows. */
  orderBy(rows: readonly Item[], query: Query): void {
    const out: number[] = [];
    if (query.terms.length) {
      for (const it of rows) for (const e of itemEntries(it)) if (this.hits[e]) out.push(e);
    }
    this.order = out;
    if (this.pos >= out.length) this.pos = out.length - 1;
  }

  /** The next (1) or previous (-1) hit's entry, wrapping around; undefined when there are none. */
  step(dir: 1 | -1): number | undefined {
    if (!this.order.length) return undefined;
    this.pos = (this.pos + dir + this.order.length) % this.order.length;
    return this.order[this.pos];
  }

  isHit(entry: number): boolean {
    return this.hits[entry] === 1;
  }

  /** Hits among the entries an item stands for. */
  inItem(it: Item): number {
    if (!this.order.length) return 0;
    let c = 0;
    for (const e of itemEntries(it)) c += this.hits[e];
    return c;
  }

  /** Forgets the searchable text of nodes that a snapshot replaced. */
  clearCache(): void {
    this.textCache.clear();
  }
}
