// What the tree shows around its selection: the panes (outline, graph or rows, details; the narrow
// layout), the switch between the graph and rows, and the hover card, anchored on the selection's node
// when it is in view in the graph, else on its row. When the panes change, the graph frames the
// selection at its new size.
import type { TreeLayout } from '../../src/protocol';
import type { DetailsPane } from '../details/detailsPane';
import type { GraphView } from '../graph/graphView';
import type { Item } from '../model/derive';
import type { OutlineView } from '../outline/outlineView';
import type { HoverCard } from '../ui/hoverCard';
import { Panes, type PaneState } from '../ui/panes';
import type { Toolbar } from '../ui/toolbar';
import type { TreeView } from './treeView';

export interface PaneLayoutHost {
  graph: GraphView;
  outline: OutlineView;
  details: DetailsPane;
  toolbar: Toolbar;
  tree: TreeView;
  hover: HoverCard;
  announce(msg: string): void;
  /** The UI state changed (saved a little later). */
  changed(): void;
  focusTree(): void;
}

export class PaneLayout {
  private readonly panes: Panes;

  constructor(
    root: HTMLElement,
    main: HTMLElement,
    state: PaneState,
    private readonly host: PaneLayoutHost,
  ) {
    this.panes = new Panes(root, state);
    this.panes.onChange = () => this.panesChanged();
    this.panes.observe(main);
    const { graph, outline, tree, hover } = host;
    hover.watch(graph.el, (t) => {
      const g = t.closest?.('g.node') as SVGGElement | null;
      const it = g?.dataset.key ? tree.keyIndex.get(g.dataset.key) : undefined;
      return it && g ? { it, anchor: g } : undefined;
    });
    hover.watch(outline.el, (t) => {
      const row = t.closest?.('[role="treeitem"]') as HTMLElement | null;
      const it = row ? tree.derived?.rows[Number(row.dataset.row)] : undefined;
      return it && row ? { it, anchor: row.querySelector('.text') ?? row } : undefined;
    });
  }

  get layout(): TreeLayout {
    return this.panes.layout;
  }

  /** The graph or one row per entry (the user's choice, kept for this view). */
  setLayout(layout: TreeLayout): void {
    this.panes.setLayout(layout);
    this.host.announce(layout === 'rows' ? 'Rows: one row per entry with its time, model and tokens' : 'Graph');
    this.host.changed();
    this.host.focusTree();
  }

  /** The setting's layout, used while the user has not picked one. */
  setDefaultLayout(layout: TreeLayout | undefined): void {
    this.panes.setDefaultLayout(layout);
  }

  togglePane(pane: 'outline' | 'details'): void {
    this.panes.toggle(pane);
    if (pane === 'outline' && this.panes.narrow && this.panes.layout === 'graph')
      this.host.announce(
        'There is no room for the outline next to the graph at this width: it shows when the view is wider (or switch to rows with V)',
      );
    this.host.changed();
  }

  showDetails(): void {
    this.panes.show('details');
    this.host.details.el.focus();
  }

  /** Makes the details pane visible (an action that shows its result there). */
  revealDetails(): void {
    this.panes.show('details');
  }

  /** The hover card of the selection, by key (I); again: focus moves into it. */
  hoverSelection(): void {
    const it = this.host.tree.selItem();
    this.host.hover.toggleByKey(it, it ? this.anchorOf(it) : undefined);
  }

  /** A card open by key follows the selection. */
  selectionChanged(): void {
    const it = this.host.tree.selItem();
    this.host.hover.follow(it, () => (it ? this.anchorOf(it) : undefined));
  }

  /** Where a card for `it` goes: its node when in view in the graph, else its row. */
  private anchorOf(it: Item): Element | undefined {
    const { graph, outline } = this.host;
    const node = this.panes.layout === 'graph' ? graph.elementOf(it) : undefined;
    const r = node?.getBoundingClientRect();
    const g = graph.el.getBoundingClientRect();
    if (node && r && r.bottom > g.top && r.top < g.bottom && r.right > g.left && r.left < g.right) return node;
    const row = outline.elementOf(it);
    return row?.querySelector('.text') ?? row;
  }

  private panesChanged(): void {
    const layout = this.panes.layout;
    // The graph may have changed size: it shows the selection's neighbourhood at the new size.
    this.host.graph.frameAfterResize(this.host.tree.selItem());
    this.host.outline.setMode(layout === 'rows' ? 'rows' : 'tree');
    this.host.toolbar.showLayout(layout, this.panes.narrow);
  }
}
