// What the app hands each of its parts: the callbacks that connect a part to the others, with the app as
// their one go-between (a part never holds another). app.ts builds the parts with these.
import type { RequestFn } from '../../src/protocol';
import type { SavedState } from '../model/savedState';
import type { Item } from '../model/derive';
import type { GraphHost } from '../graph/graphView';
import type { DetailsHost } from '../details/detailsPane';
import type { AskBoxHost } from '../details/askBox';
import { describeEntry } from '../outline/ariaText';
import type { App } from './app';
import type { ActionsHost } from './entryActions';
import type { CodeViewsHost } from './codeViews';
import { vscodeContext } from './contextMenu';
import type { FindHost } from './findController';
import type { TreeViewHost } from './treeView';

export function findHooks(app: App, state: SavedState): FindHost {
  return {
    filter: () => app.filterMode(),
    queryChanged: (text) => {
      state.query = text;
      app.tree.refresh();
    },
    selectEntry: (id, history) => app.tree.selectEntry(id, { history }),
    selectedRow: () => app.tree.selItem()?.row ?? 0,
    rowOfEntry: (e) => app.tree.derived?.itemOf[e]?.row ?? -1,
    describe: (id) => describeEntry(app.model, id),
    announce: (m) => app.announce(m),
    focusTree: () => app.focusTree(),
  };
}

export function codeViewHooks(app: App, request: RequestFn): CodeViewsHost {
  return {
    request,
    meta: () => app.meta,
    announce: (m) => app.announce(m),
    error: (m) => app.error(m),
    describe: (id) => describeEntry(app.model, id),
    goTo: (id) => app.tree.selectEntry(id, { history: true }),
    refresh: () => app.tree.refresh(),
    marksChanged: () => app.marksChanged(),
    showInDetails: (id, title, load) => app.details.showPanel(id, title, load),
  };
}

/** What the graph and the outline both ask of an item. */
export function itemHooks(app: App): Omit<GraphHost, 'onViewChange' | 'itemForKey' | 'onFirstSize'> {
  return {
    nodes: () => app.model.nodes,
    isSelected: (it: Item) => app.tree.selection.key === it.key,
    isHit: (e: number) => app.find.isHit(e),
    hitsIn: (it: Item) => app.find.hitsIn(it),
    isMarked: (e: number) => e === app.codeViews.markedEntry(),
    contextFor: (it: Item) => vscodeContext(it, app.model.nodes, app.meta?.restoreToken),
    hasCode: (id: string) => app.codeViews.codeMarks.has(id),
    onSelect: (it: Item, how: 'click' | 'dblclick' | 'contextmenu') => app.onPointerSelect(it, how),
  };
}

export function treeHooks(app: App, state: SavedState): TreeViewHost {
  return {
    filter: () => app.filterMode(),
    forcedEntries: () => app.find.prepare(app.filterMode()),
    hiddenEntries: () => app.codeViews.hiddenEntries(),
    rowsChanged: (rows) => app.find.order(rows),
    savedView: () => app.persistence.savedView(app.meta?.sessionId),
    firstShown: () => (state.sessionId = app.meta?.sessionId),
    announce: (m) => app.announce(m),
    rebuilt: (first, entries) => app.rebuilt(first, entries),
    selectionChanged: () => app.selectionChanged(),
  };
}

export function detailsHooks(app: App, request: RequestFn, revealDetails: () => void): DetailsHost {
  return {
    extras: app.codeViews,
    nodes: () => app.model.nodes,
    selected: () => app.tree.selItem(),
    selectedEntryId: () => app.tree.selection.current?.entryId,
    readOnly: () => app.meta?.readOnly,
    askBox: app.askBox,
    request,
    run: (id) => app.run(id),
    toggle: (it) => app.tree.toggle(it),
    goTo: (id) => app.tree.selectEntry(id, { history: true }),
    show: revealDetails,
    announce: (m) => app.announce(m),
    error: (m) => app.error(m),
  };
}

export function askHooks(app: App, request: RequestFn): AskBoxHost {
  return {
    request,
    meta: () => app.meta,
    describe: (id) => describeEntry(app.model, id),
    goTo: (id) => app.tree.selectEntry(id, { history: true }),
    announce: (m) => app.announce(m),
    error: (m) => app.error(m),
    focusTree: () => app.focusTree(),
  };
}

export function actionHooks(app: App, request: RequestFn): ActionsHost {
  return {
    meta: () => app.meta,
    request,
    announce: (m) => app.announce(m),
    error: (m) => app.error(m),
    describe: (id) => describeEntry(app.model, id),
    overlays: app.overlays,
    elementsOf: (it) => ({ node: app.graph.elementOf(it), row: app.outline.elementOf(it) }),
    editTitle: (current, done) => app.toolbar.editTitle(current, done),
    showLeaf: (id) => app.onLeafMoved(id),
  };
}
