// The command table: every CommandId mapped to what it does, used alike by keys (app/keyboard.ts), the
// toolbar, the details pane buttons and the host's `invoke` messages (native menus, palette). Entry
// actions need one selected entry; on a segment they ask to expand it first.
import type { InvokeAction, NodeView } from '../../src/protocol';
import { nextFilter, type FilterMode } from '../../src/shared/treeFilter';
import type { AskBox } from '../details/askBox';
import type { DetailsPane } from '../details/detailsPane';
import type { GraphView } from '../graph/graphView';
import type { Item } from '../model/derive';
import type { TreeModel } from '../model/treeModel';
import type { OutlineView } from '../outline/outlineView';
import type { TreeLayout } from '../../src/protocol';
import type { HoverCard } from '../ui/hoverCard';
import type { OverlayStack } from '../ui/overlays';
import type { CompareActions } from './compareActions';
import type { EntryActions } from './entryActions';
import { foldOffPath, toggleFold, unfoldAll } from './folding';
import { isLink } from '../family/familyNodes';
import type { FindController } from './findController';
import type { CommandId } from './keymap';
import { expandedState, isBranchPoint, seekRow, structuralTarget, type StructuralMove } from './navigation';
import type { TreeView } from './treeView';

/** What commands work on (the app). */
export interface CommandContext {
  readonly model: TreeModel;
  readonly tree: TreeView;
  readonly graph: GraphView;
  readonly outline: OutlineView;
  readonly find: FindController;
  readonly details: DetailsPane;
  readonly askBox: AskBox;
  readonly actions: EntryActions;
  readonly compareActions: CompareActions;
  readonly overlays: OverlayStack;
  readonly hover: HoverCard;
  readonly layout: TreeLayout;
  setLayout(layout: TreeLayout): void;
  hoverSelection(): void;
  filterMode(): FilterMode;
  setFilter(mode: FilterMode): void;
  togglePane(pane: 'outline' | 'details'): void;
  showDetails(): void;
  openShortcuts(): void;
  openContextMenu(): void;
  announce(msg: string): void;
}

type Handler = (c: CommandContext) => void;

const go = (c: CommandContext, x: Item | undefined, what: string): void =>
  x ? c.tree.select(x, { history: true }) : c.announce(`Nothing ${what}`);

function rowStep(c: CommandContext, delta: number): void {
  const d = c.tree.derived;
  const it = c.tree.selItem();
  if (!d || !d.rows.length) return;
  const row = it ? it.row : 0;
  const next = Math.max(0, Math.min(d.rows.length - 1, row + delta));
  if (next === row && it) return c.announce(delta < 0 ? 'First row' : 'Last row');
  c.tree.select(d.rows[next], { reveal: true, animate: false });
}

const structural =
  (move: StructuralMove, what: string): Handler =>
  (c) => {
    const it = c.tree.selItem();
    const d = c.tree.derived;
    go(c, it && d ? structuralTarget(move, it, d) : undefined, what);
  };

/** Expand or collapse (`want` is the state that toggles), else move structurally. */
const toggleOr =
  (want: boolean, move: StructuralMove, what: string): Handler =>
  (c) => {
    const it = c.tree.selItem();
    if (it && expandedState(it) === want && c.tree.toggle(it)) return;
    structural(move, what)(c);
  };

const seek =
  (pred: (c: CommandContext) => (it: Item) => boolean, dir: 1 | -1, what: string): Handler =>
  (c) => {
    const d = c.tree.derived;
    go(c, d ? seekRow(d.rows, c.tree.selItem(), pred(c), dir) : undefined, what);
  };
const labelled = (c: CommandContext) => (x: Item) => !x.seg && c.model.nodes[x.entry].label !== undefined;

const history =
  (dir: 'back' | 'forward'): Handler =>
  (c) => {
    const key = c.tree.selection.travel(dir, (k) => c.tree.keyIndex.has(k) || c.model.index.has(k));
    if (key === undefined)
      return c.announce(dir === 'back' ? 'No earlier entry in the history' : 'No later entry in the history');
    const x = c.tree.keyIndex.get(key);
    if (x) c.tree.select(x);
    else c.tree.selectEntry(key);
  };

/** An action on the selected entry; `onSegment` runs instead when a segment is selected. */
const onEntry =
  (
    fn: (c: CommandContext, it: Item, n: NodeView) => void,
    onSegment?: (c: CommandContext, it: Item) => void,
  ): Handler =>
  (c) => {
    const it = c.tree.selItem();
    if (!it) return c.announce('Nothing selected');
    if (it.seg) {
      if (onSegment) return onSegment(c, it);
      return c.announce('Expand the segment first (Enter) to act on one of its entries');
    }
    const n = c.model.nodes[it.entry];
    // A family link is not an entry of this session: its one action opens the other session.
    if (isLink(n))
      return fn === moveOrOpen
        ? void c.compareActions.openLink(n)
        : c.announce('This links to another session: Enter opens its tree');
    fn(c, it, n);
  };

const moveOrOpen = (c: CommandContext, it: Item): void => void c.actions.move(it);

/** Ask from here: the prompt box of the selected entry focused, or (`text`, the palette's input box) asked at once. */
function askHere(c: CommandContext, text?: string): void {
  if (!c.actions.canWrite()) return;
  const focused = c.details.focusAsk();
  if (text !== undefined) void c.askBox.ask(text);
  else if (!focused) c.announce('The prompt box cannot take text now');
}

function escape(c: CommandContext): void {
  const top = c.overlays.top();
  if (top) return top.close();
  if (c.hover.closeByKey()) return;
  if (c.compareActions.escape()) return;
  if (c.find.escapeField()) return;
  if (c.details.leaveContext()) return;
  c.find.clearActive();
}

export const COMMANDS: Record<CommandId, Handler> = {
  'nav.prevRow': (c) => rowStep(c, -1),
  'nav.nextRow': (c) => rowStep(c, 1),
  'nav.firstRow': (c) => {
    const rows = c.tree.derived?.rows;
    if (rows?.length) c.tree.select(rows[0], { history: true });
  },
  'nav.lastRow': (c) => {
    const rows = c.tree.derived?.rows;
    if (rows?.length) c.tree.select(rows[rows.length - 1], { history: true });
  },
  'nav.pageUp': (c) => rowStep(c, -c.outline.pageSize),
  'nav.pageDown': (c) => rowStep(c, c.outline.pageSize),
  'nav.collapseOrParent': toggleOr(true, 'nav.collapseOrParent', 'above'),
  'nav.expandOrChild': toggleOr(false, 'nav.expandOrChild', 'below'),
  'nav.parent': structural('nav.parent', 'above: this is a root'),
  'nav.child': structural('nav.child', 'below: this is a tip'),
  'nav.prevSibling': structural('nav.prevSibling', 'beside it: no more siblings'),
  'nav.nextSibling': structural('nav.nextSibling', 'beside it: no more siblings'),
  'nav.nextBranch': seek(() => isBranchPoint, 1, 'found: no branch points'),
  'nav.prevBranch': seek(() => isBranchPoint, -1, 'found: no branch points'),
  'nav.nextLabel': seek(labelled, 1, 'found: no labels'),
  'nav.prevLabel': seek(labelled, -1, 'found: no labels'),
  'nav.leaf': (c) => {
    const leaf = c.model.leafId;
    if (!leaf) return c.announce('The leaf is before the first entry');
    c.tree.selectEntry(leaf, { history: true });
    const x = c.tree.selItem();
    if (x) c.graph.frameAround(x);
  },
  'nav.back': history('back'),
  'nav.forward': history('forward'),
  'view.toggle': (c) => {
    const it = c.tree.selItem();
    if (it && !c.tree.toggle(it)) c.announce('Nothing to expand or collapse here');
  },
  'view.fit': (c) => {
    const shown = c.graph.fit(c.tree.selItem());
    if (shown === 'near')
      c.announce(
        'The whole tree is too big to read at this size: showing the selection and its branches (Shift+0 shows the whole tree)',
      );
  },
  'view.overview': (c) => {
    c.graph.overview();
    c.announce('Showing the whole tree');
  },
  'view.zoomIn': (c) => c.graph.zoomAt(1.25),
  'view.zoomOut': (c) => c.graph.zoomAt(0.8),
  'view.panUp': (c) => c.graph.panBy(0, 80),
  'view.panDown': (c) => c.graph.panBy(0, -80),
  'view.panLeft': (c) => c.graph.panBy(80, 0),
  'view.panRight': (c) => c.graph.panBy(-80, 0),
  'view.layout': (c) => c.setLayout(c.layout === 'rows' ? 'graph' : 'rows'),
  'view.hover': (c) => c.hoverSelection(),
  'view.details': (c) => c.togglePane('details'),
  'view.outline': (c) => c.togglePane('outline'),
  'filter.next': (c) => c.setFilter(nextFilter(c.filterMode(), 1)),
  'filter.prev': (c) => c.setFilter(nextFilter(c.filterMode(), -1)),
  'find.open': (c) => c.find.open(),
  'find.next': (c) => c.find.step(1),
  'find.prev': (c) => c.find.step(-1),
  escape,
  help: (c) => c.openShortcuts(),
  'act.menu': (c) => c.openContextMenu(),
  'act.rename': (c) => c.actions.rename(),
  'act.move': onEntry(moveOrOpen, (c, it) => void c.tree.toggle(it)),
  'act.moveSummary': onEntry((c, it) => c.actions.moveWithSummary(it)),
  'act.fork': onEntry((c, _it, n) => void c.actions.fork(n)),
  'act.clone': onEntry(
    (c, _it, n) => void c.actions.simple({ kind: 'clone', id: n.id }, 'Cloned the session up to here'),
  ),
  'act.label': onEntry((c, it) => c.actions.editLabel(it)),
  'act.clearLabel': onEntry((c, _it, n) => c.actions.clearLabel(n)),
  'act.copy': onEntry((c, _it, n) => void c.actions.simple({ kind: 'copyText', id: n.id }, 'Copied the entry text')),
  'act.continue': onEntry(
    (c, _it, n) => void c.actions.simple({ kind: 'continueInPi', id: n.id }, 'Opening pi from this entry'),
  ),
  'act.context': onEntry((c, _it, n) => void c.details.showContext(n.id)),
  'act.ask': onEntry((c) => askHere(c)),
  'act.variants': onEntry((c) => {
    if (!c.actions.canWrite()) return;
    // The pane's box for the selected entry: its text is offered as the prompt.
    c.details.focusAsk();
    void c.askBox.tryVariants();
  }),
  'act.compare': onEntry((c, _it, n) => c.compareActions.compareWith(n)),
  'act.compareLeaf': onEntry((c, it, n) =>
    it.isLeaf ? c.announce('This is the current leaf: pick another entry') : void c.compareActions.compare(n.id, null),
  ),
  'act.branchFiles': onEntry((c, _it, n) => c.compareActions.showBranchFiles(n)),
  'act.export': onEntry((c, _it, n) => void c.compareActions.exportBranch(n, 'editor')),
  'act.hide': onEntry((c, _it, n) => void c.compareActions.toggleHidden(n)),
  'view.showHidden': (c) => c.compareActions.toggleShowHidden(),
  'view.fold': (c) => c.announce(toggleFold(c.tree, c.model, c.tree.selItem())),
  'view.foldOffPath': (c) => c.announce(foldOffPath(c.tree, c.model)),
  'view.unfoldAll': (c) => c.announce(unfoldAll(c.tree)),
};

/** What a host `invoke` runs, after selecting its entry (`text`: what the invoke carries). */
const INVOKE: Record<InvokeAction, CommandId | ((c: CommandContext, text?: string) => void)> = {
  editLabel: 'act.label',
  summaryMove: 'act.moveSummary',
  find: 'find.open',
  focusLeaf: 'nav.leaf',
  fit: 'view.fit',
  overview: 'view.overview',
  toggleLayout: 'view.layout',
  showShortcuts: 'help',
  // Handled by the app (it carries text, not an entry).
  editorText: () => undefined,
  details: (c) => c.showDetails(),
  select: () => undefined,
  compareWith: 'act.compare',
  branchFiles: 'act.branchFiles',
  foldOffPath: 'view.foldOffPath',
  toggleHidden: 'act.hide',
  compact: (c) => c.actions.compact(),
  // (on the entry the host named; the same checks as the key's)
  ask: (c, text) => onEntry((cc) => askHere(cc, text))(c),
};

export function runCommand(c: CommandContext, id: CommandId): void {
  COMMANDS[id](c);
}

/** An action chosen outside the webview (native menu, palette) for entry `id`. */
export function runInvoke(c: CommandContext, action: InvokeAction, id: string | undefined, text?: string): void {
  if (id && c.model.index.has(id)) c.tree.selectEntry(id, { history: true });
  if (!Object.prototype.hasOwnProperty.call(INVOKE, action)) return;
  const x = INVOKE[action];
  if (typeof x === 'string') COMMANDS[x](c);
  else x(c, text);
}
