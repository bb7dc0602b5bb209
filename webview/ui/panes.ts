// Which panes are shown, as classes on the app root: the outline list and the details pane (persisted
// UI state), the layout (the graph, or rows like git-graph), and `narrow` when the panes would squeeze
// the graph out of sight. At a narrow width the outline list gives way to the graph (the layout
// switch in the toolbar stays visible, so the graph can always be brought back) and the details pane
// narrows; narrower still, the details go below the graph (`stacked`), so their buttons keep their
// width. The choices the user made are kept for when there is room again.
import type { TreeLayout } from '../../src/protocol';

/** The graph needs at least this many pixels; below it the layout turns `narrow`. */
export const MIN_GRAPH_W = 320;
/** The side panes' widths at a panes' row `w` pixels wide (as styles.css sizes them) and the minimap's. */
const outlineW = (w: number) => Math.min(300, Math.max(200, w * 0.22));
const detailsW = (w: number) => Math.min(360, Math.max(260, w * 0.28));
const MINIMAP_W = 56;
/**
 * Below this width the details pane beside the graph (at most 42% when narrow) would be too thin for its
 * buttons: it goes below the graph instead, the whole width.
 */
export const STACK_W = 620;

export interface PaneState {
  outline: boolean;
  details: boolean;
  /** The user's choice of layout (persisted); unset: `defaultLayout`. */
  layout?: TreeLayout;
}

export class Panes {
  /** True while the window is too narrow for the outline, the graph and the details side by side. */
  narrow = false;
  /** True while it is too narrow even for the details beside the graph: the details go below it. */
  stacked = false;
  /** Called after the layout or the width class changed (the graph re-measures itself). */
  onChange: () => void = () => {};
  /** The layout until the user picks one (the piTree.tree.view setting). */
  private fallback: TreeLayout = 'graph';

  constructor(
    private readonly root: HTMLElement,
    private readonly state: PaneState,
  ) {
    this.apply();
  }

  /** Watches the width of the panes' container. */
  observe(main: HTMLElement): void {
    new ResizeObserver((entries) => {
      const w = entries[entries.length - 1].contentRect.width;
      const narrow = w > 0 && w - outlineW(w) - detailsW(w) - MINIMAP_W < MIN_GRAPH_W;
      const stacked = w > 0 && w < STACK_W;
      if (narrow === this.narrow && stacked === this.stacked) return;
      this.narrow = narrow;
      this.stacked = stacked;
      this.apply();
    }).observe(main);
  }

  toggle(pane: 'outline' | 'details'): void {
    this.state[pane] = !this.state[pane];
    this.apply();
  }

  show(pane: 'outline' | 'details'): void {
    this.state[pane] = true;
    this.apply();
  }

  get layout(): TreeLayout {
    return this.state.layout ?? this.fallback;
  }

  /** The user's choice (kept in the UI state). */
  setLayout(layout: TreeLayout): void {
    if (layout === this.layout && this.state.layout) return;
    this.state.layout = layout;
    this.apply();
  }

  /** The setting's layout, used while the user has not picked one. */
  setDefaultLayout(layout: TreeLayout | undefined): void {
    if (!layout || layout === this.fallback) return;
    this.fallback = layout;
    this.apply();
  }

  /** Whether the outline list is on screen (hidden by the user, by rows, or for room). */
  get outlineShown(): boolean {
    return this.layout === 'rows' || (this.state.outline && !this.narrow);
  }

  private apply(): void {
    const c = this.root.classList;
    c.toggle('no-outline', !this.state.outline);
    c.toggle('no-details', !this.state.details);
    c.toggle('layout-rows', this.layout === 'rows');
    c.toggle('narrow', this.narrow);
    c.toggle('stacked', this.stacked);
    this.onChange();
  }
}
