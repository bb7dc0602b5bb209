// The accessible tree: a virtualised list of the items in pi's /tree order. The list element is the
// one keyboard stop (role="tree", aria-activedescendant names the selected row); only rows in view
// (plus the active one) exist in the DOM. It shares the selection with the graph. In the row layout
// (`rows`) it is the whole view, like git-graph: a lane column instead of indentation, then message,
// time, model and tokens (rowCells.ts).
import type { NodeView } from '../../src/protocol';
import type { Item } from '../model/derive';
import { computeLanes, type Lanes } from '../model/lanes';
import { KIND_ICONS } from '../ui/icons';
import { onFrame } from '../ui/schedule';
import { infoCells, laneCell, laneColumnWidth, rowsHeader } from './rowCells';

export const ROW_H = 22;
const OVERSCAN = 8;
/** Visible indentation levels at most (see render). */
const MAX_INDENT = 10;

export interface OutlineHost {
  nodes(): NodeView[];
  isSelected(it: Item): boolean;
  isHit(entry: number): boolean;
  hitsIn(it: Item): number;
  /** The entry marked by a first "Compare with…" (C). */
  isMarked(entry: number): boolean;
  ariaLabel(it: Item): string;
  contextFor(it: Item): string;
  onSelect(it: Item, how: 'click' | 'dblclick' | 'contextmenu'): void;
  /** aria-expanded for an item, or undefined when it is not expandable. */
  expandedState(it: Item): boolean | undefined;
  /** The entry has a checkpoint. */
  hasCode?(id: string): boolean;
}

export class OutlineView {
  /** The list with the rows layout's column header above it (what the app lays out). */
  readonly pane: HTMLDivElement;
  readonly el: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private rows: Item[] = [];
  private readonly dom = new Map<Item, HTMLDivElement>();
  private active: Item | undefined;
  private frame = 0;
  /** Kept from the scroll and resize events: reading them from the DOM would force a layout. */
  private height = 0;
  private scrollTop = 0;
  private mode: 'tree' | 'rows' = 'tree';
  private lanes: Lanes | undefined;
  private laneW = 0;

  constructor(private readonly host: OutlineHost) {
    this.el = document.createElement('div');
    this.el.className = 'outline';
    this.el.setAttribute('role', 'tree');
    this.el.setAttribute('aria-label', 'Session entries');
    this.el.tabIndex = 0;
    this.spacer = document.createElement('div');
    this.spacer.className = 'spacer';
    this.spacer.setAttribute('role', 'none');
    this.el.append(this.spacer);
    this.pane = document.createElement('div');
    this.pane.className = 'outline-pane';
    this.pane.append(rowsHeader(), this.el);
    this.el.addEventListener('scroll', () => {
      if (this.scrollPending) return; // a scroll of ours is on its way
      this.scrollTop = this.el.scrollTop;
      this.schedule();
    });
    new ResizeObserver((entries) => {
      this.height = entries[entries.length - 1].contentRect.height;
      this.schedule();
    }).observe(this.el);
    const rowOf = (ev: Event) => {
      const r = (ev.target as Element).closest?.('[role="treeitem"]') as HTMLDivElement | null;
      const idx = r ? Number(r.dataset.row) : NaN;
      return Number.isInteger(idx) ? this.rows[idx] : undefined;
    };
    this.el.addEventListener('click', (ev) => {
      const it = rowOf(ev);
      if (it) this.host.onSelect(it, 'click');
    });
    this.el.addEventListener('dblclick', (ev) => {
      const it = rowOf(ev);
      if (it) this.host.onSelect(it, 'dblclick');
    });
    this.el.addEventListener('contextmenu', (ev) => {
      const it = rowOf(ev);
      if (it) this.host.onSelect(it, 'contextmenu');
    });
  }

  /** The tree (indented list beside the graph) or the row layout (lanes and columns, the whole view). */
  setMode(mode: 'tree' | 'rows'): void {
    if (mode === this.mode) return;
    this.mode = mode;
    this.el.classList.toggle('rows', mode === 'rows');
    this.setRows(this.rows);
  }

  setRows(rows: Item[]): void {
    this.rows = rows;
    this.lanes = this.mode === 'rows' ? computeLanes(rows) : undefined;
    if (this.lanes) {
      this.laneW = laneColumnWidth(this.lanes.width);
      this.pane.style.setProperty('--lanes-w', `${this.laneW}px`);
    }
    for (const el of this.dom.values()) el.remove();
    this.dom.clear();
    this.spacer.style.height = `${rows.length * ROW_H}px`;
    this.render();
  }

  /** The same rows with a few items changed in place (entries appended): only those are drawn again. */
  rowsChanged(rows: Item[], changed: readonly Item[]): void {
    this.rows = rows;
    for (const it of changed) {
      this.dom.get(it)?.remove();
      this.dom.delete(it);
    }
    this.render();
  }

  /** Re-renders rows (selection, hits, labels changed without new rows). */
  refresh(): void {
    for (const el of this.dom.values()) el.remove();
    this.dom.clear();
    this.render();
  }

  get pageSize(): number {
    return Math.max(1, Math.floor((this.height || 400) / ROW_H) - 1);
  }

  setActive(it: Item | undefined, scroll = true): void {
    this.active = it;
    if (it && scroll && it.row >= 0) {
      const top = it.row * ROW_H;
      const h = this.height || 400;
      let next = this.scrollTop;
      if (top < next) next = top;
      else if (top + ROW_H > next + h) next = top + ROW_H - h;
      if (next !== this.scrollTop) {
        // Applied in the next frame: writing scrollTop now would force a layout in the middle of
        // building the DOM (a second full layout on a first paint). Rows are rendered for it already.
        this.scrollTop = next;
        this.scrollPending = true;
        this.schedule();
      }
    }
    this.render();
  }
  private scrollPending = false;

  private schedule(): void {
    if (this.frame) return;
    this.frame = onFrame(() => {
      this.frame = 0;
      if (this.scrollPending) {
        this.scrollPending = false;
        this.el.scrollTop = this.scrollTop;
      }
      this.render();
    });
  }

  private render(): void {
    const h = this.height || 400;
    const first = Math.max(0, Math.floor(this.scrollTop / ROW_H) - OVERSCAN);
    const last = Math.min(this.rows.length - 1, Math.ceil((this.scrollTop + h) / ROW_H) + OVERSCAN);
    const want = new Set<Item>();
    for (let r = first; r <= last; r++) want.add(this.rows[r]);
    // The active row must exist for aria-activedescendant even when scrolled away.
    if (this.active && this.active.row >= 0 && this.rows[this.active.row] === this.active) want.add(this.active);
    for (const [it, el] of this.dom) {
      if (!want.has(it)) {
        el.remove();
        this.dom.delete(it);
      }
    }
    const frag = document.createDocumentFragment();
    // Deep trees would indent rows out of sight: indentation is relative to the active row's level
    // (a few levels of context above it), capped; aria-level keeps the true level.
    const base = Math.max(0, (this.active?.level ?? 1) - 1 - MAX_INDENT / 2);
    for (const it of want) {
      let el = this.dom.get(it);
      if (!el) {
        el = this.row(it);
        this.dom.set(it, el);
        frag.append(el);
      }
      if (this.mode === 'tree') {
        const indent = Math.min(MAX_INDENT, Math.max(0, it.level - 1 - base));
        el.style.paddingLeft = `${6 + indent * 12}px`;
        el.classList.toggle('deeper', it.level - 1 - base > MAX_INDENT);
      }
      const sel = this.host.isSelected(it);
      el.setAttribute('aria-selected', String(sel));
      el.classList.toggle('selected', sel);
    }
    this.spacer.append(frag);
    const a = this.active && this.dom.get(this.active);
    if (a) this.el.setAttribute('aria-activedescendant', a.id);
    else this.el.removeAttribute('aria-activedescendant');
  }

  private row(it: Item): HTMLDivElement {
    const nodes = this.host.nodes();
    const n = nodes[it.entry];
    const el = document.createElement('div');
    el.id = `row-${it.row}`;
    el.dataset.row = String(it.row);
    el.dataset.key = it.key;
    if (!it.seg) el.dataset.entryId = n.id;
    el.setAttribute('role', 'treeitem');
    el.setAttribute('aria-level', String(it.level));
    el.setAttribute('aria-setsize', String(it.setsize));
    el.setAttribute('aria-posinset', String(it.posinset));
    const marked = !it.seg && this.host.isMarked(it.entry);
    el.setAttribute('aria-label', `${this.host.ariaLabel(it)}${marked ? ', marked for compare' : ''}`);
    const ex = this.host.expandedState(it);
    if (ex !== undefined) el.setAttribute('aria-expanded', String(ex));
    el.dataset.vscodeContext = this.host.contextFor(it);
    let cls = `row k-${it.seg ? 'segment' : n.kind}`;
    if (it.onPath) cls += ' on-path';
    if (it.isLeaf) cls += ' leaf';
    if (it.seg ? this.host.hitsIn(it) : this.host.isHit(it.entry)) cls += ' hit';
    if (!it.seg && n.changed?.length) cls += ' changed';
    if (!it.seg && this.host.hasCode?.(n.id)) cls += ' checkpoint';
    if (marked) cls += ' compare-base';
    el.className = cls;
    el.style.top = `${it.row * ROW_H}px`;
    const icon = document.createElement('span');
    icon.className = `codicon codicon-${it.seg ? 'ellipsis' : (KIND_ICONS[n.kind] ?? 'symbol-event')}`;
    const lanes = this.lanes?.rows[it.row];
    if (lanes) el.append(laneCell(lanes, it, this.laneW, ROW_H), icon);
    else {
      const mark = document.createElement('span');
      mark.className = 'mark';
      mark.textContent = it.onPath ? '•' : '';
      el.append(mark, icon);
    }
    if (marked) {
      const c = document.createElement('span');
      c.className = 'codicon codicon-git-compare compare-mark';
      c.title = 'Marked for compare: press C on the other entry';
      el.append(c);
    }
    if (!it.seg && n.label !== undefined) {
      const b = document.createElement('span');
      b.className = 'label-badge';
      b.textContent = n.label;
      el.append(b);
    }
    const t = document.createElement('span');
    t.className = 'text';
    if (it.seg) {
      const m = it.members!;
      const hits = this.host.hitsIn(it);
      t.textContent = `${m.length} entries${hits ? ` (${hits} found)` : ''}: ${n.text} … ${nodes[m[m.length - 1]].text}`;
    } else {
      t.textContent = n.text || `[${n.type}]`;
    }
    el.append(t);
    if (it.folded) {
      const f = document.createElement('span');
      f.className = 'folded-count';
      f.textContent = `+${it.hidden}`;
      el.append(f);
    }
    if (it.isLeaf) {
      const l = document.createElement('span');
      l.className = 'leaf-mark';
      l.textContent = '← current';
      el.append(l);
    }
    if (lanes) el.append(...infoCells(it.seg ? undefined : n));
    return el;
  }

  elementOf(it: Item): HTMLDivElement | undefined {
    return this.dom.get(it);
  }
}
