// Find in the session: the find field with its match count and previous/next buttons, the query (applied
// a little after typing stops, or at once by Enter), the hits (model/findHits.ts) and stepping through
// them in outline order. As in VS Code's find, a new query selects its first match at or after the
// selection, so the count is always "n/m"; Enter and F3 go on from there.
import type { FilterMode } from '../../src/shared/treeFilter';
import type { Item } from '../model/derive';
import { FindHits } from '../model/findHits';
import { parseQuery, type Query } from '../model/findQuery';
import type { TreeModel } from '../model/treeModel';
import { h, iconButton, textfield } from '../ui/dom';
import { after, cancelAfter } from '../ui/schedule';

export interface FindHost {
  filter(): FilterMode;
  /** The query text changed (to persist) and the tree needs a new pass. */
  queryChanged(text: string): void;
  /** Selects an entry; `history`: a step the user took (Back returns to it). */
  selectEntry(id: string, history: boolean): void;
  /** Outline row of the selection, and of the item showing an entry (-1: none). */
  selectedRow(): number;
  rowOfEntry(entry: number): number;
  describe(id: string): string;
  announce(msg: string): void;
  focusTree(): void;
}

export class FindController {
  readonly el: HTMLElement;
  readonly hits = new FindHits();
  query: Query = { terms: [] };
  private readonly field: HTMLElement & { value: string };
  private readonly countEl: HTMLElement;
  private timer = 0;
  /** The field's text changed and is not applied yet. */
  private pending = false;
  /** A query was applied: the pass it starts selects its first match. */
  private firstPending = false;
  /** Enter or F3 came before the pass of a new query: stepped once its hits are known. */
  private queuedStep: 1 | -1 | 0 = 0;

  constructor(
    private readonly model: TreeModel,
    private readonly host: FindHost,
    initial: string,
  ) {
    this.el = h('div', 'find');
    this.field = textfield('find', initial, 'Find', 'Find: text role: tool: label: file: model: re:');
    this.field.addEventListener('input', () => this.input());
    this.field.addEventListener('keydown', (ev) => {
      const e = ev as KeyboardEvent;
      if (e.key === 'Enter') {
        e.preventDefault();
        this.step(e.shiftKey ? -1 : 1);
      }
    });
    this.countEl = h('span', 'find-count');
    this.countEl.setAttribute('aria-live', 'polite');
    const prev = iconButton('arrow-up', 'Previous match (Shift+F3)', 'find-prev', () => this.step(-1));
    const next = iconButton('arrow-down', 'Next match (F3)', 'find-next', () => this.step(1));
    this.el.append(this.field, this.countEl, prev, next);
  }

  /** Applies the query restored with the UI state (hits follow on the first pass). */
  start(text: string): void {
    if (text) this.query = parseQuery(text);
  }

  /** Entries, labels or the filter changed: hits are computed again on the next pass. */
  markDirty(): void {
    this.hits.dirty = true;
  }

  /** Before a pass: hits computed if stale; the entries derive() must keep as their own items. */
  prepare(mode: FilterMode): Uint8Array | undefined {
    if (this.hits.dirty) this.hits.compute(this.model, this.query, mode);
    return this.hits.forced();
  }

  order(rows: readonly Item[]): void {
    this.hits.orderBy(rows, this.query);
  }

  isHit(entry: number): boolean {
    return this.hits.isHit(entry);
  }

  hitsIn(it: Item): number {
    return this.hits.inItem(it);
  }

  open(): void {
    this.field.focus();
    (this.field.shadowRoot?.querySelector('input') as HTMLInputElement | null)?.select();
  }

  /**
   * Selects the next (1) or previous (-1) match and announces it. A query still being typed is applied
   * first, and the step waits for its hits: Enter never steps through the previous query's matches.
   */
  step(dir: 1 | -1): void {
    if (this.pending) this.apply();
    if (this.firstPending || this.hits.dirty) {
      this.queuedStep = dir;
      return;
    }
    const e = this.hits.step(dir);
    if (e === undefined) {
      this.host.announce(this.query.terms.length ? 'No matches' : 'Nothing to find');
      return;
    }
    this.select(e, true);
  }

  /**
   * After every pass of the tree: a new query selects its first match; a queued step runs. A query
   * applied before the tree came (a webview made again) waits for the first pass with entries.
   */
  afterPass(): void {
    if (this.firstPending && !this.hits.dirty && this.model.size > 0) {
      this.firstPending = false;
      const order = this.hits.order;
      if (order.length) {
        // The first match at or after the selection (wrapping), like VS Code's find from the cursor.
        const from = this.host.selectedRow();
        let k = order.findIndex((e) => this.host.rowOfEntry(e) >= from);
        if (k < 0) k = 0;
        this.hits.pos = k;
        // A queued Enter goes on from this match, as it would have after a pause.
        if (!this.queuedStep) this.select(order[k], false);
      }
    }
    const q = this.queuedStep;
    this.queuedStep = 0;
    if (q && !this.firstPending && !this.hits.dirty) this.step(q);
    this.updateCount();
  }

  private select(e: number, history: boolean): void {
    const id = this.model.nodes[e].id;
    this.host.selectEntry(id, history);
    this.updateCount();
    this.host.announce(`Match ${this.hits.pos + 1} of ${this.hits.order.length}: ${this.host.describe(id)}`);
  }

  /** Escape while typing in the field: clears it, or leaves it for the tree when empty. */
  escapeField(): boolean {
    const active = document.activeElement;
    if (active !== this.field && !this.field.contains(active)) return false;
    if (this.field.value) this.clear();
    else this.host.focusTree();
    return true;
  }

  /** Escape elsewhere: clears an active query. */
  clearActive(): void {
    if (this.query.terms.length) this.clear();
  }

  updateCount(): void {
    const c = this.countEl;
    this.field.toggleAttribute('invalid', !!this.query.error);
    this.field.setAttribute('aria-invalid', String(!!this.query.error));
    if (this.query.error) {
      c.textContent = this.query.error;
      c.className = 'find-count error';
      return;
    }
    c.className = 'find-count';
    const total = this.hits.order.length;
    if (!this.query.terms.length) c.textContent = '';
    else if (!total) c.textContent = 'No results';
    else if (this.hits.pos < 0) c.textContent = `${total} found`;
    else c.textContent = `${this.hits.pos + 1}/${total}`;
  }

  private clear(): void {
    this.field.value = '';
    this.input(true);
  }

  private input(now = false): void {
    cancelAfter(this.timer);
    this.pending = true;
    if (now) this.apply();
    else this.timer = after(150, () => this.apply());
  }

  /** Applies the field's text as the query; the next pass computes its hits and selects the first. */
  private apply(): void {
    cancelAfter(this.timer);
    this.pending = false;
    const text = this.field.value;
    this.query = parseQuery(text);
    this.hits.pos = -1;
    this.hits.dirty = true;
    this.firstPending = this.query.terms.length > 0;
    this.host.queryChanged(text);
  }
}
