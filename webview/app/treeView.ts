// The model on screen: derives the item tree (filter, folds, expanded runs, segments), lays it out, keeps
// the selection on an item across re-derivations and hands both to the graph and the outline. Deltas are
// batched into one pass per frame; a snapshot is drawn at once (it is what the user waits for).
import { passesFilter, type FilterMode } from '../../src/shared/treeFilter';
import { derive, outlineRows, type Derived, type Item } from '../model/derive';
import { extendTail } from '../model/extendTail';
import { fitsSlot, layoutTree, type Layout } from '../model/layout';
import { itemWidth, sizeItems } from '../model/nodeSize';
import type { ViewState } from '../model/savedState';
import type { TreeModel } from '../model/treeModel';
import type { GraphView } from '../graph/graphView';
import { markPath } from '../model/pathMarks';
import type { OutlineView } from '../outline/outlineView';
import { cancelFrame, onFrame } from '../ui/schedule';
import { resolveSelection, Selection } from './selection';
import { firstPlacement, placeAfterPass } from './viewPlacement';

export interface TreeViewHost {
  filter(): FilterMode;
  /** Computes find hits if stale; the entries that must be their own items. */
  forcedEntries(): Uint8Array | undefined;
  /** Entries of branches marked hidden (left out of the view), if any. */
  hiddenEntries?(): Uint8Array | undefined;
  /** Entry ids with a checkpoint (each its own item). */
  checkpoints?(): ReadonlySet<string>;
  /** Orders find hits by the new rows. */
  rowsChanged(rows: readonly Item[]): void;
  /** The saved selection and view of this session, for its first snapshot. */
  savedView(): { selected?: string; view?: ViewState } | undefined;
  /** The first snapshot is on screen. */
  firstShown(): void;
  announce(msg: string): void;
  /** After a full pass (`first`: the first snapshot; `entries`: the model's size). */
  rebuilt(first: boolean, entries: number): void;
  /** After the selection (or the path, on a fast leaf move) changed without a full pass. */
  selectionChanged(): void;
}

export class TreeView {
  readonly selection = new Selection();
  /** Entry ids: a run containing one of them is shown entry by entry. */
  readonly expanded: Set<string>;
  /** Entry ids whose visible descendants are folded away. */
  readonly folded: Set<string>;
  derived: Derived | undefined;
  layout: Layout | undefined;
  keyIndex = new Map<string, Item>();
  /** Last pass's phases in ms (benchmark). */
  timings: Record<string, number> = {};
  private frame = 0;
  private snapshotPending = false;
  /** The model holds a first screen; the whole tree is on its way. */
  showingFirstScreen = false;
  /** The next pass shows the whole tree after a first screen: framed again if the view was not moved. */
  private afterFirstScreen = false;
  private firstSnapshot = true;
  /** The selection was on the leaf when entries arrived: it follows the new leaf. */
  private pendingFollow = false;
  /** The leaf moved away from the selected entry: select the new leaf. */
  private pendingSelect: string | undefined;
  private initialView: (() => void) | undefined;
  /** The leaf moved to (or with) the selection: frame its neighbourhood once it is drawn. */
  private pendingFrame = false;
  /** Frame the selection again after the pass if the view is still as the last framing left it. */
  private pendingReframe = false;
  /** A change other than entries appended under the leaf is waiting: the next pass is a full one. */
  private needFull = false;
  /** The model's leaf and size as the current derivation shows them. */
  private shownLeaf = -1;
  private shownSize = 0;

  constructor(
    private readonly model: TreeModel,
    private readonly graph: GraphView,
    private readonly outline: OutlineView,
    private readonly host: TreeViewHost,
    saved: { expanded: string[]; folded: string[] },
  ) {
    this.expanded = new Set(saved.expanded);
    this.folded = new Set(saved.folded);
  }

  selItem(): Item | undefined {
    const s = this.selection.current;
    return s ? this.keyIndex.get(s.key) : undefined;
  }

  /** Whether the selection is on the current leaf (it then follows appended entries). */
  onLeaf(): boolean {
    return this.selection.key === this.model.leafId;
  }

  /**
   * A new pass on the next frame (several changes in one frame cost one pass). `reframe`: the layout
   * changes under the view (family links arrive), so a view still as the last framing left it is framed
   * again around the selection.
   */
  refresh(opts: { followLeaf?: boolean; reframe?: boolean } = {}): void {
    if (opts.reframe && this.graph.stillFramed()) this.pendingReframe = true;
    this.needFull = true;
    this.schedule(opts.followLeaf);
  }

  /**
   * Entries were appended (or the leaf moved with them): the next pass tries the incremental one
   * (model/extendTail.ts) unless something else changed too.
   */
  refreshTail(opts: { followLeaf?: boolean } = {}): void {
    this.schedule(opts.followLeaf);
  }

  private schedule(followLeaf: boolean | undefined): void {
    if (followLeaf) this.pendingFollow = true;
    if (this.frame) return;
    this.frame = onFrame(() => {
      this.frame = 0;
      const full = this.needFull;
      this.needFull = false;
      if (full || !this.tailPass()) this.rebuild();
    });
  }

  /** A snapshot was loaded into the model: draw it now. A big session's first screen (`firstScreen`), or the whole tree (which replaces it). */
  showSnapshot(firstScreen = false): void {
    this.afterFirstScreen = this.showingFirstScreen && !firstScreen;
    this.showingFirstScreen = firstScreen;
    this.snapshotPending = true;
    cancelFrame(this.frame);
    this.frame = 0;
    this.rebuild();
  }

  /** The model's leaf moved from `oldLeaf` (index) / `oldId`. */
  leafMoved(oldLeaf: number, oldId: string | null, leafId: string | null): void {
    const selId = this.selection.current?.entryId;
    if (selId === oldId && leafId) this.pendingSelect = leafId;
    // A move to the selection (pi's rule puts a user message's leaf on its parent, a summary hangs the
    // leaf under it), or a leaf the selection follows: the new place is shown with its path and branches. pi appending while the
    // user looks elsewhere does not move the view.
    const sel = selId !== undefined ? this.model.index.get(selId) : undefined;
    // A move with a summary puts the leaf on the summary, written under the selected entry.
    const leaf = this.model.leaf;
    const summaryOfSel =
      sel !== undefined &&
      leaf >= 0 &&
      this.model.parent[leaf] === sel &&
      this.model.nodes[leaf].kind === 'branchSummary';
    this.pendingFrame =
      !!leafId &&
      (this.pendingSelect !== undefined ||
        (sel !== undefined && (sel === leaf || this.model.parent[sel] === leaf || summaryOfSel)));
    // With appended entries waiting, the move is (most likely) to the last of them: one pass for both.
    if (this.frame) this.refreshTail();
    else if (!this.fastLeafMove(oldLeaf, this.model.leaf)) this.refresh();
  }

  /** The graph has a size now: place the first view if it was waiting for one (true if it was). */
  placeInitialView(): boolean {
    const f = this.initialView;
    this.initialView = undefined;
    f?.();
    return !!f;
  }

  private rebuild(): void {
    this.needFull = false;
    const model = this.model;
    const n = model.size;
    const t0 = performance.now();
    const forced = this.host.forcedEntries();
    const derived = derive({
      model,
      mode: this.host.filter(),
      folded: this.folded,
      expanded: this.expanded,
      forced,
      hidden: this.host.hiddenEntries?.(),
      checkpoints: this.host.checkpoints?.(),
    });
    this.derived = derived;
    const t1 = performance.now();
    sizeItems(derived.items, model.nodes);
    this.layout = layoutTree(derived.root);
    const t2 = performance.now();
    this.keyIndex = new Map();
    for (const it of derived.items) this.keyIndex.set(it.key, it);
    this.host.rowsChanged(derived.rows);
    this.timings = { derive: t1 - t0, layout: t2 - t1 };
    // Selection: same key, else the item showing the entry, else the nearest visible ancestor.
    const first = this.snapshotPending && this.firstSnapshot;
    const saved = first ? this.host.savedView() : undefined;
    if (first) {
      const fromState = saved?.selected;
      const key =
        fromState && (this.keyIndex.has(fromState) || model.index.has(fromState.replace(/^seg:/, '')))
          ? fromState
          : (model.leafId ?? undefined);
      if (key) this.selection.set(key, key.replace(/^seg:/, ''));
    }
    this.takePendingSelection();
    this.selection.current = resolveSelection(this.selection.current, derived, model, this.keyIndex);
    this.graph.setData(this.layout, derived);
    this.outline.setRows(derived.rows);
    const it = this.selItem();
    this.outline.setActive(it);
    if (first) {
      this.firstSnapshot = false;
      const place = firstPlacement(this.graph, it, saved?.view);
      if (this.graph.size.w) place();
      else this.initialView = place;
      this.host.firstShown();
    } else if (it) {
      placeAfterPass(this.graph, it, {
        frame: this.pendingFrame,
        reframe: this.pendingReframe,
        afterFirstScreen: this.afterFirstScreen,
        reveal: this.pendingFollow || this.snapshotPending,
      });
    }
    this.pendingFrame = false;
    this.pendingReframe = false;
    this.pendingFollow = false;
    this.snapshotPending = false;
    this.afterFirstScreen = false;
    this.timings.total = performance.now() - t0;
    this.shownLeaf = model.leaf;
    this.shownSize = n;
    this.host.rebuilt(first, n);
  }

  /** The selection a leaf move or a followed leaf asked for, before the selection is resolved. */
  private takePendingSelection(): void {
    if (this.pendingSelect) {
      this.selection.set(this.pendingSelect);
      this.pendingSelect = undefined;
    } else if (this.pendingFollow && this.model.leafId) {
      this.selection.set(this.model.leafId);
    }
  }

  /** The incremental pass for entries appended under the leaf; false when a full one is needed. */
  private tailPass(): boolean {
    const d = this.derived;
    const layout = this.layout;
    if (!d || !layout || this.snapshotPending) return false;
    const model = this.model;
    const t0 = performance.now();
    const change = extendTail(
      {
        model,
        mode: this.host.filter(),
        folded: this.folded,
        expanded: this.expanded,
        forced: this.host.forcedEntries(),
        hidden: this.host.hiddenEntries?.(),
        checkpoints: this.host.checkpoints?.(),
        oldLeaf: this.shownLeaf,
        oldSize: this.shownSize,
      },
      d,
      layout,
    );
    if (!change) return false;
    // Cards are as wide as their titles: the new leaf's card must fit the old one's slot, else lay out again.
    change.added.w = itemWidth(change.added, model.nodes);
    if (!fitsSlot(layout, change.added)) return false;
    const tExt = performance.now();
    this.keyIndex.delete(change.removed.key);
    this.keyIndex.set(change.added.key, change.added);
    this.host.rowsChanged(d.rows);
    const prevKey = this.selection.key;
    this.takePendingSelection();
    this.selection.current = resolveSelection(this.selection.current, d, model, this.keyIndex);
    const key = this.selection.key;
    // Only the changed items are drawn again, unless the selection went to another existing item.
    if (key === prevKey || (key === change.added.key && prevKey === change.removed.key)) {
      const changed = change.grown ? [change.added, change.grown] : [change.added];
      this.graph.itemsChanged(changed.map((x) => x.key));
      this.outline.rowsChanged(d.rows, changed);
    } else {
      this.graph.setData(layout, d);
      this.outline.setRows(d.rows);
    }
    const it = this.selItem();
    this.outline.setActive(it);
    if (it && (this.pendingFrame || this.graph.framing())) this.graph.frameAround(it);
    else if (it && this.pendingFollow) this.graph.reveal(it, false);
    this.pendingFrame = false;
    this.pendingFollow = false;
    this.shownLeaf = model.leaf;
    this.shownSize = model.size;
    const t1 = performance.now();
    this.host.rebuilt(false, model.size);
    // tail: the incremental pass itself; views: rows, graph and outline told; after: the app's follow-up
    this.timings = { tail: tExt - t0, views: t1 - tExt, after: performance.now() - t1, total: performance.now() - t0 };
    return true;
  }

  /**
   * A leaf move that changes no item (the new leaf already has its own item, the old one stays
   * visible) only changes path flags and the outline order: no derive, no layout. Returns false
   * when a full pass is needed.
   */
  private fastLeafMove(oldLeaf: number, newLeaf: number): boolean {
    const d = this.derived;
    if (!d || this.frame || newLeaf < 0) return false;
    const it = d.itemOf[newLeaf];
    if (!it || it.seg || it.entry !== newLeaf) return false;
    if (oldLeaf >= 0 && d.visible[oldLeaf] && !passesFilter(this.model.nodes[oldLeaf], this.host.filter(), false))
      return false;
    // Only the nodes whose path or leaf mark changed (and the selection's) are drawn again.
    const changed = markPath(d.items, this.model.pathMask(), newLeaf);
    d.rows = outlineRows(d.root);
    this.shownLeaf = newLeaf;
    this.host.rowsChanged(d.rows);
    const prevSel = this.selection.key;
    if (this.pendingSelect) {
      this.selection.set(this.pendingSelect);
      this.pendingSelect = undefined;
    }
    const sel = this.selection.key;
    if (prevSel !== sel) for (const k of [prevSel, sel]) if (k !== undefined) changed.push(k);
    this.graph.itemsChanged(changed);
    this.outline.setRows(d.rows);
    const selIt = this.selItem();
    this.outline.setActive(selIt);
    if (selIt && this.pendingFrame) this.graph.frameAround(selIt);
    else if (selIt) this.graph.reveal(selIt, false);
    this.pendingFrame = false;
    this.host.selectionChanged();
    return true;
  }

  select(it: Item | undefined, opts: { history?: boolean; reveal?: boolean; animate?: boolean } = {}): void {
    if (!it) return;
    const prev = this.selection.key;
    if (opts.history) this.selection.remember(it.key);
    this.selection.set(it.key, this.model.nodes[it.entry].id);
    if (prev !== it.key) {
      // The two nodes whose selection mark changed are drawn again, not the window.
      this.graph.itemsChanged(prev === undefined ? [it.key] : [prev, it.key], false);
      this.outline.refresh();
    }
    this.outline.setActive(it);
    if (opts.reveal !== false) this.graph.reveal(it, opts.animate ?? true);
    this.host.selectionChanged();
  }

  /** Selects an entry by id, expanding the segment that hides it (and unfolding) if needed. */
  selectEntry(id: string, opts: { history?: boolean } = {}): void {
    const i = this.model.index.get(id);
    const d = this.derived;
    if (i === undefined || !d) return;
    if (i >= d.visible.length) {
      // Appended since the last pass, whose frame is still to come (an answer selected as its reply
      // arrives): the pass now, so the entry has its item.
      cancelFrame(this.frame);
      this.frame = 0;
      this.rebuild();
      return this.selectEntry(id, opts);
    }
    let it = d.itemOf[i];
    if (it && !it.seg) return this.select(it, opts);
    if (!d.visible[i]) {
      // Hidden by a fold: unfold its ancestors. Hidden by the filter: show the nearest visible one.
      let unfolded = false;
      for (let p = this.model.parent[i]; p >= 0; p = this.model.parent[p])
        if (this.folded.delete(this.model.nodes[p].id)) unfolded = true;
      if (!unfolded) {
        const v = d.vparent[i];
        if (v >= 0) return this.selectEntry(this.model.nodes[v].id, opts);
        return;
      }
    } else {
      this.expanded.add(id);
    }
    // Re-derive now so the entry has its own item.
    this.rebuild();
    it = this.derived!.itemOf[i];
    if (it) this.select(it, opts);
  }

  /** Expand a segment, collapse an expanded run, fold/unfold a branch point. */
  toggle(it: Item): boolean {
    const nodes = this.model.nodes;
    if (it.seg) {
      this.expanded.add(nodes[it.entry].id);
      this.host.announce(`Expanded ${it.members!.length} entries`);
      this.selection.set(nodes[it.entry].id);
      this.refresh();
      return true;
    }
    if (it.run) {
      for (const m of it.run.members) this.expanded.delete(nodes[m].id);
      const head = nodes[it.run.members[0]].id;
      this.selection.set('seg:' + head, head);
      this.host.announce('Collapsed the run into a segment');
      this.refresh();
      return true;
    }
    const id = nodes[it.entry].id;
    if (it.folded) {
      this.folded.delete(id);
      this.host.announce('Unfolded');
      this.refresh();
      return true;
    }
    if (it.children && it.children.length >= 2) {
      this.folded.add(id);
      this.host.announce('Folded');
      this.refresh();
      return true;
    }
    return false;
  }
}
