// Where the graph's view goes after a full pass of the tree view: the first screen's placement (a saved
// view, else framed around the selection), and after later passes the reason that applies first
// (a move to frame, links that moved the cards, the whole tree after a first screen, a framing under
// way, a view still as a framing left it, a leaf to follow).
import type { GraphView } from '../graph/graphView';
import type { Item } from '../model/derive';
import type { ViewState } from '../model/savedState';

/**
 * The first view of a session: where the user left it (`saved`), else framed around the selection (the
 * leaf): its path above and below and the branches leaving it, at a readable zoom.
 */
export function firstPlacement(graph: GraphView, it: Item | undefined, saved: ViewState | undefined): () => void {
  return () => {
    if (saved) graph.centerOn(saved.cx, saved.cy, saved.k, false);
    else if (it) graph.frameAround(it, false);
    else graph.fit(undefined, false);
  };
}

/** What happened since the last full pass that decides where the view goes. */
export interface PassReasons {
  /** The leaf moved to (or with) the selection. */
  frame: boolean;
  /** The layout changed under a framed view (family links). */
  reframe: boolean;
  /** The whole tree replaced a first screen. */
  afterFirstScreen: boolean;
  /** The selection follows the leaf, or a snapshot arrived. */
  reveal: boolean;
}

/** After a full pass other than the first: frames, places or reveals the selection `it` as `why` asks. */
export function placeAfterPass(graph: GraphView, it: Item, why: PassReasons): void {
  if (why.frame) {
    graph.frameAround(it);
  } else if (why.reframe && graph.stillFramed()) {
    graph.frameAround(it, false);
  } else if (why.afterFirstScreen && graph.stillPlaced()) {
    // Placed on the first screen (framed on open, or Fit / the overview asked for meanwhile): placed
    // again on the whole tree.
    const how = graph.stillPlaced();
    if (how === 'overview') graph.overview(false);
    else if (how === 'fit') graph.fit(it, false);
    else graph.frameAround(it, false);
  } else if (graph.framing()) {
    // A move shown at the click is being framed when its write's entries arrive: frame on the new layout.
    graph.frameAround(it);
  } else if (graph.stillFramed()) {
    // A new layout under a view still as a framing left it (a fast move kept the old main line): frame again.
    graph.frameAround(it, false);
  } else if (why.reveal) {
    graph.reveal(it, false);
  }
}
