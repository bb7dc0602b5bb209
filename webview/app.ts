// The tree webview app: owns the model and the UI state, turns host messages into model changes,
// derives and lays out on the next frame (several deltas in one frame cost one pass), and runs every
// action the user can take by click, key, native menu or host `invoke`.
import type { ContextView, EntryDetails, HostMessage, MoveReply, NodeView, RequestBody, SessionMeta } from '../src/protocol';
import { nodeAriaLabel, segmentAriaLabel, KIND_NAMES } from './aria';
import { derive, itemEntries, outlineRows, type Derived, type Item } from './derive';
import { h, renderContext, renderEntry } from './details';
import { button, openEditorTextDialog, openLabelEditor, openShortcutSheet, openSummaryDialog, textfield, type DialogServices, type Overlay } from './dialogs';
import { FILTER_MODES, FILTER_TITLES, isFilterMode, nextFilter, passesFilter, type FilterMode } from './filter';
import { matchNode, parseQuery, type Query } from './find';
import { GraphView, short } from './graph';
import { resolveKey, type CommandId } from './keymap';
import { layoutTree, queryItems, type Layout } from './layout';
import { TreeModel } from './model';
import { OutlineView } from './outline';
import { Bridge, type VsCodeApi } from './rpc';
import { capIds, restoreState, STATE_VERSION, type SavedState } from './state';
import { bridgeBadge } from './ui/bridgeBadge';

/** Up to this many find hits become their own items (split out of segments). */
const HIT_SPLIT_MAX = 2000;
const HISTORY_MAX = 200;

type Sel = { key: string; entryId: string };

export class App {
  readonly model = new TreeModel();
  meta: SessionMeta | undefined;
  private rev = -1;
  private readonly bridge: Bridge;
  private state: SavedState;
  private expanded = new Set<string>();
  private folded = new Set<string>();
  private derived: Derived | undefined;
  private layout: Layout | undefined;
  private keyIndex = new Map<string, Item>();
  private sel: Sel | undefined;
  private back: string[] = [];
  private fwd: string[] = [];
  private query: Query = { terms: [] };
  private hits = new Uint8Array(0);
  private hitOrder: number[] = [];
  private hitPos = -1;
  private hitsDirty = true;
  private textCache = new Map<NodeView, string>();
  private refreshFrame = 0;
  private firstSnapshot = true;
  private overlays: Overlay[] = [];
  private entryCache = new Map<string, EntryDetails>();
  private detailsTimer = 0;
  private contextFor: string | null | undefined;
  private saveTimer = 0;
  private readonly mac = /Mac|iPhone|iPad/.test(navigator.platform);
  // DOM
  private readonly root: HTMLElement;
  private readonly titleEl: HTMLElement;
  private readonly badges: HTMLElement;
  private readonly filterSel: HTMLElement & { value: string };
  private readonly findField: HTMLElement & { value: string };
  private readonly findCount: HTMLElement;
  private readonly graph: GraphView;
  private readonly outline: OutlineView;
  private readonly detailsEl: HTMLElement;
  private readonly statusEl: HTMLElement;
  private readonly live: HTMLElement;
  private readonly diagEl: HTMLElement;

  constructor(root: HTMLElement, api: VsCodeApi) {
    this.root = root;
    this.bridge = new Bridge(api, (m) => this.onHost(m));
    this.state = restoreState(api.getState());
    this.saveState = () => api.setState(this.snapshotState());
    this.expanded = new Set(this.state.expanded);
    this.folded = new Set(this.state.folded);

    const self = this;
    const common = {
      nodes: () => this.model.nodes,
      isSelected: (it: Item) => this.sel?.key === it.key,
      isHit: (e: number) => this.hits[e] === 1,
      hitsIn: (it: Item) => this.hitsIn(it),
      contextFor: (it: Item) => this.vscodeContext(it),
      onSelect: (it: Item, how: 'click' | 'dblclick' | 'contextmenu') => this.onPointerSelect(it, how),
    };
    this.graph = new GraphView({
      ...common,
      onViewChange: () => this.scheduleSave(),
      itemForKey: (k) => this.keyIndex.get(k),
      onFirstSize: () => {
        const f = this.initialView;
        this.initialView = undefined;
        f?.();
      },
    });
    this.outline = new OutlineView({
      ...common,
      ariaLabel: (it) => this.ariaLabel(it),
      expandedState: (it) => self.expandedState(it),
    });

    // Header
    const header = h('header', 'toolbar');
    this.titleEl = h('h1', 'title', 'pi session');
    this.titleEl.title = 'Rename the session (Shift+F2)';
    this.titleEl.addEventListener('click', () => this.rename());
    this.badges = h('span', 'badges');
    this.filterSel = document.createElement('vscode-single-select') as HTMLElement & { value: string };
    this.filterSel.className = 'filter';
    this.filterSel.setAttribute('aria-label', 'Filter');
    this.filterSel.title = 'Filter (O / Shift+O)';
    for (const m of FILTER_MODES) {
      const o = document.createElement('vscode-option') as HTMLElement & { value: string };
      o.setAttribute('value', m);
      o.textContent = FILTER_TITLES[m];
      this.filterSel.append(o);
    }
    this.filterSel.addEventListener('change', () => {
      const v = this.filterSel.value;
      if (isFilterMode(v)) this.setFilter(v);
    });
    const find = h('div', 'find');
    this.findField = textfield('find', this.state.query, 'Find', 'Find: text role: tool: label: file: model: re:');
    this.findField.addEventListener('input', () => this.onFindInput());
    this.findField.addEventListener('keydown', (ev) => {
      const e = ev as KeyboardEvent;
      if (e.key === 'Enter') {
        e.preventDefault();
        this.stepHit(e.shiftKey ? -1 : 1);
      }
    });
    this.findCount = h('span', 'find-count');
    this.findCount.setAttribute('aria-live', 'polite');
    const prev = this.toolButton('arrow-up', 'Previous match (Shift+F3)', 'find-prev', () => this.stepHit(-1), false);
    const next = this.toolButton('arrow-down', 'Next match (F3)', 'find-next', () => this.stepHit(1), false);
    find.append(this.findField, this.findCount, prev, next);
    const tools = h('div', 'tools');
    tools.append(
      this.toolButton('arrow-left', 'Back (Alt+←)', 'back', () => this.run('nav.back')),
      this.toolButton('arrow-right', 'Forward (Alt+→)', 'forward', () => this.run('nav.forward')),
      this.toolButton('location', 'Current leaf (.)', 'leaf', () => this.run('nav.leaf')),
      this.toolButton('screen-full', 'Fit all (0)', 'fit', () => this.run('view.fit')),
      this.toolButton('list-tree', 'Outline (Alt+O)', 'toggle-outline', () => this.run('view.outline')),
      this.toolButton('layout-sidebar-right', 'Details (D)', 'toggle-details', () => this.run('view.details')),
      this.toolButton('question', 'Keyboard shortcuts (?)', 'help', () => this.run('help')),
    );
    header.append(this.titleEl, this.badges, this.filterSel, find, tools);

    this.diagEl = h('div', 'diagnostics');
    this.diagEl.hidden = true;

    const main = h('div', 'main');
    this.detailsEl = h('aside', 'details');
    this.detailsEl.setAttribute('aria-label', 'Details');
    this.detailsEl.tabIndex = -1;
    main.append(this.outline.el, this.graph.el, this.detailsEl);
    this.statusEl = h('footer', 'status');
    this.live = h('div', 'sr-only');
    this.live.setAttribute('aria-live', 'polite');
    this.live.setAttribute('role', 'status');
    root.append(header, this.diagEl, main, this.statusEl, this.live);
    this.applyPanes();
    this.graph.el.addEventListener('pointerdown', () => requestAnimationFrame(() => this.focusTree()));
    document.addEventListener('keydown', (ev) => this.onKey(ev));
    this.renderDetails();
  }

  private readonly saveState: () => void;

  start(): void {
    this.filterSel.value = this.state.filter;
    if (this.state.query) this.query = parseQuery(this.state.query);
    this.bridge.start(window);
    (globalThis as unknown as { __piTree?: unknown }).__piTree = {
      app: this,
      graph: this.graph,
      stats: () => ({ items: this.derived?.items.length ?? 0, rendered: this.graph.renderedCount, visible: this.derived?.visibleCount ?? 0, hits: this.hitOrder.length, selected: this.sel?.key }),
      /** Items intersecting the viewport (benchmark). */
      timings: () => this.timings,
      lastMessageAt: () => this.bridge.lastMessageAt,
      inView: () => (this.layout ? queryItems(this.layout, this.graph.worldRect()).length : 0),
      layoutBounds: () => (this.layout ? { minX: this.layout.minX, maxX: this.layout.maxX, maxY: this.layout.maxY } : undefined),
    };
  }

  // ───────────── host messages ─────────────

  /** A snapshot arriving in parts, applied once whole. */
  private partial: { m: Extract<HostMessage, { type: 'snapshot' }>; nodes: NodeView[]; total: number } | undefined;

  private onHost(m: HostMessage): void {
    if (m.type === 'snapshot' && m.total !== undefined && m.total > m.nodes.length) {
      this.partial = { m, nodes: [...m.nodes], total: m.total };
      return;
    }
    if (m.type === 'snapshotPart') {
      const p = this.partial;
      if (!p || p.m.rev !== m.rev) return;
      for (const n of m.nodes) p.nodes.push(n);
      if (p.nodes.length < p.total) return;
      this.partial = undefined;
      return this.onHost({ ...p.m, nodes: p.nodes, total: undefined });
    }
    switch (m.type) {
      case 'snapshot':
        this.rev = m.rev;
        this.meta = m.meta;
        this.model.load(m.nodes, m.leafId);
        this.textCache.clear();
        this.entryCache.clear();
        this.hitsDirty = true;
        this.updateMeta();
        if (m.meta.restoreToken !== this.state.restoreToken) {
          this.state.restoreToken = m.meta.restoreToken;
          this.saveState();
        }
        // A snapshot is drawn at once (no frame wait): it is what the user waits for.
        this.snapshotPending = true;
        cancelAnimationFrame(this.refreshFrame);
        this.refreshFrame = 0;
        this.rebuild();
        return;
      case 'invoke':
        this.invoke(m.action, m.id);
        return;
      case 'reply':
        return;
    }
    // Deltas older than the snapshot we hold are already in it.
    if (typeof m.rev === 'number') {
      if (m.rev < this.rev) return;
      this.rev = m.rev;
    }
    switch (m.type) {
      case 'appended': {
        const followLeaf = this.sel?.key === this.model.leafId;
        this.model.append(m.nodes);
        this.hitsDirty = true;
        if (followLeaf) this.pendingFollow = true;
        this.refresh();
        break;
      }
      case 'leafMoved': {
        const old = this.model.leafId;
        const oldIdx = this.model.leaf;
        this.model.setLeaf(m.leafId);
        if (this.sel && this.sel.entryId === old && m.leafId) this.pendingSelect = m.leafId;
        if (!this.fastLeafMove(oldIdx, this.model.leaf)) this.refresh();
        this.announce(m.leafId ? `Leaf moved to ${this.describe(m.leafId)}` : 'Leaf moved before the first entry');
        break;
      }
      case 'labelChanged':
        if (this.model.setLabel(m.targetId, m.label)) {
          this.entryCache.delete(m.targetId);
          this.hitsDirty = true;
          this.refresh();
        }
        break;
      case 'renamed':
        if (this.meta) this.meta = { ...this.meta, name: m.name };
        this.updateMeta();
        break;
      case 'meta':
        this.meta = m.meta;
        this.updateMeta();
        this.renderDetails();
        break;
    }
  }

  private pendingFollow = false;
  private pendingSelect: string | undefined;

  private invoke(action: string, id?: string): void {
    if (id && this.model.index.has(id)) this.selectEntry(id, { history: true });
    switch (action) {
      case 'editLabel':
        return this.run('act.label');
      case 'summaryMove':
        return this.run('act.moveSummary');
      case 'find':
        return this.run('find.open');
      case 'focusLeaf':
        return this.run('nav.leaf');
      case 'fit':
        return this.run('view.fit');
      case 'showShortcuts':
        return this.run('help');
      case 'details':
        this.state.details = true;
        this.applyPanes();
        this.detailsEl.focus();
        return;
      case 'select':
        return;
    }
  }

  // ───────────── derive, layout, render ─────────────

  refresh(snapshot = false): void {
    if (snapshot) this.snapshotPending = true;
    if (this.refreshFrame) return;
    this.refreshFrame = requestAnimationFrame(() => {
      this.refreshFrame = 0;
      this.rebuild();
    });
  }
  private snapshotPending = false;
  private initialView: (() => void) | undefined;
  /** Last rebuild's phases in ms (benchmark). */
  timings: Record<string, number> = {};

  private rebuild(): void {
    const model = this.model;
    const n = model.size;
    const t0 = performance.now();
    if (this.hitsDirty) this.computeHits();
    let forced: Uint8Array | undefined;
    if (this.hitOrder.length && this.hitOrder.length <= HIT_SPLIT_MAX) forced = this.hits;
    this.derived = derive({ model, mode: this.state.filter, folded: this.folded, expanded: this.expanded, forced });
    const t1 = performance.now();
    this.layout = layoutTree(this.derived.root);
    const t2 = performance.now();
    this.keyIndex = new Map();
    for (const it of this.derived.items) this.keyIndex.set(it.key, it);
    this.orderHits();
    this.timings = { derive: t1 - t0, layout: t2 - t1 };
    // Selection: same key, else the item showing the entry, else the nearest visible ancestor.
    const first = this.snapshotPending && this.firstSnapshot;
    if (first) {
      const fromState = this.state.sessionId === this.meta?.sessionId ? this.state.selected : undefined;
      const key = fromState && (this.keyIndex.has(fromState) || model.index.has(fromState.replace(/^seg:/, ''))) ? fromState : (model.leafId ?? undefined);
      if (key) this.sel = { key, entryId: key.replace(/^seg:/, '') };
    }
    if (this.pendingSelect) {
      this.sel = { key: this.pendingSelect, entryId: this.pendingSelect };
      this.pendingSelect = undefined;
    } else if (this.pendingFollow && model.leafId) {
      this.sel = { key: model.leafId, entryId: model.leafId };
    }
    this.sel = this.resolveSel(this.sel);
    this.graph.setData(this.layout, this.derived);
    this.outline.setRows(this.derived.rows);
    const it = this.selItem();
    this.outline.setActive(it);
    if (first) {
      this.firstSnapshot = false;
      const v = this.state.sessionId === this.meta?.sessionId ? this.state.view : undefined;
      const place = () => {
        if (v) this.graph.centerOn(v.cx, v.cy, v.k, false);
        else if (it) this.graph.centerOn(it.x, it.y, 0.9, false);
        else this.graph.fit(false);
      };
      if (this.graph.size.w) place();
      else this.initialView = place;
      this.state.sessionId = this.meta?.sessionId;
    } else if (it && (this.pendingFollow || this.snapshotPending)) {
      this.graph.reveal(it, false);
    }
    this.pendingFollow = false;
    this.snapshotPending = false;
    this.timings.total = performance.now() - t0;
    this.updateStatus(n);
    this.updateFindCount();
    if (first) {
      // The details pane (UI-kit buttons, an entry request) waits until the graph is on screen.
      this.graph.maybeRender();
      requestAnimationFrame(() => setTimeout(() => this.renderDetails(), 0));
    } else this.renderDetails();
    this.postSelected();
    this.scheduleSave();
  }

  /**
   * A leaf move that changes no item (the new leaf already has its own item, the old one stays
   * visible) only changes path flags and the outline order: no derive, no layout. Returns false
   * when a full rebuild is needed.
   */
  private fastLeafMove(oldLeaf: number, newLeaf: number): boolean {
    const d = this.derived;
    if (!d || this.refreshFrame || newLeaf < 0) return false;
    const it = d.itemOf[newLeaf];
    if (!it || it.seg || it.entry !== newLeaf) return false;
    if (oldLeaf >= 0 && d.visible[oldLeaf] && !passesFilter(this.model.nodes[oldLeaf], this.state.filter, false)) return false;
    const path = this.model.pathMask();
    for (const x of d.items) {
      x.onPath = path[x.entry] === 1;
      x.isLeaf = !x.seg && x.entry === newLeaf;
    }
    d.rows = outlineRows(d.root);
    this.orderHits();
    if (this.pendingSelect) {
      const key = this.pendingSelect;
      this.pendingSelect = undefined;
      this.sel = { key, entryId: key };
    }
    this.graph.refreshStyles();
    this.outline.setRows(d.rows);
    const sel = this.selItem();
    this.outline.setActive(sel);
    if (sel) this.graph.reveal(sel, false);
    this.renderDetails();
    this.postSelected();
    this.scheduleSave();
    return true;
  }

  private resolveSel(s: Sel | undefined): Sel | undefined {
    const d = this.derived;
    if (!d) return s;
    if (s) {
      if (this.keyIndex.has(s.key)) return s;
      let i = this.model.index.get(s.entryId);
      if (i !== undefined && !d.visible[i]) i = d.vparent[i] >= 0 ? d.vparent[i] : undefined;
      const it = i !== undefined ? d.itemOf[i] : undefined;
      if (it) return { key: it.key, entryId: this.model.nodes[it.entry].id };
    }
    const leaf = this.model.leaf;
    let li = leaf >= 0 ? leaf : -1;
    if (li >= 0 && !d.visible[li]) li = d.vparent[li];
    const it = li >= 0 ? d.itemOf[li] : d.rows[d.rows.length - 1];
    return it ? { key: it.key, entryId: this.model.nodes[it.entry].id } : undefined;
  }

  selItem(): Item | undefined {
    return this.sel ? this.keyIndex.get(this.sel.key) : undefined;
  }

  private hitsIn(it: Item): number {
    if (!this.hitOrder.length) return 0;
    let c = 0;
    for (const e of itemEntries(it)) c += this.hits[e];
    return c;
  }

  private computeHits(): void {
    const n = this.model.size;
    this.hits = new Uint8Array(n);
    this.hitsDirty = false;
    if (!this.query.terms.length) {
      this.hitOrder = [];
      return;
    }
    const nodes = this.model.nodes;
    const leaf = this.model.leaf;
    for (let i = 0; i < n; i++) {
      if (passesFilter(nodes[i], this.state.filter, i === leaf) && matchNode(nodes[i], this.query, this.textCache)) this.hits[i] = 1;
    }
  }

  /** Hits in outline order (row, then position in a segment); hidden ones (folds) are skipped. */
  private orderHits(): void {
    const d = this.derived!;
    const out: number[] = [];
    if (this.query.terms.length) {
      for (const it of d.rows) for (const e of itemEntries(it)) if (this.hits[e]) out.push(e);
    }
    this.hitOrder = out;
    if (this.hitPos >= out.length) this.hitPos = out.length - 1;
  }

  // ───────────── selection and navigation ─────────────

  private select(it: Item | undefined, opts: { history?: boolean; reveal?: boolean; animate?: boolean } = {}): void {
    if (!it) return;
    const prev = this.sel?.key;
    if (opts.history && prev && prev !== it.key) {
      this.back.push(prev);
      if (this.back.length > HISTORY_MAX) this.back.shift();
      this.fwd = [];
    }
    this.sel = { key: it.key, entryId: this.model.nodes[it.entry].id };
    if (prev !== it.key) {
      this.graph.refreshStyles();
      this.outline.refresh();
    }
    this.outline.setActive(it);
    if (opts.reveal !== false) this.graph.reveal(it, opts.animate ?? true);
    this.renderDetails();
    this.postSelected();
    this.scheduleSave();
  }

  /** Selects an entry by id, expanding the segment that hides it (and unfolding) if needed. */
  selectEntry(id: string, opts: { history?: boolean } = {}): void {
    const i = this.model.index.get(id);
    const d = this.derived;
    if (i === undefined || !d) return;
    let it = d.itemOf[i];
    if (it && !it.seg) return this.select(it, opts);
    if (!d.visible[i]) {
      // Hidden by a fold: unfold its ancestors. Hidden by the filter: show the nearest visible one.
      let unfolded = false;
      for (let p = this.model.parent[i]; p >= 0; p = this.model.parent[p]) if (this.folded.delete(this.model.nodes[p].id)) unfolded = true;
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

  private postSelected(): void {
    const it = this.selItem();
    const id = it && !it.seg ? this.model.nodes[it.entry].id : null;
    if (id === this.lastPostedSel) return;
    this.lastPostedSel = id;
    this.bridge.send({ type: 'selected', id });
  }
  private lastPostedSel: string | null | undefined;

  private onPointerSelect(it: Item, how: 'click' | 'dblclick' | 'contextmenu'): void {
    this.select(it, { history: how !== 'dblclick', reveal: false });
    if (how === 'dblclick' && it.seg) this.toggle(it);
    else if (how === 'click' && !it.seg && this.meta?.clickAction === 'move') void this.move(it);
    if (how !== 'contextmenu') this.focusTree();
  }

  private focusTree(): void {
    if (document.activeElement !== this.outline.el) this.outline.el.focus({ preventScroll: true });
  }

  private rowStep(delta: number): void {
    const d = this.derived;
    const it = this.selItem();
    if (!d || !d.rows.length) return;
    const row = it ? it.row : 0;
    const next = Math.max(0, Math.min(d.rows.length - 1, row + delta));
    if (next === row && it) return this.announce(delta < 0 ? 'First row' : 'Last row');
    this.select(d.rows[next], { reveal: true, animate: false });
  }

  private expandedState(it: Item): boolean | undefined {
    if (it.seg) return false;
    if (it.folded) return false;
    if (it.children && it.children.length >= 2) return true;
    if (it.run && it.run.members[0] === it.entry) return true;
    return undefined;
  }

  /** Expand a segment, collapse an expanded run, fold/unfold a branch point. */
  private toggle(it: Item): boolean {
    const nodes = this.model.nodes;
    if (it.seg) {
      this.expanded.add(nodes[it.entry].id);
      this.announce(`Expanded ${it.members!.length} entries`);
      this.sel = { key: nodes[it.entry].id, entryId: nodes[it.entry].id };
      this.refresh();
      return true;
    }
    if (it.run) {
      for (const m of it.run.members) this.expanded.delete(nodes[m].id);
      const head = nodes[it.run.members[0]].id;
      this.sel = { key: 'seg:' + head, entryId: head };
      this.announce('Collapsed the run into a segment');
      this.refresh();
      return true;
    }
    const id = nodes[it.entry].id;
    if (it.folded) {
      this.folded.delete(id);
      this.announce('Unfolded');
      this.refresh();
      return true;
    }
    if (it.children && it.children.length >= 2) {
      this.folded.add(id);
      this.announce('Folded');
      this.refresh();
      return true;
    }
    return false;
  }

  private structural(cmd: CommandId): Item | undefined {
    const it = this.selItem();
    const d = this.derived;
    if (!it || !d) return undefined;
    switch (cmd) {
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
        const k = sib.indexOf(it) + (cmd === 'nav.nextSibling' ? 1 : -1);
        return sib[k];
      }
      case 'nav.collapseOrParent': {
        // APG: the owning item of this indentation run (the branch point above).
        for (let r = it.row - 1; r >= 0; r--) if (d.rows[r].level < it.level) return d.rows[r];
        return undefined;
      }
      case 'nav.expandOrChild':
        return it.children?.[0] && it.children.length >= 2 ? (it.children.find((c) => c.onPath) ?? it.children[0]) : undefined;
    }
    return undefined;
  }

  private seek(pred: (it: Item) => boolean, dir: 1 | -1): Item | undefined {
    const d = this.derived;
    const it = this.selItem();
    if (!d) return undefined;
    const n = d.rows.length;
    const start = it ? it.row : -1;
    for (let k = 1; k <= n; k++) {
      const r = d.rows[(((start + dir * k) % n) + n) % n];
      if (pred(r)) return r;
    }
    return undefined;
  }

  private stepHit(dir: 1 | -1): void {
    if (!this.hitOrder.length) {
      this.announce(this.query.terms.length ? 'No matches' : 'Nothing to find');
      return;
    }
    // Continue from the selection when it is past the last visited hit.
    this.hitPos = (this.hitPos + dir + this.hitOrder.length) % this.hitOrder.length;
    const e = this.hitOrder[this.hitPos];
    this.selectEntry(this.model.nodes[e].id, { history: true });
    this.updateFindCount();
    this.announce(`Match ${this.hitPos + 1} of ${this.hitOrder.length}: ${this.describe(this.model.nodes[e].id)}`);
  }

  // ───────────── commands ─────────────

  private onKey(ev: KeyboardEvent): void {
    const t = ev.target as Element | null;
    const top = this.overlays[this.overlays.length - 1];
    if (ev.key === 'Tab' && top && top.el.classList.contains('overlay')) {
      // Modal dialogs keep focus inside (APG dialog pattern).
      const list = [...top.el.querySelectorAll<HTMLElement>('vscode-button:not([disabled]), vscode-textfield, vscode-textarea, button, summary, a[href]')];
      if (list.length) {
        const i = list.findIndex((x) => x === document.activeElement || x.contains(document.activeElement));
        const next = ev.shiftKey ? (i <= 0 ? list.length - 1 : i - 1) : i < 0 || i === list.length - 1 ? 0 : i + 1;
        if ((ev.shiftKey && i <= 0) || (!ev.shiftKey && (i < 0 || i === list.length - 1))) {
          ev.preventDefault();
          list[next].focus();
        }
      }
      return;
    }
    const inField = !!t?.closest?.('input, textarea, select, vscode-textfield, vscode-textarea, vscode-single-select, [contenteditable="true"]');
    const inOverlay = !!top && !!t && top.el.contains(t);
    const onTree = t === this.outline.el || t === document.body || t === document.documentElement || !!t?.closest?.('.graph');
    const scope = inField || inOverlay || top || !onTree ? 'global' : 'tree';
    const cmd = resolveKey(ev, scope, this.mac);
    if (!cmd) return;
    ev.preventDefault();
    ev.stopPropagation();
    this.run(cmd.id);
  }

  run(id: CommandId): void {
    const d = this.derived;
    const it = this.selItem();
    const go = (x: Item | undefined, history = true, what = 'there') => (x ? this.select(x, { history }) : this.announce(`Nothing ${what}`));
    switch (id) {
      case 'nav.prevRow':
        return this.rowStep(-1);
      case 'nav.nextRow':
        return this.rowStep(1);
      case 'nav.firstRow':
        return d?.rows.length ? this.select(d.rows[0], { history: true }) : undefined;
      case 'nav.lastRow':
        return d?.rows.length ? this.select(d.rows[d.rows.length - 1], { history: true }) : undefined;
      case 'nav.pageUp':
        return this.rowStep(-this.outline.pageSize);
      case 'nav.pageDown':
        return this.rowStep(this.outline.pageSize);
      case 'nav.collapseOrParent':
        if (it && this.expandedState(it) === true && this.toggle(it)) return;
        return go(this.structural(id), true, 'above');
      case 'nav.expandOrChild':
        if (it && this.expandedState(it) === false && this.toggle(it)) return;
        return go(this.structural(id), true, 'below');
      case 'nav.parent':
        return go(this.structural(id), true, 'above: this is a root');
      case 'nav.child':
        return go(this.structural(id), true, 'below: this is a tip');
      case 'nav.prevSibling':
      case 'nav.nextSibling':
        return go(this.structural(id), true, 'beside it: no more siblings');
      case 'nav.nextBranch':
      case 'nav.prevBranch':
        return go(
          this.seek((x) => !!x.children && x.children.length >= 2, id === 'nav.nextBranch' ? 1 : -1),
          true,
          'found: no branch points',
        );
      case 'nav.nextLabel':
      case 'nav.prevLabel':
        return go(
          this.seek((x) => !x.seg && this.model.nodes[x.entry].label !== undefined, id === 'nav.nextLabel' ? 1 : -1),
          true,
          'found: no labels',
        );
      case 'nav.leaf': {
        const leaf = this.model.leafId;
        if (!leaf) return this.announce('The leaf is before the first entry');
        this.selectEntry(leaf, { history: true });
        const x = this.selItem();
        if (x) this.graph.centerOn(x.x, x.y, Math.max(this.graph.view.k, 0.6), true);
        return;
      }
      case 'nav.back':
      case 'nav.forward': {
        const from = id === 'nav.back' ? this.back : this.fwd;
        const to = id === 'nav.back' ? this.fwd : this.back;
        while (from.length) {
          const key = from.pop()!;
          const x = this.keyIndex.get(key) ?? (this.model.index.has(key) ? undefined : undefined);
          if (x || this.model.index.has(key)) {
            if (this.sel) to.push(this.sel.key);
            if (x) this.select(x);
            else this.selectEntry(key);
            return;
          }
        }
        return this.announce(id === 'nav.back' ? 'No earlier entry in the history' : 'No later entry in the history');
      }
      case 'view.toggle':
        if (it && !this.toggle(it)) this.announce('Nothing to expand or collapse here');
        return;
      case 'view.fit':
        return this.graph.fit();
      case 'view.zoomIn':
        return this.graph.zoomAt(1.25);
      case 'view.zoomOut':
        return this.graph.zoomAt(0.8);
      case 'view.panUp':
        return this.graph.panBy(0, 80);
      case 'view.panDown':
        return this.graph.panBy(0, -80);
      case 'view.panLeft':
        return this.graph.panBy(80, 0);
      case 'view.panRight':
        return this.graph.panBy(-80, 0);
      case 'view.details':
        this.state.details = !this.state.details;
        this.applyPanes();
        return this.scheduleSave();
      case 'view.outline':
        this.state.outline = !this.state.outline;
        this.applyPanes();
        return this.scheduleSave();
      case 'filter.next':
      case 'filter.prev':
        return this.setFilter(nextFilter(this.state.filter, id === 'filter.next' ? 1 : -1));
      case 'find.open':
        this.findField.focus();
        (this.findField.shadowRoot?.querySelector('input') as HTMLInputElement | null)?.select();
        return;
      case 'find.next':
        return this.stepHit(1);
      case 'find.prev':
        return this.stepHit(-1);
      case 'escape':
        return this.escape();
      case 'help':
        if (this.overlays.some((o) => o.el.querySelector('[data-dialog="shortcuts"]'))) return;
        openShortcutSheet(this.dialogServices(), this.mac);
        return;
      case 'act.menu':
        return this.openContextMenu();
      case 'act.rename':
        return this.rename();
    }
    if (!it) return this.announce('Nothing selected');
    if (it.seg) {
      if (id === 'act.move') {
        this.toggle(it);
        return;
      }
      return this.announce('Expand the segment first (Enter) to act on one of its entries');
    }
    const n = this.model.nodes[it.entry];
    switch (id) {
      case 'act.move':
        return void this.move(it);
      case 'act.moveSummary':
        return this.moveWithSummary(it);
      case 'act.fork':
        return void this.fork(n);
      case 'act.clone':
        return void this.simple({ kind: 'clone', id: n.id }, 'Cloned the session up to here');
      case 'act.label':
        return this.editLabel(it);
      case 'act.clearLabel':
        if (!this.canWrite()) return;
        if (n.label === undefined) return this.announce('This entry has no label');
        return void this.simple({ kind: 'setLabel', id: n.id }, 'Label cleared');
      case 'act.copy':
        return void this.simple({ kind: 'copyText', id: n.id }, 'Copied the entry text');
      case 'act.continue':
        return void this.simple({ kind: 'continueInPi', id: n.id }, 'Opening pi from this entry');
      case 'act.context':
        return void this.showContext(n.id);
    }
  }

  private escape(): void {
    const top = this.overlays[this.overlays.length - 1];
    if (top) {
      top.close();
      return;
    }
    const active = document.activeElement;
    if (active === this.findField || this.findField.contains(active)) {
      if (this.findField.value) {
        this.findField.value = '';
        this.onFindInput(true);
      } else this.focusTree();
      return;
    }
    if (this.contextFor !== undefined) {
      this.contextFor = undefined;
      this.renderDetails();
      return;
    }
    if (this.query.terms.length) {
      this.findField.value = '';
      this.onFindInput(true);
    }
  }

  private canWrite(): boolean {
    if (this.meta?.readOnly) {
      this.error(`This session cannot be changed: ${this.meta.readOnly}`);
      return false;
    }
    return true;
  }

  private async move(it: Item): Promise<void> {
    if (!this.canWrite()) return;
    const n = this.model.nodes[it.entry];
    try {
      const r = await this.bridge.request<MoveReply>({ kind: 'moveTo', id: n.id });
      this.afterMove(r, n.id);
    } catch (e) {
      this.error((e as Error).message);
    }
  }

  /** The host may answer a move with `cancelled` (the user declined a warning) or fork instead. */
  private afterMove(reply: MoveReply | null, targetId: string | null): void {
    const r = (reply ?? {}) as Partial<MoveReply> & { cancelled?: boolean; fileName?: string };
    if (r.cancelled) return this.announce('Cancelled: nothing was written');
    if (typeof r.fileName === 'string') return this.announce(`Forked into ${r.fileName}`);
    if (!r.moved) this.announce('Already at this point');
    else this.announce(`Moved the leaf${targetId ? ` to ${this.describe(r.leafId ?? targetId)}` : ''}`);
    if (typeof r.editorText === 'string') openEditorTextDialog(this.dialogServices(), targetId, r.editorText);
  }

  private moveWithSummary(it: Item): void {
    if (!this.canWrite()) return;
    const n = this.model.nodes[it.entry];
    openSummaryDialog(this.dialogServices(), { id: n.id, title: short(n.text).slice(0, 60) || n.id }, this.meta?.summariesAvailable ?? false);
  }

  private async fork(n: NodeView): Promise<void> {
    if (n.role !== 'user') return this.announce('Fork works from a user message; use Clone for other entries');
    await this.simple({ kind: 'fork', id: n.id }, 'Forked a new session from this message');
  }

  private async simple(body: RequestBody, done: string): Promise<void> {
    if ((body.kind === 'setLabel' || body.kind === 'rename') && !this.canWrite()) return;
    try {
      const r = (await this.bridge.request<{ cancelled?: boolean; fileName?: string } | null>(body)) ?? {};
      if (r.cancelled) this.announce('Cancelled: nothing was written');
      else this.announce(typeof r.fileName === 'string' ? `${done}: ${r.fileName}` : done);
    } catch (e) {
      this.error((e as Error).message);
    }
  }

  private editLabel(it: Item): void {
    if (!this.canWrite()) return;
    const n = this.model.nodes[it.entry];
    const el = this.graph.elementOf(it);
    let at = { x: 80, y: 80 };
    if (el) {
      const r = el.getBoundingClientRect();
      at = { x: r.left, y: r.bottom + 4 };
    } else {
      const row = this.outline.elementOf(it);
      if (row) {
        const r = row.getBoundingClientRect();
        at = { x: r.left + 20, y: r.bottom + 2 };
      }
    }
    openLabelEditor(this.dialogServices(), { id: n.id, label: n.label }, at);
  }

  private rename(): void {
    if (!this.canWrite() || !this.meta) return;
    if (this.titleEl.querySelector('vscode-textfield')) return;
    const current = this.meta.name ?? '';
    const field = textfield('rename', current, 'Session name');
    const restore = () => this.updateMeta();
    this.titleEl.replaceChildren(field);
    const overlay: Overlay = { el: field, close: () => this.popOverlay(overlay, restore) };
    this.overlays.push(overlay);
    field.addEventListener('keydown', (ev) => {
      const e = ev as KeyboardEvent;
      if (e.key !== 'Enter') return;
      e.preventDefault();
      const name = field.value.trim();
      overlay.close();
      if (name !== current) void this.simple({ kind: 'rename', name }, name ? `Renamed to ${name}` : 'Name cleared');
    });
    requestAnimationFrame(() => field.focus());
  }

  private async showContext(id: string): Promise<void> {
    this.contextFor = id;
    this.state.details = true;
    this.applyPanes();
    this.renderDetails();
    try {
      const c = await this.bridge.request<ContextView>({ kind: 'getContext', id });
      if (this.contextFor !== id) return;
      const body = this.detailsEl.querySelector('.details-body');
      body?.replaceChildren(renderContext(c, this.links()));
      this.announce(`Context at this entry: ${c.messages.length} messages, about ${c.tokens} tokens`);
    } catch (e) {
      this.error((e as Error).message);
    }
  }

  private openContextMenu(): void {
    const it = this.selItem();
    if (!it) return;
    let el: Element | undefined = this.graph.elementOf(it);
    let r = el?.getBoundingClientRect();
    const g = this.graph.el.getBoundingClientRect();
    if (!el || !r || r.bottom < g.top || r.top > g.bottom || r.right < g.left || r.left > g.right) {
      el = this.outline.elementOf(it);
      r = el?.getBoundingClientRect();
    }
    if (!el || !r) return;
    // VS Code opens the native webview/context menu for a contextmenu event on the element.
    el.dispatchEvent(
      new MouseEvent('contextmenu', { bubbles: true, cancelable: true, view: window, button: 2, clientX: Math.round(r.left + Math.min(24, r.width / 2)), clientY: Math.round(r.top + r.height / 2) }),
    );
  }

  private setFilter(mode: FilterMode): void {
    if (mode === this.state.filter) return;
    this.state.filter = mode;
    this.filterSel.value = mode;
    // pi: any filter change clears folds.
    this.folded.clear();
    this.hitsDirty = true;
    this.announce(`Filter: ${FILTER_TITLES[mode]}`);
    this.refresh();
  }

  private findTimer = 0;
  private onFindInput(now = false): void {
    clearTimeout(this.findTimer);
    const apply = () => {
      const q = this.findField.value;
      this.state.query = q;
      this.query = parseQuery(q);
      this.hitPos = -1;
      this.hitsDirty = true;
      this.refresh();
    };
    if (now) apply();
    else this.findTimer = window.setTimeout(apply, 150);
  }

  private updateFindCount(): void {
    if (this.query.error) {
      this.findCount.textContent = this.query.error;
      this.findCount.className = 'find-count error';
      return;
    }
    this.findCount.className = 'find-count';
    if (!this.query.terms.length) this.findCount.textContent = '';
    else if (!this.hitOrder.length) this.findCount.textContent = 'No results';
    else this.findCount.textContent = `${this.hitPos >= 0 ? this.hitPos + 1 : '?'}/${this.hitOrder.length}`;
  }

  // ───────────── overlays ─────────────

  private dialogServices(): DialogServices {
    return {
      push: (o) => {
        this.overlays.push(o);
        this.root.append(o.el);
      },
      pop: (o) => this.popOverlay(o),
      announce: (m) => this.announce(m),
      error: (m) => this.error(m),
      request: <T>(b: RequestBody) => this.bridge.request<T>(b),
      afterMove: (r, id) => this.afterMove(r, id),
    };
  }

  private popOverlay(o: Overlay, after?: () => void): void {
    const i = this.overlays.indexOf(o);
    if (i < 0) return;
    this.overlays.splice(i, 1);
    if (o.el.parentElement === this.root) o.el.remove();
    after?.();
    if (!this.overlays.length) this.focusTree();
  }

  // ───────────── panes, details, status ─────────────

  private toolButton(icon: string, title: string, action: string, onClick: () => void, refocus = true): HTMLButtonElement {
    const b = h('button', 'icon-button');
    b.type = 'button';
    b.title = title;
    b.setAttribute('aria-label', title);
    b.dataset.action = action;
    b.append(h('span', `codicon codicon-${icon}`));
    b.addEventListener('click', () => {
      onClick();
      if (refocus) this.focusTree();
    });
    return b;
  }

  private applyPanes(): void {
    this.root.classList.toggle('no-outline', !this.state.outline);
    this.root.classList.toggle('no-details', !this.state.details);
  }

  private updateMeta(): void {
    const m = this.meta;
    const first = m?.firstMessage?.replace(/\s+/g, ' ').trim();
    const title = m?.name || (first ? (first.length > 80 ? `${first.slice(0, 79)}…` : first) : '') || m?.fileName || 'pi session';
    this.titleEl.replaceChildren(document.createTextNode(title));
    document.title = title;
    this.badges.replaceChildren();
    if (m?.live) {
      const b = h('span', 'badge live', 'live');
      b.title = 'pi is writing this session right now';
      this.badges.append(b);
    }
    this.badges.append(...bridgeBadge(m?.bridge));
    if (m?.readOnly) {
      const b = h('span', 'badge readonly', 'read-only');
      b.title = m.readOnly;
      this.badges.append(b);
    }
    const diags = m?.diagnostics ?? [];
    if (diags.length) {
      const b = h('button', 'badge diag', `${diags.length} ${diags.length === 1 ? 'problem' : 'problems'}`);
      b.type = 'button';
      b.addEventListener('click', () => {
        this.diagEl.hidden = !this.diagEl.hidden;
      });
      this.badges.append(b);
      const ul = h('ul');
      for (const d of diags.slice(0, 200)) ul.append(h('li', `sev-${d.severity}`, `${d.line ? `line ${d.line}: ` : ''}${d.message}`));
      this.diagEl.replaceChildren(ul);
    } else {
      this.diagEl.hidden = true;
    }
  }

  private updateStatus(n: number): void {
    const d = this.derived;
    const filt = FILTER_TITLES[this.state.filter];
    this.statusEl.textContent = `${thousands(n)} entries · ${thousands(d?.visibleCount ?? 0)} shown (${filt}) · ${thousands(d?.items.length ?? 0)} nodes`;
  }

  private links() {
    return { goTo: (id: string) => this.selectEntry(id, { history: true }), markdown: true };
  }

  private renderDetails(): void {
    clearTimeout(this.detailsTimer);
    const el = this.detailsEl;
    const it = this.selItem();
    if (!it) {
      el.replaceChildren(h('p', 'muted', 'Select an entry to see its details.'));
      return;
    }
    const nodes = this.model.nodes;
    const n = nodes[it.entry];
    const head = h('div', 'details-head');
    const body = h('div', 'details-body');
    const actions = h('div', 'details-actions');
    if (it.seg) {
      const m = it.members!;
      head.append(h('h2', undefined, `${m.length} entries`), h('p', 'muted', 'A run of entries without branches, shown as one node.'));
      const expand = button('Expand', 'expand', { icon: 'unfold' });
      expand.addEventListener('click', () => this.toggle(it));
      actions.append(expand);
      const ol = h('ol', 'seg-list');
      for (const e of m.slice(0, 200)) {
        const li = h('li');
        const b = h('button', 'link', nodes[e].text || `[${nodes[e].type}]`);
        b.type = 'button';
        b.addEventListener('click', () => this.selectEntry(nodes[e].id, { history: true }));
        li.append(b);
        ol.append(li);
      }
      if (m.length > 200) ol.append(h('li', 'muted', `… ${m.length - 200} more`));
      body.append(ol);
      el.replaceChildren(head, actions, body);
      return;
    }
    const title = h('h2');
    title.append(h('span', `codicon codicon-${'circle-filled'} kind-dot k-${n.kind}`), document.createTextNode(` ${KIND_NAMES[n.kind] ?? n.type}`));
    head.append(title);
    if (n.label !== undefined) head.append(h('span', 'label-badge', n.label));
    const facts = h('p', 'muted facts');
    facts.append(document.createTextNode(`${n.time ? localTime(n.time) : ''} · `), h('code', undefined, n.id));
    if (it.isLeaf) facts.append(document.createTextNode(' · current leaf'));
    else if (it.onPath) facts.append(document.createTextNode(' · on the current path'));
    const cost = [n.model, n.tokens ? `${thousands(n.tokens)} tokens` : '', n.cost ? `$${n.cost.toFixed(4)}` : ''].filter(Boolean).join(' · ');
    head.append(facts);
    if (cost) head.append(h('p', 'muted', cost));
    const ro = this.meta?.readOnly;
    const add = (label: string, action: string, icon: string, fn: () => void, write = false, extra: { disabled?: boolean; title?: string; secondary?: boolean } = {}) => {
      const b = button(label, action, { icon, secondary: extra.secondary ?? true, disabled: extra.disabled || (write && !!ro), title: write && ro ? `Read-only: ${ro}` : extra.title });
      b.addEventListener('click', () => {
        if (!b.hasAttribute('disabled')) fn();
      });
      actions.append(b);
    };
    add(n.role === 'user' ? 'Move before this message' : 'Move here', 'move', 'debug-step-over', () => this.run('act.move'), true, { secondary: false, disabled: it.isLeaf });
    add('Move with summary…', 'move-summary', 'git-merge', () => this.run('act.moveSummary'), true, { disabled: it.isLeaf });
    if (n.role === 'user') add('Fork', 'fork', 'repo-forked', () => this.run('act.fork'));
    add('Clone to here', 'clone', 'copy', () => this.run('act.clone'));
    add(n.label !== undefined ? 'Edit label' : 'Label…', 'label', 'tag', () => this.run('act.label'), true);
    if (n.label !== undefined) add('Clear label', 'clear-label', 'close', () => this.run('act.clearLabel'), true);
    add('Copy text', 'copy', 'clippy', () => this.run('act.copy'));
    add('Continue in pi', 'continue', 'terminal', () => this.run('act.continue'));
    add('Context here', 'context', 'eye', () => this.run('act.context'));
    if (this.contextFor === n.id) {
      const back = h('button', 'link', '← Back to the entry');
      back.type = 'button';
      back.addEventListener('click', () => {
        this.contextFor = undefined;
        this.renderDetails();
      });
      head.append(h('h3', undefined, 'Context if the leaf were here'), back);
      body.append(h('p', 'muted', 'Loading the context…'));
      el.replaceChildren(head, actions, body);
      return;
    }
    this.contextFor = undefined;
    el.replaceChildren(head, actions, body);
    const cached = this.entryCache.get(n.id);
    if (cached) {
      body.replaceChildren(renderEntry(cached, this.links()));
      return;
    }
    body.append(h('p', 'muted', n.text));
    const id = n.id;
    // Fetched on demand, a little after the selection settles (arrowing through rows stays cheap).
    this.detailsTimer = window.setTimeout(async () => {
      try {
        const det = await this.bridge.request<EntryDetails>({ kind: 'getEntry', id });
        this.entryCache.set(id, det);
        if (this.entryCache.size > 100) this.entryCache.delete(this.entryCache.keys().next().value!);
        if (this.sel?.entryId !== id || this.contextFor !== undefined) return;
        body.replaceChildren(renderEntry(det, this.links()));
      } catch (e) {
        if (this.sel?.entryId === id) body.replaceChildren(h('p', 'error', (e as Error).message));
      }
    }, 120);
  }

  private ariaLabel(it: Item): string {
    const nodes = this.model.nodes;
    if (it.seg) {
      const m = it.members!;
      return segmentAriaLabel(nodes[m[0]], nodes[m[m.length - 1]], m.length, it.onPath, this.hitsIn(it));
    }
    return nodeAriaLabel(
      nodes[it.entry],
      { isLeaf: it.isLeaf, onPath: it.onPath, children: it.children?.length ?? 0, folded: it.folded ? it.hidden : undefined, hit: this.hits[it.entry] === 1 },
      Date.now(),
    );
  }

  private vscodeContext(it: Item): string {
    if (it.seg) return JSON.stringify({ webviewSection: 'segment', preventDefaultContextMenuItems: true });
    const n = this.model.nodes[it.entry];
    return JSON.stringify({
      webviewSection: 'node',
      entryId: n.id,
      entryRole: n.role ?? n.kind,
      entryKind: n.kind,
      labelled: n.label !== undefined,
      isLeaf: it.isLeaf,
      preventDefaultContextMenuItems: true,
    });
  }

  private describe(id: string): string {
    const i = this.model.index.get(id);
    if (i === undefined) return id;
    const n = this.model.nodes[i];
    return `${KIND_NAMES[n.kind] ?? n.type}: ${short(n.text).slice(0, 60)}`;
  }

  announce(msg: string): void {
    // Re-setting the same text would not be announced again.
    this.live.textContent = this.live.textContent === msg ? `${msg} ` : msg;
    this.statusEl.dataset.message = msg;
  }

  error(msg: string): void {
    this.announce(msg);
    const t = h('div', 'toast error', msg);
    t.setAttribute('role', 'alert');
    this.root.append(t);
    setTimeout(() => t.remove(), 6000);
  }

  // ───────────── persisted state ─────────────

  private scheduleSave(): void {
    clearTimeout(this.saveTimer);
    this.saveTimer = window.setTimeout(() => this.saveState(), 250);
  }

  private snapshotState(): SavedState {
    const c = this.graph.center();
    return {
      v: STATE_VERSION,
      sessionId: this.meta?.sessionId ?? this.state.sessionId,
      restoreToken: this.meta?.restoreToken ?? this.state.restoreToken,
      selected: this.sel?.key,
      view: { cx: c.x, cy: c.y, k: this.graph.view.k },
      filter: this.state.filter,
      query: this.state.query,
      expanded: capIds(this.expanded),
      folded: capIds(this.folded),
      outline: this.state.outline,
      details: this.state.details,
    };
  }
}

/** 12345 → "12,345" (Intl is slow to start in a fresh webview). */
function thousands(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Local date and time as YYYY-MM-DD HH:MM:SS (no Intl: it is slow to start). */
function localTime(ms: number): string {
  const d = new Date(ms);
  const p = (x: number) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
