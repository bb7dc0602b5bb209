// The header: the session title (click to rename it in place), live / read-only / problems badges with
// the diagnostics list, the layout switch (graph or rows), the filter select, the find box, and the
// view buttons.
import { bridgeBadge } from './bridgeBadge';
import type { SessionMeta, TreeLayout } from '../../src/protocol';
import { FILTER_MODES, isFilterMode, type FilterMode } from '../../src/shared/treeFilter';
import type { CommandId } from '../app/keymap';
import { h, iconButton, textfield } from './dom';
import { FILTER_TITLES } from './filterTitles';
import type { Overlay, OverlayStack } from './overlays';
import { onFrame } from './schedule';

export interface ToolbarHost {
  run(id: CommandId): void;
  setFilter(mode: FilterMode): void;
  setLayout(layout: TreeLayout): void;
  focusTree(): void;
}

export class Toolbar {
  readonly el: HTMLElement;
  /** The diagnostics list, shown under the header by the problems badge. */
  readonly diagnostics: HTMLElement;
  private readonly title: HTMLElement;
  private readonly badges: HTMLElement;
  /** Badges other parts of the app own (e.g. the hidden-branches toggle). */
  readonly extra: HTMLElement;
  private readonly filter: HTMLSelectElement;
  private readonly layoutButtons: Record<TreeLayout, HTMLButtonElement>;
  private readonly outlineButton: HTMLButtonElement;
  private meta: SessionMeta | undefined;

  constructor(
    host: ToolbarHost,
    private readonly overlays: OverlayStack,
    find: HTMLElement,
  ) {
    this.el = h('header', 'toolbar');
    this.title = h('h1', 'title', 'pi session');
    this.title.title = 'Rename the session (Shift+F2)';
    this.title.addEventListener('click', () => host.run('act.rename'));
    this.badges = h('span', 'badges');
    this.extra = h('span', 'badges extra-badges');
    // A native select in VS Code's dropdown colours: the UI kit's single-select took ~35 ms to render its
    // first time, on the way to the first screen.
    this.filter = document.createElement('select');
    this.filter.className = 'filter';
    this.filter.setAttribute('aria-label', 'Filter');
    this.filter.title = 'Filter (O / Shift+O)';
    for (const m of FILTER_MODES) this.filter.append(new Option(FILTER_TITLES[m], m));
    this.filter.addEventListener('change', () => {
      const v = this.filter.value;
      if (isFilterMode(v)) host.setFilter(v);
    });
    // Graph or rows: a two-button switch that is always in the header, whatever the width (a narrow
    // window never hides the graph without a way back).
    const switcher = h('div', 'layout-switch');
    switcher.setAttribute('role', 'group');
    switcher.setAttribute('aria-label', 'Layout');
    const layoutButton = (layout: TreeLayout, icon: string, label: string) => {
      const b = iconButton(icon, label, `layout-${layout}`, () => host.setLayout(layout));
      b.append(h('span', 'layout-label', layout === 'graph' ? 'Graph' : 'Rows'));
      b.setAttribute('aria-pressed', 'false');
      switcher.append(b);
      return b;
    };
    this.layoutButtons = {
      graph: layoutButton('graph', 'type-hierarchy-sub', 'Graph: the tree as cards (V switches)'),
      rows: layoutButton('rows', 'list-flat', 'Rows: one row per entry with time, model and tokens (V switches)'),
    };
    const tools = h('div', 'tools');
    const tool = (icon: string, title: string, action: string, id: CommandId) =>
      iconButton(icon, title, action, () => {
        host.run(id);
        host.focusTree();
      });
    this.outlineButton = tool('list-tree', 'Outline (Alt+O)', 'toggle-outline', 'view.outline');
    tools.append(
      tool('arrow-left', 'Back (Alt+←)', 'back', 'nav.back'),
      tool('arrow-right', 'Forward (Alt+→)', 'forward', 'nav.forward'),
      tool('location', 'Current leaf (.)', 'leaf', 'nav.leaf'),
      tool(
        'screen-full',
        'Fit: the whole tree, or the selection and its branches when it is too big (0); Shift+0: the whole tree',
        'fit',
        'view.fit',
      ),
      this.outlineButton,
      tool('layout-sidebar-right', 'Details (D)', 'toggle-details', 'view.details'),
      tool('question', 'Keyboard shortcuts (?)', 'help', 'help'),
    );
    this.el.append(this.title, this.badges, this.extra, switcher, this.filter, find, tools);
    this.diagnostics = h('div', 'diagnostics');
    this.diagnostics.hidden = true;
  }

  setFilter(mode: FilterMode): void {
    this.filter.value = mode;
  }

  /** Marks the layout in use; the outline button says when there is no room for the outline. */
  showLayout(layout: TreeLayout, narrow: boolean): void {
    for (const [k, b] of Object.entries(this.layoutButtons)) b.setAttribute('aria-pressed', String(k === layout));
    const off = layout === 'rows' || narrow;
    this.outlineButton.classList.toggle('inactive', off);
    this.outlineButton.title =
      layout === 'rows'
        ? 'Outline (Alt+O): the rows are the outline'
        : narrow
          ? 'Outline (Alt+O): shown when the view is wider'
          : 'Outline (Alt+O)';
    this.outlineButton.setAttribute('aria-label', this.outlineButton.title);
  }

  /** Title (name, else the first message, else the file name), badges and diagnostics. */
  showMeta(m: SessionMeta | undefined): void {
    this.meta = m;
    const first = m?.firstMessage?.replace(/\s+/g, ' ').trim();
    const title =
      m?.title ||
      m?.name ||
      (first ? (first.length > 80 ? `${first.slice(0, 79)}…` : first) : '') ||
      m?.fileName ||
      'pi session';
    this.title.replaceChildren(document.createTextNode(title));
    document.title = title;
    this.badges.replaceChildren(...bridgeBadge(m?.bridge));
    if (m?.live) {
      const b = h('span', 'badge live', 'live');
      b.title = 'pi is writing this session right now';
      this.badges.append(b);
    }
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
        this.diagnostics.hidden = !this.diagnostics.hidden;
      });
      this.badges.append(b);
      const ul = h('ul');
      for (const d of diags.slice(0, 200))
        ul.append(h('li', `sev-${d.severity}`, `${d.line ? `line ${d.line}: ` : ''}${d.message}`));
      this.diagnostics.replaceChildren(ul);
    } else {
      this.diagnostics.hidden = true;
    }
  }

  /** Renames in place: a field replaces the title; Enter hands the trimmed name to `done`, Escape cancels. */
  editTitle(current: string, done: (name: string) => void): void {
    if (this.title.querySelector('vscode-textfield')) return;
    const field = textfield('rename', current, 'Session name');
    this.title.replaceChildren(field);
    const overlay: Overlay = { el: field, close: () => this.overlays.pop(overlay, () => this.showMeta(this.meta)) };
    this.overlays.push(overlay, false);
    field.addEventListener('keydown', (ev) => {
      const e = ev as KeyboardEvent;
      if (e.key !== 'Enter') return;
      e.preventDefault();
      const name = field.value.trim();
      overlay.close();
      done(name);
    });
    onFrame(() => field.focus());
  }
}
