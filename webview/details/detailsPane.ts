// The details pane: the selected entry's facts and action buttons, its full content (fetched on demand,
// a little after the selection settles, and cached), the members of a selected segment, and the
// "context at this entry" view in place of the content.
import type { EntryDetails, NodeView, RequestFn } from '../../src/protocol';
import type { CommandId } from '../app/keymap';
import type { Item } from '../model/derive';
import { KIND_NAMES } from '../outline/ariaText';
import { button, ButtonPool, h } from '../ui/dom';
import { localTime, thousands } from '../ui/format';
import { after, cancelAfter } from '../ui/schedule';
import { renderContext } from './contextView';
import { renderEntry, type DetailsLinks } from './entryView';
import type { AskBox } from './askBox';

const CACHE_MAX = 100;

/** What the pane shows beyond the entry itself (changes, branch actions, family links). */
export interface DetailsExtras {
  /** Buttons for branch actions, after the entry's own. */
  buttons(n: NodeView, it: Item): HTMLElement[];
  /** Appends what the entry changed in files (fetched on demand) to its body. */
  changes(n: NodeView, body: HTMLElement): void;
  /** A family link node: it has no entry to fetch. */
  link(n: NodeView, head: HTMLElement, actions: HTMLElement, body: HTMLElement): void;
}

export interface DetailsHost {
  extras?: DetailsExtras;
  nodes(): NodeView[];
  selected(): Item | undefined;
  /** The selected entry's id (also while its item is being re-derived). */
  selectedEntryId(): string | undefined;
  /** Why the session cannot be changed, if so. */
  readOnly(): string | undefined;
  /** Ask from here: the prompt box shown under an entry's actions (kept across renders). */
  askBox?: AskBox;
  request: RequestFn;
  run(id: CommandId): void;
  toggle(it: Item): void;
  goTo(id: string): void;
  /** Shows the pane if hidden. */
  show(): void;
  announce(msg: string): void;
  error(msg: string): void;
}

export class DetailsPane {
  readonly el: HTMLElement;
  private readonly cache = new Map<string, EntryDetails>();
  /** The action buttons, kept between renders (a step through the tree re-renders the pane). */
  private readonly buttons = new ButtonPool();
  private timer = 0;
  /** The entry whose context is shown instead of its content. */
  private contextFor: string | null | undefined;
  /** Another view shown instead of the entry's content (e.g. files changed on its branch). */
  private panel: { id: string; title: string; load: () => Promise<HTMLElement> } | undefined;

  constructor(private readonly host: DetailsHost) {
    this.el = h('aside', 'details');
    this.el.setAttribute('aria-label', 'Details');
    this.el.tabIndex = -1;
  }

  /** Forgets every entry (a new snapshot) or one whose label changed. */
  forget(id?: string): void {
    if (id === undefined) this.cache.clear();
    else this.cache.delete(id);
  }

  /** Escape on the context view goes back to the entry; false when it is not shown. */
  leaveContext(): boolean {
    if (this.contextFor === undefined && this.panel === undefined) return false;
    this.contextFor = undefined;
    this.panel = undefined;
    this.render();
    return true;
  }

  render(): void {
    cancelAfter(this.timer);
    const el = this.el;
    const it = this.host.selected();
    if (!it) {
      el.replaceChildren(h('p', 'muted', 'Select an entry to see its details.'));
      return;
    }
    const nodes = this.host.nodes();
    const n = nodes[it.entry];
    const head = h('div', 'details-head');
    const body = h('div', 'details-body');
    const actions = h('div', 'details-actions');
    if (it.seg) {
      this.segment(it, nodes, head, actions, body);
      el.replaceChildren(head, actions, body);
      return;
    }
    if (n.kind === 'link' && this.host.extras) {
      this.host.extras.link(n, head, actions, body);
      el.replaceChildren(head, actions, body);
      return;
    }
    this.facts(it, n, head);
    this.actions(it, n, actions);
    if (this.panel?.id === n.id) {
      const p = this.panel;
      head.append(h('h3', undefined, p.title), this.backLink());
      body.append(h('p', 'muted', 'Loading…'));
      this.place(n, head, actions, body);
      void p.load().then(
        (view) => this.panel === p && body.replaceChildren(view),
        (e) => this.panel === p && body.replaceChildren(h('p', 'error', (e as Error).message)),
      );
      return;
    }
    this.panel = undefined;
    if (this.contextFor === n.id) {
      const back = h('button', 'link', '← Back to the entry');
      back.type = 'button';
      back.addEventListener('click', () => this.leaveContext());
      head.append(h('h3', undefined, 'Context if the leaf were here'), back);
      body.append(h('p', 'muted', 'Loading the context…'));
      this.place(n, head, actions, body);
      return;
    }
    this.contextFor = undefined;
    this.place(n, head, actions, body);
    const cached = this.cache.get(n.id);
    if (cached) {
      body.replaceChildren(renderEntry(cached, this.links()));
      this.host.extras?.changes(n, body);
      return;
    }
    body.append(h('p', 'muted', n.text));
    const id = n.id;
    // Fetched on demand, a little after the selection settles (arrowing through rows stays cheap).
    this.timer = after(120, async () => {
      try {
        const det = await this.host.request({ kind: 'getEntry', id });
        this.cache.set(id, det);
        if (this.cache.size > CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
        if (this.host.selectedEntryId() !== id || this.contextFor !== undefined) return;
        body.replaceChildren(renderEntry(det, this.links()));
        this.host.extras?.changes(n, body);
      } catch (e) {
        if (this.host.selectedEntryId() === id) body.replaceChildren(h('p', 'error', (e as Error).message));
      }
    });
  }

  /**
   * An entry's parts in the pane, the ask box between its actions and its content. The box stays in
   * the document while the parts around it are replaced: moved out and back, its prompt would lose
   * the focus (and the user's typing) at every render a delta causes.
   */
  private place(n: NodeView, head: HTMLElement, actions: HTMLElement, body: HTMLElement): void {
    const box = this.host.askBox?.attach(n);
    if (!box) return this.el.replaceChildren(head, actions, body);
    if (box.parentElement !== this.el) return this.el.replaceChildren(head, actions, box, body);
    for (const c of [...this.el.children]) if (c !== box) c.remove();
    box.before(head, actions);
    box.after(body);
  }

  /** Key A, the node menu's "Ask from Here…": the pane shown, the selected entry's prompt focused. */
  focusAsk(): boolean {
    this.host.show();
    this.render();
    return this.host.askBox?.focus() ?? false;
  }

  private backLink(): HTMLElement {
    const back = h('button', 'link', '← Back to the entry');
    back.type = 'button';
    back.addEventListener('click', () => this.leaveContext());
    return back;
  }

  /** Shows `load`'s view in place of entry `id`'s content, until Escape or another selection. */
  showPanel(id: string, title: string, load: () => Promise<HTMLElement>): void {
    this.contextFor = undefined;
    this.panel = { id, title, load };
    this.host.show();
    this.render();
  }

  /** "Context at this entry": what the model would see with the leaf at `id`. */
  async showContext(id: string): Promise<void> {
    this.contextFor = id;
    this.panel = undefined;
    this.host.show();
    this.render();
    try {
      const c = await this.host.request({ kind: 'getContext', id });
      if (this.contextFor !== id) return;
      this.el.querySelector('.details-body')?.replaceChildren(renderContext(c, this.links()));
      this.host.announce(`Context at this entry: ${c.messages.length} messages, about ${c.tokens} tokens`);
    } catch (e) {
      this.host.error((e as Error).message);
    }
  }

  private links(): DetailsLinks {
    return { goTo: (id) => this.host.goTo(id), markdown: true };
  }

  private segment(it: Item, nodes: NodeView[], head: HTMLElement, actions: HTMLElement, body: HTMLElement): void {
    const m = it.members!;
    head.append(
      h('h2', undefined, `${m.length} entries`),
      h('p', 'muted', 'A run of entries without branches, shown as one node.'),
    );
    const expand = button('Expand', 'expand', { icon: 'unfold' });
    expand.addEventListener('click', () => this.host.toggle(it));
    actions.append(expand);
    const ol = h('ol', 'seg-list');
    for (const e of m.slice(0, 200)) {
      const li = h('li');
      const text = nodes[e].text || `[${nodes[e].type}]`;
      const b = h('button', 'link', text);
      b.type = 'button';
      b.title = text;
      b.addEventListener('click', () => this.host.goTo(nodes[e].id));
      li.append(b);
      ol.append(li);
    }
    if (m.length > 200) ol.append(h('li', 'muted', `… ${m.length - 200} more`));
    body.append(ol);
  }

  private facts(it: Item, n: NodeView, head: HTMLElement): void {
    const title = h('h2');
    title.append(
      h('span', `codicon codicon-${'circle-filled'} kind-dot k-${n.kind}`),
      document.createTextNode(` ${KIND_NAMES[n.kind] ?? n.type}`),
    );
    head.append(title);
    if (n.label !== undefined) head.append(h('span', 'label-badge', n.label));
    const facts = h('p', 'muted facts');
    facts.append(document.createTextNode(`${n.time ? localTime(n.time) : ''} · `), h('code', undefined, n.id));
    if (it.isLeaf) facts.append(document.createTextNode(' · current leaf'));
    else if (it.onPath) facts.append(document.createTextNode(' · on the current path'));
    const cost = [n.model, n.tokens ? `${thousands(n.tokens)} tokens` : '', n.cost ? `$${n.cost.toFixed(4)}` : '']
      .filter(Boolean)
      .join(' · ');
    head.append(facts);
    if (cost) head.append(h('p', 'muted', cost));
  }

  /** The action buttons run the same commands as their keys; writes are disabled on a read-only session. */
  private actions(it: Item, n: NodeView, actions: HTMLElement): void {
    const ro = this.host.readOnly();
    const add = (
      label: string,
      action: string,
      icon: string,
      cmd: CommandId,
      write = false,
      extra: { disabled?: boolean; title?: string; secondary?: boolean } = {},
    ) => {
      const opts = {
        icon,
        secondary: extra.secondary ?? true,
        disabled: extra.disabled || (write && !!ro),
        title: write && ro ? `Read-only: ${ro}` : extra.title,
      };
      actions.append(this.buttons.get(label, action, opts, () => this.host.run(cmd)));
    };
    add(n.role === 'user' ? 'Move before this message' : 'Move here', 'move', 'debug-step-over', 'act.move', true, {
      secondary: false,
      disabled: it.isLeaf,
    });
    add('Move with summary…', 'move-summary', 'git-merge', 'act.moveSummary', true, { disabled: it.isLeaf });
    if (n.role === 'user') add('Fork', 'fork', 'repo-forked', 'act.fork');
    add('Clone to here', 'clone', 'copy', 'act.clone');
    add(n.label !== undefined ? 'Edit label' : 'Label…', 'label', 'tag', 'act.label', true);
    if (n.label !== undefined) add('Clear label', 'clear-label', 'close', 'act.clearLabel', true);
    add('Copy text', 'copy', 'clippy', 'act.copy');
    add('Continue in pi', 'continue', 'terminal', 'act.continue');
    add('Context here', 'context', 'eye', 'act.context');
    if (this.host.extras) actions.append(...this.host.extras.buttons(n, it));
  }
}
