// The header: the session title (click to rename it in place), live / read-only / problems badges with
// the diagnostics list, the filter select, the find box, and the view buttons.
import { bridgeBadge } from './bridgeBadge';
import type { SessionMeta } from '../../src/protocol';
import { FILTER_MODES, isFilterMode, type FilterMode } from '../../src/shared/treeFilter';
import type { CommandId } from '../app/keymap';
import { h, iconButton, textfield } from './dom';
import { FILTER_TITLES } from './filterTitles';
import type { Overlay, OverlayStack } from './overlays';
import { onFrame } from './schedule';

export interface ToolbarHost {
  run(id: CommandId): void;
  setFilter(mode: FilterMode): void;
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
  private readonly filter: HTMLElement & { value: string };
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
    this.filter = document.createElement('vscode-single-select') as HTMLElement & { value: string };
    this.filter.className = 'filter';
    this.filter.setAttribute('aria-label', 'Filter');
    this.filter.title = 'Filter (O / Shift+O)';
    for (const m of FILTER_MODES) {
      const o = document.createElement('vscode-option') as HTMLElement & { value: string };
      o.setAttribute('value', m);
      o.textContent = FILTER_TITLES[m];
      this.filter.append(o);
    }
    this.filter.addEventListener('change', () => {
      const v = this.filter.value;
      if (isFilterMode(v)) host.setFilter(v);
    });
    const tools = h('div', 'tools');
    const tool = (icon: string, title: string, action: string, id: CommandId) =>
      iconButton(icon, title, action, () => {
        host.run(id);
        host.focusTree();
      });
    tools.append(
      tool('arrow-left', 'Back (Alt+←)', 'back', 'nav.back'),
      tool('arrow-right', 'Forward (Alt+→)', 'forward', 'nav.forward'),
      tool('location', 'Current leaf (.)', 'leaf', 'nav.leaf'),
      tool('screen-full', 'Fit all (0)', 'fit', 'view.fit'),
      tool('list-tree', 'Outline (Alt+O)', 'toggle-outline', 'view.outline'),
      tool('layout-sidebar-right', 'Details (D)', 'toggle-details', 'view.details'),
      tool('question', 'Keyboard shortcuts (?)', 'help', 'help'),
    );
    this.el.append(this.title, this.badges, this.extra, this.filter, find, tools);
    this.diagnostics = h('div', 'diagnostics');
    this.diagnostics.hidden = true;
  }

  setFilter(mode: FilterMode): void {
    this.filter.value = mode;
  }

  /** Title (name, else the first message, else the file name), badges and diagnostics. */
  showMeta(m: SessionMeta | undefined): void {
    this.meta = m;
    const first = m?.firstMessage?.replace(/\s+/g, ' ').trim();
    const title = m?.name || (first ? (first.length > 80 ? `${first.slice(0, 79)}…` : first) : '') || m?.fileName || 'pi session';
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
      for (const d of diags.slice(0, 200)) ul.append(h('li', `sev-${d.severity}`, `${d.line ? `line ${d.line}: ` : ''}${d.message}`));
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
