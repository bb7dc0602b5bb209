// What the test build (dist/test/webview.js, built with __PI_TREE_TEST__) exposes on `window.__piTree`
// for the browser tests and the benchmark: the app's parts, counts, timings and an idle signal. The
// shipped bundle is built without it (scripts/build.mjs), so it puts nothing on `window`.
import type { GraphView } from '../graph/graphView';
import type { Derived } from '../model/derive';
import { queryItems } from '../model/layout';
import type { TreeModel } from '../model/treeModel';
import { busy, whenIdle } from '../ui/schedule';
import type { App } from './app';

export interface PiTreeTestHooks {
  app: App;
  model: TreeModel;
  graph: GraphView;
  derived(): Derived | undefined;
  stats(): { items: number; rendered: number; visible: number; hits: number; selected?: string };
  /** Last pass's phases in ms, and the last full draw of the graph (`render`). */
  timings(): Record<string, number>;
  /** When the last host message arrived. */
  lastMessageAt(): number;
  /** Items intersecting the viewport. */
  inView(): number;
  layoutBounds(): { minX: number; maxX: number; maxY: number } | undefined;
  /** Resolves once no timer, frame or request of the app is pending. */
  idle(): Promise<void>;
  busy(): boolean;
}

export function exposeTestHooks(app: App): void {
  const hooks: PiTreeTestHooks = {
    app,
    model: app.model,
    graph: app.graph,
    derived: () => app.tree.derived,
    stats: () => ({
      items: app.tree.derived?.items.length ?? 0,
      rendered: app.graph.renderedCount,
      visible: app.tree.derived?.visibleCount ?? 0,
      hits: app.find.hits.order.length,
      selected: app.tree.selection.key,
    }),
    timings: () => ({ ...app.tree.timings, render: app.graph.lastRenderMs }),
    lastMessageAt: () => app.host.lastMessageAt,
    inView: () => (app.tree.layout ? queryItems(app.tree.layout, app.graph.worldRect()).length : 0),
    layoutBounds: () => {
      const l = app.tree.layout;
      return l ? { minX: l.minX, maxX: l.maxX, maxY: l.maxY } : undefined;
    },
    idle: whenIdle,
    busy,
  };
  (window as unknown as { __piTree: PiTreeTestHooks }).__piTree = hooks;
}
