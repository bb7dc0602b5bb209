// What the app hands each of its parts: the callbacks that connect a part to the others, with the app as
// their one go-between (a part never holds another). app.ts builds the parts with these; they see the app
// as a HookedApp, so this file does not import app.ts back.
import type { RequestFn, SessionMeta } from '../../src/protocol';
import type { FilterMode } from '../../src/shared/treeFilter';
import type { SavedState } from '../model/savedState';
import type { Item } from '../model/derive';
import type { GraphHost, GraphView } from '../graph/graphView';
import type { DetailsHost, DetailsPane } from '../details/detailsPane';
import type { AskBox, AskBoxHost } from '../details/askBox';
import { describeEntry } from '../outline/ariaText';
import type { ActionsHost } from './entryActions';
import type { CompareActions, CompareActionsHost } from './compareActions';
import { vscodeContext } from './contextMenu';
import type { FindController, FindHost } from './findController';
import type { TreeView, TreeViewHost } from './treeView';
import type { TreeModel } from '../model/treeModel';
import type { OutlineView } from '../outline/outlineView';
import type { OverlayStack } from '../ui/overlays';
import type { Toolbar } from '../ui/toolbar';
import type { CommandId } from './keymap';
import type { Persistence } from './persistence';

/** What the hooks read of the app (app.ts's App is one): its parts and its own callbacks. */
export interface HookedApp {
  readonly model: TreeModel;
  readonly meta: SessionMeta | undefined;
  readonly persistence: Persistence;
  readonly overlays: OverlayStack;
  readonly find: FindController;
  readonly toolbar: Toolbar;
  readonly graph: GraphView;
  readonly outline: OutlineView;
  readonly details: DetailsPane;
  readonly askBox: AskBox;
  readonly tree: TreeView;
  readonly compareActions: CompareActions;
  announce(msg: string): void;
  error(msg: string): void;
  focusTree(): void;
  filterMode(): FilterMode;
  run(id: CommandId): void;
  onLeafMoved(leafId: string | null): void;
  rebuilt(first: boolean, entries: number): void;
  marksChanged(): void;
  selectionChanged(): void;
  onPointerSelect(it: Item, how: 'click' | 'dblclick' | 'contextmenu'): void;
}

export function findHooks(app: HookedApp, state: SavedState): FindHost {
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

export function codeViewHooks(app: HookedApp, request: RequestFn): CompareActionsHost {
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
export function itemHooks(app: HookedApp): Omit<GraphHost, 'onViewChange' | 'itemForKey' | 'onFirstSize'> {
  return {
    nodes: () => app.model.nodes,
    isSelected: (it: Item) => app.tree.selection.key === it.key,
    isHit: (e: number) => app.find.isHit(e),
    hitsIn: (it: Item) => app.find.hitsIn(it),
    isMarked: (e: number) => e === app.compareActions.markedEntry(),
    contextFor: (it: Item) => vscodeContext(it, app.model.nodes, app.meta?.restoreToken),
    hasCode: (id: string) => app.compareActions.codeMarks.has(id),
    onSelect: (it: Item, how: 'click' | 'dblclick' | 'contextmenu') => app.onPointerSelect(it, how),
  };
}

export function treeHooks(app: HookedApp, state: SavedState): TreeViewHost {
  return {
    filter: () => app.filterMode(),
    forcedEntries: () => app.find.prepare(app.filterMode()),
    hiddenEntries: () => app.compareActions.hiddenEntries(),
    checkpoints: () => app.compareActions.codeMarks,
    rowsChanged: (rows) => app.find.order(rows),
    savedView: () => app.persistence.savedView(app.meta?.sessionId),
    firstShown: () => (state.sessionId = app.meta?.sessionId),
    announce: (m) => app.announce(m),
    rebuilt: (first, entries) => app.rebuilt(first, entries),
    selectionChanged: () => app.selectionChanged(),
  };
}

export function detailsHooks(app: HookedApp, request: RequestFn, revealDetails: () => void): DetailsHost {
  return {
    extras: app.compareActions,
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

export function askHooks(app: HookedApp, request: RequestFn): AskBoxHost {
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

export function actionHooks(app: HookedApp, request: RequestFn): ActionsHost {
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
