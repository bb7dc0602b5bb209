// The tree webview app, as wiring: it builds the parts (host sync, tree view, graph, outline, details,
// toolbar, find, actions, persistence, the panes and hover card), connects them, and turns host messages
// into model changes. What each part does lives in its own module; commands are in app/commands.ts,
// the panes and the hover card's anchoring in app/paneLayout.ts.
import type { FamilyLink, InvokeAction, NodeView, SessionMeta, TreeLayout } from '../../src/protocol';
import type { FilterMode } from '../../src/shared/treeFilter';
import { AskBox } from '../details/askBox';
import { DetailsPane } from '../details/detailsPane';
import { applyLinks, isLink } from '../family/familyNodes';
import { GraphView } from '../graph/graphView';
import type { Item } from '../model/derive';
import { TreeModel } from '../model/treeModel';
import { describeEntry, itemAriaLabel } from '../outline/ariaText';
import type { SavedState } from '../model/savedState';
import { OutlineView } from '../outline/outlineView';
import { h } from '../ui/dom';
import { openEditorTextDialog } from '../ui/editorTextDialog';
import { FILTER_TITLES } from '../ui/filterTitles';
import { HoverCard } from '../ui/hoverCard';
import { LoadingIndicator } from '../ui/loading';
import { OverlayStack } from '../ui/overlays';
import { after, onFrame } from '../ui/schedule';
import { openShortcutSheet } from '../ui/shortcutSheet';
import { StatusBar } from '../ui/statusBar';
import { Toolbar } from '../ui/toolbar';
import { HostChannel, type VsCodeApi } from './hostChannel';
import { CompareActions } from './compareActions';
import { runCommand, runInvoke, type CommandContext } from './commands';
import { openContextMenu } from './contextMenu';
import {
  actionHooks,
  askHooks,
  codeViewHooks,
  detailsHooks,
  findHooks,
  itemHooks,
  treeHooks,
  type HookedApp,
} from './appHooks';
import { PaneLayout } from './paneLayout';
import { EntryActions } from './entryActions';
import { FindController } from './findController';
import { HostSync, type FirstScreen, type Snapshot, type SyncTarget } from './hostSync';
import { bindKeyboard } from './keyboard';
import type { CommandId } from './keymap';
import { expandedState } from './navigation';
import { Persistence } from './persistence';
import { TreeView } from './treeView';

export class App implements CommandContext, SyncTarget, HookedApp {
  readonly model = new TreeModel();
  meta: SessionMeta | undefined;
  readonly host: HostChannel;
  readonly persistence: Persistence;
  readonly overlays: OverlayStack;
  readonly status: StatusBar;
  readonly find: FindController;
  readonly toolbar: Toolbar;
  readonly graph: GraphView;
  readonly outline: OutlineView;
  readonly details: DetailsPane;
  readonly askBox: AskBox;
  readonly tree: TreeView;
  readonly actions: EntryActions;
  readonly hover: HoverCard;
  readonly compareActions: CompareActions;
  private readonly panes: PaneLayout;
  private readonly loading = new LoadingIndicator();
  private readonly sync = new HostSync(this);
  private readonly mac = /Mac|iPhone|iPad/.test(navigator.platform);
  /** Family link nodes in the model (not entries: the status line leaves them out). */
  private links = 0;
  /** The entry last reported to the host as selected. */
  private postedSel: string | null | undefined;

  constructor(root: HTMLElement, api: VsCodeApi) {
    this.host = new HostChannel(api, (m) => this.sync.receive(m));
    this.persistence = new Persistence(api, () => this.savedNow());
    const state = this.persistence.state;
    const request = this.host.request.bind(this.host);
    this.overlays = new OverlayStack(root, () => this.focusTree());
    this.status = new StatusBar(root);
    this.find = new FindController(this.model, findHooks(this, state), state.query);
    this.compareActions = new CompareActions(this.model, codeViewHooks(this, request));
    this.toolbar = new Toolbar(
      {
        run: (id) => this.run(id),
        setFilter: (m) => this.setFilter(m),
        setLayout: (l) => this.setLayout(l),
        focusTree: () => this.focusTree(),
      },
      this.overlays,
      this.find.el,
    );
    const common = itemHooks(this);
    this.graph = new GraphView({
      ...common,
      onViewChange: () => this.persistence.scheduleSave(),
      itemForKey: (k) => this.tree.keyIndex.get(k),
      // The first size places the first view; the graph coming back (rows, a narrow window) frames the selection.
      onFirstSize: () => {
        const it = this.tree.selItem();
        if (!this.tree.placeInitialView() && it) this.graph.frameAround(it, false);
      },
    });
    this.outline = new OutlineView({
      ...common,
      ariaLabel: (it) => itemAriaLabel(it, this.model.nodes, this.find.hits),
      expandedState,
    });
    this.tree = new TreeView(this.model, this.graph, this.outline, treeHooks(this, state), state);
    this.askBox = new AskBox(askHooks(this, request));
    this.details = new DetailsPane(detailsHooks(this, request, () => this.panes.revealDetails()));
    this.actions = new EntryActions(this.model, actionHooks(this, request));
    this.hover = new HoverCard({
      nodes: () => this.model.nodes,
      request,
      describedEl: this.outline.el,
      focusTree: () => this.focusTree(),
    });
    this.panes = this.layOut(root, state);
    this.graph.pane.addEventListener('pointerdown', () => onFrame(() => this.focusTree()));
    bindKeyboard(document, {
      overlays: this.overlays,
      treeEl: this.outline.el,
      mac: this.mac,
      run: (id) => this.run(id),
    });
    this.details.render();
  }

  /** The UI state as it is now, for Persistence to save. */
  private savedNow() {
    const c = this.graph.center();
    return {
      sessionId: this.meta?.sessionId,
      restoreToken: this.meta?.restoreToken,
      selected: this.tree.selection.key,
      view: { cx: c.x, cy: c.y, k: this.graph.view.k },
      expanded: this.tree.expanded,
      folded: this.tree.folded,
    };
  }

  /** The parts put in the page, and the panes that size them. */
  private layOut(root: HTMLElement, state: SavedState): PaneLayout {
    const main = h('div', 'main');
    main.append(this.outline.pane, this.graph.pane, this.details.el, this.loading.el);
    root.append(this.toolbar.el, this.toolbar.diagnostics, main, this.status.el, this.status.live);
    return new PaneLayout(root, main, state, {
      graph: this.graph,
      outline: this.outline,
      details: this.details,
      toolbar: this.toolbar,
      tree: this.tree,
      hover: this.hover,
      announce: (m) => this.announce(m),
      changed: () => this.persistence.scheduleSave(),
      focusTree: () => this.focusTree(),
    });
  }

  start(): void {
    this.toolbar.setFilter(this.persistence.state.filter);
    this.find.start(this.persistence.state.query);
    this.host.start(window);
  }

  // ───────────── host messages (app/hostSync.ts) ─────────────

  onLoading(loaded: number, total: number | undefined): void {
    this.loading.progress(loaded, total, this.model.size > 0);
  }

  onFirstScreen(m: FirstScreen): void {
    // The host holds the whole file's read until this screen is painted (it would take the cores now).
    const shown = () => void requestAnimationFrame(() => setTimeout(() => this.host.send({ type: 'shown' })));
    // A session this view has shown before opens where the user left it, a place in the whole tree.
    if (this.persistence.savedView(m.meta.sessionId)?.view) return shown();
    // A tree already shown (the file was re-read from the start) stays until the new one is whole.
    if (this.model.size > 0 && this.meta?.sessionId === m.meta.sessionId) return shown();
    this.onSnapshot({ type: 'snapshot', rev: m.rev, meta: m.meta, leafId: m.leafId, nodes: m.nodes }, true);
    shown();
  }

  onSnapshot(m: Snapshot, firstScreen = false): void {
    this.meta = m.meta;
    this.panes.setDefaultLayout(m.meta.defaultLayout);
    this.compareActions.setMeta(m.meta);
    this.model.load(m.nodes, m.leafId);
    this.links = 0;
    this.find.hits.clearCache();
    this.details.forget();
    this.find.markDirty();
    this.toolbar.showMeta(this.meta);
    const state = this.persistence.state;
    // The setting's filter applies to a session this view has not shown before; a choice the user made
    // for this session (kept in the state) wins.
    if (state.sessionId !== m.meta.sessionId && m.meta.defaultFilter && m.meta.defaultFilter !== state.filter) {
      state.filter = m.meta.defaultFilter;
      this.toolbar.setFilter(state.filter);
    }
    if (m.meta.restoreToken !== state.restoreToken) {
      state.restoreToken = m.meta.restoreToken;
      this.persistence.save();
    }
    this.tree.showSnapshot(firstScreen);
  }

  /** `leafId`: where the entries moved the leaf (one pass for both: see the protocol's `appended`). */
  onAppended(nodes: NodeView[], leafId?: string | null): void {
    const followLeaf = this.tree.onLeaf();
    this.model.append(nodes);
    this.find.markDirty();
    this.tree.refreshTail({ followLeaf });
    if (leafId !== undefined) this.onLeafMoved(leafId);
  }

  onLeafMoved(leafId: string | null): void {
    const old = this.model.leafId;
    // Already shown (a move shown at the click, which the host's write now confirms).
    if (leafId === old) return;
    const oldIdx = this.model.leaf;
    this.model.setLeaf(leafId);
    this.tree.leafMoved(oldIdx, old, leafId);
    this.announce(leafId ? `Leaf moved to ${describeEntry(this.model, leafId)}` : 'Leaf moved before the first entry');
  }

  onLabelChanged(targetId: string, label: string | undefined): void {
    if (!this.model.setLabel(targetId, label)) return;
    this.details.forget(targetId);
    this.find.markDirty();
    this.tree.refresh();
  }

  onRenamed(name: string | undefined): void {
    // A name given now is the title (the host's next meta says the same).
    if (this.meta) this.meta = { ...this.meta, name, title: undefined };
    this.toolbar.showMeta(this.meta);
  }

  onMeta(meta: SessionMeta): void {
    this.meta = meta;
    this.panes.setDefaultLayout(meta.defaultLayout);
    const hiddenChanged = this.compareActions.setMeta(meta);
    this.toolbar.showMeta(meta);
    if (hiddenChanged) this.tree.refresh();
    else this.details.render();
  }

  /** The family's link nodes (the host sends them after each snapshot and when they change). */
  onFamily(links: FamilyLink[]): void {
    applyLinks(this.model, links);
    this.links = this.model.nodes.filter(isLink).length;
    this.find.markDirty();
    // Links arrive after the tree is drawn and move its cards: the framed view follows.
    this.tree.refresh({ reframe: true });
  }

  /**
   * Entries with a checkpoint: their marks are drawn again (a restyle), and laid out again when a mark
   * came or went on an entry drawn inside a run (a checkpoint keeps its entry its own node).
   */
  onCodeMarks(ids: string[], off: string | undefined): void {
    const before = this.compareActions.codeMarks;
    this.compareActions.setCodeMarks(ids, off);
    const after = this.compareActions.codeMarks;
    const inRun = (id: string) => {
      const i = this.model.index.get(id);
      return i !== undefined && !!this.tree.derived?.itemOf[i]?.seg;
    };
    if ([...after].some((id) => !before.has(id) && inRun(id)) || [...before].some((id) => !after.has(id)))
      this.tree.refresh();
    this.graph.refreshStyles();
    this.outline.refresh();
    this.details.render();
  }

  onInvoke(action: InvokeAction, id: string | undefined, text: string | undefined): void {
    // A fork from a user message opens here: its text is offered for re-editing, as after a move.
    if (action === 'editorText' && text !== undefined)
      return void openEditorTextDialog(this.actions.dialogs(), null, text, 'fork');
    runInvoke(this, action, id, text);
  }

  // ───────────── commands (app/commands.ts) ─────────────

  run(id: CommandId): void {
    runCommand(this, id);
  }

  filterMode(): FilterMode {
    return this.persistence.state.filter;
  }

  setFilter(mode: FilterMode): void {
    if (mode === this.persistence.state.filter) return;
    this.persistence.state.filter = mode;
    this.toolbar.setFilter(mode);
    // pi: any filter change clears folds.
    this.tree.folded.clear();
    this.find.markDirty();
    this.announce(`Filter: ${FILTER_TITLES[mode]}`);
    this.tree.refresh();
  }

  togglePane(pane: 'outline' | 'details'): void {
    this.panes.togglePane(pane);
  }

  get layout(): TreeLayout {
    return this.panes.layout;
  }

  setLayout(layout: TreeLayout): void {
    this.panes.setLayout(layout);
  }

  hoverSelection(): void {
    this.panes.hoverSelection();
  }

  showDetails(): void {
    this.panes.showDetails();
  }

  openShortcuts(): void {
    if (this.overlays.some((o) => !!o.el.querySelector('[data-dialog="shortcuts"]'))) return;
    openShortcutSheet(this.overlays, this.mac);
  }

  openContextMenu(): void {
    const it = this.tree.selItem();
    if (it) openContextMenu(it, this.graph, this.outline);
  }

  announce(msg: string): void {
    this.status.announce(msg);
  }

  error(msg: string): void {
    this.status.error(msg);
  }

  focusTree(): void {
    if (document.activeElement !== this.outline.el) this.outline.el.focus({ preventScroll: true });
  }

  // ───────────── glue (called by the parts, through appHooks.ts) ─────────────

  rebuilt(first: boolean, entries: number): void {
    const d = this.tree.derived;
    if (!this.tree.showingFirstScreen) this.loading.done();
    this.hover.forget();
    this.toolbar.extra.replaceChildren(...this.compareActions.hiddenBadge(), ...this.compareActions.compareChip());
    this.status.update(entries - this.links, d?.visibleCount ?? 0, d?.items.length ?? 0, this.filterMode());
    this.find.afterPass();
    if (first) {
      // The details pane (UI-kit buttons, an entry request) waits until the graph is on screen.
      this.graph.maybeRender();
      onFrame(() => after(0, () => this.details.render()));
    } else this.details.render();
    this.postSelected();
    this.persistence.scheduleSave();
  }

  /** An entry was marked for compare, or the mark went: header, nodes, rows and details show it. */
  marksChanged(): void {
    this.toolbar.extra.replaceChildren(...this.compareActions.hiddenBadge(), ...this.compareActions.compareChip());
    this.graph.refreshStyles();
    this.outline.refresh();
    this.details.render();
  }

  selectionChanged(): void {
    this.panes.selectionChanged();
    this.details.render();
    this.postSelected();
    this.persistence.scheduleSave();
  }

  /** Tells the host which entry is selected (native menu commands and "Show in tree" use it). */
  private postSelected(): void {
    const it = this.tree.selItem();
    const n = it && !it.seg ? this.model.nodes[it.entry] : undefined;
    const id = n && !isLink(n) ? n.id : null;
    if (id === this.postedSel) return;
    this.postedSel = id;
    this.host.send({ type: 'selected', id });
  }

  onPointerSelect(it: Item, how: 'click' | 'dblclick' | 'contextmenu'): void {
    this.tree.select(it, { history: how !== 'dblclick', reveal: false });
    if (how === 'dblclick' && it.seg) this.tree.toggle(it);
    else if (how === 'dblclick' && isLink(this.model.nodes[it.entry]))
      void this.compareActions.openLink(this.model.nodes[it.entry]);
    else if (how === 'click' && !it.seg && this.meta?.clickAction === 'move') void this.actions.move(it);
    if (how !== 'contextmenu') this.focusTree();
  }
}
