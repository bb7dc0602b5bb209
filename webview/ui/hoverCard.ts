// The hover card (as GitLens shows for a commit): an entry's whole text, time, model, tokens, cost,
// tools, files and place in the tree, shown after the pointer rests on a node or row, and by key (I)
// for the selection: then the tree names it as its description (aria-describedby) so screen readers
// read it, and I again moves focus into it to read or select its text; Escape closes it.
import type { EntryDetails, NodeView, RequestFn } from '../../src/protocol';
import type { Item } from '../model/derive';
import { formatTokens } from '../model/nodeSize';
import { KIND_NAMES, relativeTime } from '../outline/ariaText';
import { h } from './dom';
import { localTime, thousands } from './format';
import { KIND_ICONS } from './icons';
import { after, cancelAfter } from './schedule';

/** How long the pointer rests before the card shows, and how long it stays after the pointer leaves. */
const SHOW_MS = 450;
const HIDE_MS = 250;
/** Keys that alone close no card (a key that does goes with them). */
const MODIFIER_KEYS = new Set(['Shift', 'Control', 'Alt', 'Meta', 'AltGraph', 'CapsLock']);
/** Most characters of an entry's text on the card (the details pane has all of it). */
const TEXT_MAX = 1500;
const CACHE_MAX = 50;
export const CARD_ID = 'hover-card';

export interface HoverHost {
  nodes(): NodeView[];
  request: RequestFn;
  /** The element the card's text describes for assistive technology while it is open by key. */
  describedEl: HTMLElement;
  /** Focus was inside the card when it closed: give it back to the tree. */
  focusTree(): void;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The readable text of a stored entry: message text blocks, a summary, a command and its output. */
export function entryText(d: EntryDetails): string {
  const e = isRec(d.entry) ? d.entry : {};
  const blocks = (c: unknown): string =>
    typeof c === 'string'
      ? c
      : Array.isArray(c)
        ? c
            .filter((b): b is Rec => isRec(b) && b.type === 'text' && typeof b.text === 'string')
            .map((b) => b.text as string)
            .join('\n')
        : '';
  if (isRec(e.message)) {
    const m = e.message;
    if (m.role === 'bashExecution') return `$ ${String(m.command ?? '')}\n${String(m.output ?? '')}`;
    return blocks(m.content);
  }
  if (typeof e.summary === 'string') return e.summary;
  if (e.content !== undefined) return blocks(e.content);
  return '';
}

export class HoverCard {
  readonly el: HTMLElement;
  private showTimer = 0;
  private hideTimer = 0;
  private shown: Item | undefined;
  /** Opened by key for the selection: it then follows the selection until Escape. */
  private byKey = false;
  /**
   * A key was pressed or a row clicked, and the pointer has not moved since: rows drawn again under the
   * resting pointer open no card (it covered the rows below the clicked one, with what the details pane shows).
   */
  private quiet = false;
  /** The item whose card the show timer will open. */
  private pending: Item | undefined;
  private px = NaN;
  private py = NaN;
  private readonly cache = new Map<string, string>();
  private token = 0;

  constructor(private readonly host: HoverHost) {
    this.el = h('div', 'hover-card');
    this.el.id = CARD_ID;
    this.el.setAttribute('role', 'tooltip');
    this.el.hidden = true;
    this.el.addEventListener('pointerenter', () => cancelAfter(this.hideTimer));
    this.el.addEventListener('pointerleave', () => this.hideSoon());
    // Keys close the pointer's card, as VS Code's hovers do (it stayed over the rows while the keys moved
    // the selection, and rows drawn again under the resting pointer opened it again).
    document.addEventListener(
      'keydown',
      (ev) => {
        if (MODIFIER_KEYS.has(ev.key) || this.byKey || this.el.contains(ev.target as Node)) return;
        this.quiet = true;
        if (this.isOpen || this.pending) this.hide();
      },
      true,
    );
    // (where the pointer is, not movementX: the browser repeats a move at the same place after a layout)
    document.addEventListener(
      'pointermove',
      (ev) => {
        if (ev.clientX === this.px && ev.clientY === this.py) return;
        this.px = ev.clientX;
        this.py = ev.clientY;
        this.quiet = false;
      },
      true,
    );
  }

  /** Shows cards for the items under the pointer in `container` (`itemAt` finds the item of a target). */
  watch(container: HTMLElement, itemAt: (target: Element) => { it: Item; anchor: Element } | undefined): void {
    // (on a move too: the first move after keys, over the row the pointer is already on, brings cards back)
    const over = (ev: PointerEvent) => {
      if (this.byKey || this.quiet || ev.pointerType === 'touch' || (ev.buttons & 1) !== 0) return;
      const hit = itemAt(ev.target as Element);
      if (!hit) return;
      cancelAfter(this.hideTimer);
      if (this.shown === hit.it || this.pending === hit.it) return;
      cancelAfter(this.showTimer);
      this.pending = hit.it;
      this.showTimer = after(SHOW_MS, () => this.show(hit.it, hit.anchor.getBoundingClientRect()));
    };
    container.addEventListener('pointerover', over);
    container.addEventListener('pointermove', over);
    container.addEventListener('pointerout', (ev) => {
      if (this.byKey) return;
      const to = ev.relatedTarget as Element | null;
      if (to && (this.el.contains(to) || (container.contains(to) && itemAt(to)?.it === this.shown))) return;
      cancelAfter(this.showTimer);
      this.pending = undefined;
      this.hideSoon();
    });
    container.addEventListener('pointerdown', () => {
      if (this.byKey) return;
      this.hide();
      this.quiet = true;
    });
  }

  /** By key: opens the card of `it` at `anchor`; when it is open already, moves focus into it. */
  toggleByKey(it: Item | undefined, anchor: Element | undefined): void {
    if (!it) return;
    if (this.byKey && this.shown === it) {
      this.el.tabIndex = 0;
      this.el.focus();
      return;
    }
    this.show(it, anchor?.getBoundingClientRect());
    this.byKey = true;
    this.host.describedEl.setAttribute('aria-describedby', CARD_ID);
  }

  /** The selection moved while the card is open by key: it shows the new selection. */
  follow(it: Item | undefined, anchor: () => Element | undefined): void {
    if (!this.byKey) return;
    if (!it) return this.hide();
    // The anchor is measured only here: measuring forces a layout, which a closed card must not cost.
    if (it !== this.shown) this.show(it, anchor()?.getBoundingClientRect());
  }

  /** Escape: closes a card open by key (true), else leaves the key to others. */
  closeByKey(): boolean {
    if (!this.byKey) return false;
    this.hide();
    return true;
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  hide(): void {
    cancelAfter(this.showTimer);
    this.pending = undefined;
    cancelAfter(this.hideTimer);
    const hadFocus = this.el.contains(document.activeElement);
    this.shown = undefined;
    this.byKey = false;
    this.el.hidden = true;
    this.el.removeAttribute('tabindex');
    this.host.describedEl.removeAttribute('aria-describedby');
    if (hadFocus) this.host.focusTree();
  }

  /** Items were rebuilt: a card for an item that no longer exists goes. */
  forget(): void {
    if (!this.byKey) this.hide();
  }

  private hideSoon(): void {
    cancelAfter(this.hideTimer);
    this.hideTimer = after(HIDE_MS, () => this.hide());
  }

  private show(it: Item, anchor: DOMRect | undefined): void {
    // Also a hide the pointer scheduled when it left: a card opened by key right after must stay.
    cancelAfter(this.showTimer);
    this.pending = undefined;
    cancelAfter(this.hideTimer);
    this.shown = it;
    if (!this.el.isConnected) document.body.append(this.el);
    this.el.replaceChildren(...this.content(it));
    this.el.hidden = false;
    this.place(anchor);
    if (!it.seg) void this.loadText(it);
  }

  private content(it: Item): HTMLElement[] {
    const nodes = this.host.nodes();
    const n = nodes[it.entry];
    const head = h('div', 'hc-head');
    const icon = h('span', `codicon codicon-${it.seg ? 'ellipsis' : (KIND_ICONS[n.kind] ?? 'symbol-event')}`);
    icon.setAttribute('aria-hidden', 'true');
    head.append(
      icon,
      h('strong', undefined, it.seg ? `${it.members!.length} entries in a row` : (KIND_NAMES[n.kind] ?? n.type)),
    );
    if (!it.seg && n.label !== undefined) head.append(h('span', 'label-badge', n.label));
    if (it.isLeaf) head.append(h('span', 'hc-leaf', 'current leaf'));
    else if (it.onPath) head.append(h('span', 'hc-path', 'on the current path'));
    const out: HTMLElement[] = [head];
    if (it.seg) {
      const m = it.members!;
      const last = nodes[m[m.length - 1]];
      out.push(h('p', 'hc-text', `${n.text}\n…\n${last.text}`));
      out.push(
        this.facts([
          ['From', `${localTime(n.time)}`],
          ['To', `${localTime(last.time)}`],
        ]),
      );
      out.push(h('p', 'hc-hint', 'Enter or Space expands the segment.'));
      return out;
    }
    const text = h('p', 'hc-text', n.text || `[${n.type}]`);
    text.dataset.entryId = n.id;
    out.push(text);
    const rows: [string, string | undefined][] = [
      ['Time', n.time ? `${localTime(n.time)} (${relativeTime(n.time, Date.now())})` : undefined],
      ['Model', n.model],
      ['Tokens', n.tokens ? `${thousands(n.tokens)} (${formatTokens(n.tokens)})` : undefined],
      ['Cost', n.cost ? `$${n.cost.toFixed(4)}` : undefined],
      ['Tools', n.tools?.join(', ')],
      [
        'Files',
        n.files?.length
          ? n.files.slice(0, 6).join(', ') + (n.files.length > 6 ? ` and ${n.files.length - 6} more` : '')
          : undefined,
      ],
      ['Branches', it.children && it.children.length > 1 ? String(it.children.length) : undefined],
      ['Folded', it.folded ? `${it.hidden} entries` : undefined],
      ['Error', n.error ? 'the model stopped with an error' : undefined],
    ];
    out.push(this.facts(rows));
    return out;
  }

  private facts(rows: [string, string | undefined][]): HTMLElement {
    const dl = h('dl', 'hc-facts');
    for (const [k, v] of rows) if (v) dl.append(h('dt', undefined, k), h('dd', undefined, v));
    return dl;
  }

  /** The projection holds a 200-character preview: the whole text is fetched once and cached. */
  private async loadText(it: Item): Promise<void> {
    const n = this.host.nodes()[it.entry];
    const put = (t: string) => {
      const p = this.el.querySelector<HTMLElement>('.hc-text');
      if (p && p.dataset.entryId === n.id && this.shown === it && t)
        p.textContent = t.length > TEXT_MAX ? `${t.slice(0, TEXT_MAX - 1)}…` : t;
    };
    const cached = this.cache.get(n.id);
    if (cached !== undefined) return put(cached);
    if (n.text.length < 150) return;
    const mine = ++this.token;
    try {
      const d = await this.host.request({ kind: 'getEntry', id: n.id });
      const t = entryText(d).trim();
      this.cache.set(n.id, t);
      if (this.cache.size > CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
      if (mine === this.token) put(t);
    } catch {
      // the preview stays; the details pane reports errors
    }
  }

  /** Below the anchor if it fits, else above; always inside the window. */
  private place(anchor: DOMRect | undefined): void {
    const el = this.el;
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    const r = anchor ?? new DOMRect(vw / 2 - 100, vh / 3, 200, 0);
    el.style.left = '0px';
    el.style.top = '0px';
    const w = el.offsetWidth;
    const hgt = el.offsetHeight;
    let top = r.bottom + 6;
    if (top + hgt > vh - 4) top = Math.max(4, r.top - hgt - 6);
    const left = Math.min(Math.max(4, r.left), Math.max(4, vw - w - 4));
    el.style.left = `${left}px`;
    el.style.top = `${top}px`;
  }
}
