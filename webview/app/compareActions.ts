// The webview's side of the compare views: compare two nodes ("Compare with…" marks one, the next pick compares),
// the code changes of an entry and of a branch in the details pane, export as Markdown, the hidden mark
// for dead-end branches, and family link nodes (a click opens the other session). Everything is a
// request naming entry ids or a link token; the host does the rest.
import type { ChangeView, CodeStateReply, NodeView, RequestFn, SessionMeta } from '../../src/protocol';
import { renderBranchFiles, renderChanges } from '../details/changesList';
import type { DetailsExtras } from '../details/detailsPane';
import { isLink, linkToken } from '../family/familyNodes';
import type { Item } from '../model/derive';
import { effectiveHidden, hiddenMask } from '../model/hiddenBranches';
import type { TreeModel } from '../model/treeModel';
import { button, ButtonPool, h } from '../ui/dom';
import { short } from '../ui/format';
import { after } from '../ui/schedule';

/** How long a node stays shown before the details pane asks for the code there. */
const CODE_STATE_DELAY_MS = 150;
/** A file's mark in "Code at this node", and what it says: the change from this node to the files now. */
const CODE_STATUS: Record<CodeStateReply['files'][number]['status'], [icon: string, since: string]> = {
  added: ['diff-added', 'created since this node'],
  deleted: ['diff-removed', 'deleted since this node'],
  modified: ['diff-modified', 'changed since this node'],
  unknown: ['question', 'not known at this node'],
};

/** What a restore here does, in the words Move here and the restore's choice use (the host's planWords). */
function restoreWords(r: CodeStateReply['restore']): string {
  if (!r) return '';
  const kept = r.kept
    ? ` ${r.kept === 1 ? 'One more differs that only you changed: it is kept.' : `${r.kept} more differ that only you changed: they are kept.`}`
    : '';
  return r.files
    ? ` Restoring here: ${r.words}.${kept}`
    : ` A restore here writes no file: the agent did not change these.`;
}

export interface CompareActionsHost {
  request: RequestFn;
  meta(): SessionMeta | undefined;
  announce(msg: string): void;
  error(msg: string): void;
  describe(id: string): string;
  goTo(id: string): void;
  /** The tree must be derived again (hidden marks changed). */
  refresh(): void;
  /** The compare mark changed: the header, nodes and rows show it again (no new pass). */
  marksChanged(): void;
  /** Shows a view in the details pane in place of the entry (Escape or a new selection leaves it). */
  showInDetails(id: string, title: string, load: () => Promise<HTMLElement>): void;
}

export class CompareActions implements DetailsExtras {
  /** The entry "Compare with…" was started on; the next pick compares with it. */
  compareBase: string | undefined;
  /** Entries whose branches are marked hidden. */
  hidden = new Set<string>();
  /** Hidden branches are shown anyway (the toolbar's toggle). */
  showHidden = false;
  private mask: { version: number; hidden: number; leaf: number; mask: Uint8Array | undefined } | undefined;
  private hiddenVersion = 0;
  /** The details pane's buttons of these views, kept between renders. */
  private readonly pool = new ButtonPool();
  /** Entries with a checkpoint, and why capture is off for the session, if it is. */
  codeMarks = new Set<string>();
  codeOff: string | undefined;

  constructor(
    private readonly model: TreeModel,
    private readonly host: CompareActionsHost,
  ) {}

  // ───────────── compare ─────────────

  /** "Compare with…": the first call marks `n`, the next (on another entry) opens the compare view. */
  compareWith(n: NodeView): void {
    if (isLink(n)) return this.host.announce('A link is not an entry of this session: open it to compare inside it');
    const base = this.compareBase;
    if (base === undefined || base === n.id || !this.model.index.has(base)) {
      this.compareBase = n.id;
      this.host.announce(
        `Compare: ${this.host.describe(n.id)} is marked. Select the other entry and press C (Escape cancels).`,
      );
      this.host.marksChanged();
      return;
    }
    this.compareBase = undefined;
    this.host.marksChanged();
    void this.compare(base, n.id);
  }

  async compare(id: string, other: string | null): Promise<void> {
    try {
      await this.host.request({ kind: 'compare', id, other });
      this.host.announce(
        `Comparing ${this.host.describe(id)} with ${other ? this.host.describe(other) : 'the current leaf'}`,
      );
    } catch (e) {
      this.host.error((e as Error).message);
    }
  }

  /** Escape: cancels a pending "Compare with…"; false when there is none. */
  escape(): boolean {
    if (this.compareBase === undefined) return false;
    this.compareBase = undefined;
    this.host.announce('Compare cancelled');
    this.host.marksChanged();
    return true;
  }

  /** The entry a first "Compare with…" marked (-1: none, or it left the session's entries). */
  markedEntry(): number {
    return this.compareBase === undefined ? -1 : (this.model.index.get(this.compareBase) ?? -1);
  }

  /**
   * While an entry is marked for compare: a chip in the header naming it, with what to do next and a
   * button that cancels (as Escape does). Clicking the chip's text selects the marked entry.
   */
  compareChip(): HTMLElement[] {
    const id = this.compareBase;
    if (id === undefined || this.markedEntry() < 0) return [];
    const chip = h('span', 'badge compare-chip');
    chip.setAttribute('role', 'status');
    chip.dataset.entryId = id;
    const go = h('button', 'compare-chip-text');
    go.type = 'button';
    go.dataset.action = 'compare-marked';
    go.title = 'Select the marked entry';
    go.append(
      h('span', 'codicon codicon-git-compare'),
      h(
        'span',
        'compare-chip-label',
        `Press C on another entry to compare it with “${short(this.model.nodes[this.markedEntry()].text).slice(0, 60)}”`,
      ),
    );
    go.addEventListener('click', () => this.host.goTo(id));
    const cancel = h('button', 'icon-button compare-cancel');
    cancel.type = 'button';
    cancel.dataset.action = 'compare-cancel';
    cancel.title = 'Cancel compare (Escape)';
    cancel.setAttribute('aria-label', 'Cancel compare (Escape)');
    cancel.append(h('span', 'codicon codicon-close'));
    cancel.addEventListener('click', () => this.escape());
    chip.append(go, cancel);
    return [chip];
  }

  /** "N hidden branches" for the header while branches are marked hidden (a click shows or hides them). */
  hiddenBadge(): HTMLElement[] {
    const n = this.activeHidden().length;
    if (!n) return [];
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `badge hidden-branches${this.showHidden ? ' shown' : ''}`;
    b.dataset.action = 'toggle-show-hidden';
    b.textContent = `${n} hidden ${n === 1 ? 'branch' : 'branches'}${this.showHidden ? ' (shown)' : ''}`;
    b.title = this.showHidden
      ? 'Hide the branches marked hidden again (Shift+H)'
      : 'Show the branches marked hidden (Shift+H)';
    b.addEventListener('click', () => this.toggleShowHidden());
    return [b];
  }

  // ───────────── branch: files, export ─────────────

  showBranchFiles(n: NodeView): void {
    if (isLink(n)) return;
    this.host.showInDetails(n.id, 'Files changed on this branch', async () => {
      const r = await this.host.request({ kind: 'branchFiles', id: n.id });
      this.host.announce(`${r.files.length} files changed on this branch`);
      return renderBranchFiles(r, (id) => this.host.goTo(id));
    });
  }

  async exportBranch(n: NodeView, to: 'editor' | 'clipboard'): Promise<void> {
    if (isLink(n)) return;
    try {
      const r = await this.host.request({ kind: 'exportBranch', id: n.id, to });
      this.host.announce(
        to === 'clipboard'
          ? `Copied the branch as Markdown (${r.entries} entries)`
          : `Opened the branch as Markdown (${r.entries} entries)`,
      );
    } catch (e) {
      this.host.error((e as Error).message);
    }
  }

  // ───────────── hidden branches ─────────────

  /** Takes the hidden marks of new meta; true when they changed. */
  setMeta(meta: SessionMeta): boolean {
    const next = new Set(meta.hidden ?? []);
    if (next.size === this.hidden.size && [...next].every((x) => this.hidden.has(x))) return false;
    this.hidden = next;
    this.hiddenVersion++;
    return true;
  }

  isHidden(n: NodeView): boolean {
    return this.hidden.has(n.id);
  }

  async toggleHidden(n: NodeView): Promise<void> {
    if (isLink(n)) return;
    const hide = !this.hidden.has(n.id);
    if (hide && this.model.pathMask()[this.model.index.get(n.id) ?? -1]) {
      return this.host.announce(
        'This entry is on the current path, which is always shown: hide a branch that leaves it',
      );
    }
    try {
      const r = await this.host.request({ kind: 'setHidden', id: n.id, hidden: hide });
      this.hidden = new Set(r.hidden);
      this.hiddenVersion++;
      this.host.announce(
        hide
          ? `Hid the branch at ${this.host.describe(n.id)}${this.showHidden ? ' (hidden branches are shown now)' : ''}`
          : 'The branch is shown again',
      );
      this.host.refresh();
    } catch (e) {
      this.host.error((e as Error).message);
    }
  }

  toggleShowHidden(): void {
    this.showHidden = !this.showHidden;
    this.hiddenVersion++;
    this.host.announce(this.showHidden ? 'Showing hidden branches' : 'Hidden branches are hidden again');
    this.host.refresh();
  }

  /** Branch marks that hide something (marks on the current path do not). */
  activeHidden(): string[] {
    return effectiveHidden(this.model, this.hidden);
  }

  /** The entries to leave out of the view (cached per model version and leaf). */
  hiddenEntries(): Uint8Array | undefined {
    if (this.showHidden || !this.hidden.size) return undefined;
    const m = this.mask;
    if (m && m.version === this.model.version && m.hidden === this.hiddenVersion && m.leaf === this.model.leaf)
      return m.mask;
    const mask = hiddenMask(this.model, this.hidden);
    this.mask = { version: this.model.version, hidden: this.hiddenVersion, leaf: this.model.leaf, mask };
    return mask;
  }

  // ───────────── family links ─────────────

  async openLink(n: NodeView): Promise<void> {
    try {
      await this.host.request({ kind: 'openLink', token: linkToken(n) });
      this.host.announce(`Opened ${n.link?.fileName ?? 'the session'}`);
    } catch (e) {
      this.host.error((e as Error).message);
    }
  }

  // ───────────── details pane (DetailsExtras) ─────────────

  buttons(n: NodeView, it: Item): HTMLElement[] {
    const add = (label: string, action: string, icon: string, fn: () => void, title?: string) =>
      this.pool.get(label, action, { icon, secondary: true, title }, fn);
    const out = [
      this.compareBase === n.id
        ? add(
            'Marked for compare',
            'compare-with',
            'git-compare',
            () => this.compareWith(n),
            'Marked: select the other entry and press C (Escape cancels)',
          )
        : add(
            this.compareBase ? 'Compare with marked' : 'Compare with…',
            'compare-with',
            'diff',
            () => this.compareWith(n),
            'Compare this entry with another one (C)',
          ),
    ];
    if (!it.isLeaf && this.model.leafId)
      out.push(
        add(
          'Compare with leaf',
          'compare-leaf',
          'diff-multiple',
          () => void this.compare(n.id, null),
          'Compare with the current leaf (Shift+C)',
        ),
      );
    out.push(
      add(
        'Files on branch',
        'branch-files',
        'files',
        () => this.showBranchFiles(n),
        'Files changed on the path from the root to here (E)',
      ),
      add(
        'Export Markdown',
        'export-branch',
        'markdown',
        () => void this.exportBranch(n, 'editor'),
        'The path from the root to here as Markdown, in a new editor (Shift+E)',
      ),
      add(
        'Copy Markdown',
        'copy-branch',
        'copy',
        () => void this.exportBranch(n, 'clipboard'),
        'The path from the root to here as Markdown, on the clipboard',
      ),
    );
    if (!it.onPath || this.hidden.has(n.id))
      out.push(
        add(
          this.hidden.has(n.id) ? 'Unhide branch' : 'Hide branch',
          'toggle-hidden',
          this.hidden.has(n.id) ? 'eye' : 'eye-closed',
          () => void this.toggleHidden(n),
          'Hide this dead-end branch from the default view (H); nothing is deleted',
        ),
      );
    return out;
  }

  setCodeMarks(ids: string[], off: string | undefined): void {
    this.codeMarks = new Set(ids);
    this.codeOff = off;
  }

  /** "Code at this node": how it differs from the files now, with a diff and a restore. */
  private codeSection(n: NodeView, body: HTMLElement): void {
    const slot = h('section', 'block code-state');
    slot.append(h('h3', undefined, 'Code at this node'), h('p', 'muted', 'Comparing with the files now…'));
    body.append(slot);
    // Asked only once the node stays shown a moment: walking the tree with the keys passes many nodes,
    // and the code at a node of a long session takes the host a while to work out.
    after(CODE_STATE_DELAY_MS, () => {
      if (slot.isConnected) this.askCodeState(n, slot);
    });
  }

  private askCodeState(n: NodeView, slot: HTMLElement): void {
    void this.host.request({ kind: 'codeState', id: n.id }).then(
      (r) => {
        if (!slot.isConnected) return;
        const how =
          r.how === 'snapshot'
            ? 'from a checkpoint'
            : r.how === 'snapshot+calls'
              ? 'from a checkpoint and the calls after it'
              : r.how === 'calls'
                ? 'from the session’s recorded edit and write calls'
                : 'not known';
        const known = r.files.filter((f) => f.status !== 'unknown');
        const summary = r.files.length
          ? `${known.length} ${known.length === 1 ? 'file differs' : 'files differ'} from now${r.files.length > known.length ? `, ${r.files.length - known.length} not known` : ''} (${how}).${restoreWords(r.restore)}`
          : `The files now are as they were here (${how}).`;
        const ul = h('ul', 'change-list');
        for (const f of r.files.slice(0, 50)) {
          const li = h('li', `change code-${f.status}`);
          const [icon, since] = CODE_STATUS[f.status];
          const mark = h('span', `codicon codicon-${icon}`);
          mark.setAttribute('role', 'img');
          mark.setAttribute('aria-label', since);
          li.title = `${f.path}: ${since}`;
          li.append(mark, h('span', 'change-path', f.path));
          ul.append(li);
        }
        if (r.files.length > 50) ul.append(h('li', 'muted', `… ${r.files.length - 50} more`));
        const row = h('div', 'details-actions');
        if (known.length) {
          // (kept from node to node, as the actions are: making a UI-kit button costs a component render)
          row.append(
            this.pool.get(
              'Compare with now',
              'code-diff',
              { icon: 'diff-multiple', secondary: true },
              () =>
                void this.codeRequest({ kind: 'openCodeDiff', id: n.id }, 'Opened the code at this node against now'),
            ),
            this.pool.get(
              'Restore code…',
              'restore-code',
              { icon: 'history', secondary: true },
              () => void this.codeRequest({ kind: 'restoreCode', id: n.id }, 'Restore finished or cancelled'),
            ),
          );
        }
        slot.replaceChildren(
          h('h3', undefined, 'Code at this node'),
          h('p', 'muted', summary),
          ...(r.files.length ? [ul] : []),
          row,
          ...r.notes.slice(0, 3).map((t) => h('p', 'muted', t)),
        );
        if (r.skipped)
          slot.append(
            h(
              'p',
              'muted',
              `Not captured here: ${r.skipped.count} ${r.skipped.count === 1 ? 'file' : 'files'} (${r.skipped.paths.join(', ')}${r.skipped.count > r.skipped.paths.length ? ', …' : ''}).`,
            ),
          );
        if (this.codeOff) slot.append(h('p', 'muted', `Checkpoints are off for this session: ${this.codeOff}`));
      },
      (e) =>
        slot.isConnected &&
        slot.replaceChildren(h('h3', undefined, 'Code at this node'), h('p', 'error', (e as Error).message)),
    );
  }

  private async codeRequest(
    body: { kind: 'openCodeDiff'; id: string } | { kind: 'restoreCode'; id: string },
    done: string,
  ): Promise<void> {
    try {
      await this.host.request(body);
      this.host.announce(done);
    } catch (e) {
      this.host.error((e as Error).message);
    }
  }

  changes(n: NodeView, body: HTMLElement): void {
    // (every entry of a session with checkpoints: the code at an answer is its turn's; else where files changed)
    if (!isLink(n) && (this.codeMarks.size || n.changed?.length)) this.codeSection(n, body);
    const calls =
      n.changed?.length ||
      (n.role === 'toolResult' && n.tools?.some((t) => t === 'edit' || t === 'write' || t === 'bash'));
    if (!calls || isLink(n)) return;
    const slot = h('div', 'changes-slot');
    body.append(slot);
    void this.host.request({ kind: 'getChanges', id: n.id }).then(
      (r) => {
        if (!slot.isConnected || !r.changes.length) return;
        slot.replaceChildren(renderChanges(r, (c) => void this.openChange(n.id, c)));
      },
      (e) => slot.isConnected && slot.replaceChildren(h('p', 'error', (e as Error).message)),
    );
  }

  private async openChange(id: string, c: ChangeView): Promise<void> {
    try {
      await this.host.request({ kind: 'openChange', id, index: c.index });
      this.host.announce(`Opened the ${c.tool} of ${c.path} in a diff editor`);
    } catch (e) {
      this.host.error((e as Error).message);
    }
  }

  link(n: NodeView, head: HTMLElement, actions: HTMLElement, body: HTMLElement): void {
    const l = n.link;
    head.append(
      h(
        'h2',
        undefined,
        l?.relation === 'parent' ? 'The session this one came from' : 'A fork or clone of this session',
      ),
      h('p', 'muted', l?.facts ?? ''),
    );
    const open = button('Open its tree', 'open-link', { icon: 'type-hierarchy' });
    open.addEventListener('click', () => void this.openLink(n));
    actions.append(open);
    body.append(h('p', undefined, short(n.text.replace(/^(↰ from: |fork: )/, ''))), h('p', 'muted', l?.fileName ?? ''));
    body.append(
      h(
        'p',
        'muted',
        l?.relation === 'parent'
          ? 'This session was made from that one (fork or clone): the entries above this link are its copy of that session’s path.'
          : 'That session was made from this one at the entry above this link: it holds a copy of the path to here, then goes its own way.',
      ),
    );
  }
}
