// What the entry actions ask of the host: moves (with pi's rule and the summary flow), fork, clone,
// labels, copy, continue in pi, rename. Each reply is announced and each error shown; writes are refused
// up front on a read-only session.
import type { NodeView, Replies, RequestBody, RequestFn, SessionMeta } from '../../src/protocol';
import { movesToParent } from '../../src/shared/moveRule';
import type { Item } from '../model/derive';
import type { TreeModel } from '../model/treeModel';
import { openEditorTextDialog } from '../ui/editorTextDialog';
import { clipWords, short } from '../ui/format';
import { labelEditorAnchor, openLabelEditor } from '../ui/labelEditor';
import type { DialogServices } from '../ui/modal';
import type { OverlayStack } from '../ui/overlays';
import { openSummaryDialog } from '../ui/summaryDialog';
import { openCompactDialog } from '../ui/compactDialog';
import { forkedFile, wasCancelled } from './hostChannel';

export interface ActionsHost {
  meta(): SessionMeta | undefined;
  request: RequestFn;
  overlays: OverlayStack;
  announce(msg: string): void;
  error(msg: string): void;
  describe(id: string): string;
  /** An item's node in the graph and row in the outline, when they are in the DOM. */
  elementsOf(it: Item): { node?: Element; row?: Element };
  /** The in-place title editor (toolbar). */
  editTitle(current: string, done: (name: string) => void): void;
  /** Shows the leaf at `id` now, as if the host had said so (its own leafMoved then changes nothing). */
  showLeaf(id: string | null): void;
}

export class EntryActions {
  constructor(
    private readonly model: TreeModel,
    private readonly host: ActionsHost,
  ) {}

  /** What dialogs may use: the overlay stack, announcements, errors, requests, move replies. */
  dialogs(): DialogServices {
    const h = this.host;
    return {
      push: (o) => h.overlays.push(o),
      pop: (o) => h.overlays.pop(o),
      announce: (m) => h.announce(m),
      error: (m) => h.error(m),
      request: (b) => h.request(b),
      afterMove: (r, id) => this.afterMove(r, id),
    };
  }

  canWrite(): boolean {
    const ro = this.host.meta()?.readOnly;
    if (ro) {
      this.host.error(`This session cannot be changed: ${ro}`);
      return false;
    }
    return true;
  }

  async move(it: Item): Promise<void> {
    if (!this.canWrite()) return;
    const n = this.model.nodes[it.entry];
    // A session nobody else is writing moves without a question: the move is shown at the click (pi's
    // rule says where the leaf goes), and the host's write follows. A live one may ask first, or pi
    // moves it: then the host's answer is awaited.
    const meta = this.host.meta();
    const before = this.model.leafId;
    const shown = !meta?.live && !meta?.bridge ? (movesToParent(n.type, n.role) ? n.parentId : n.id) : undefined;
    if (shown !== undefined && shown !== before) this.host.showLeaf(shown);
    const undo = (leaf: string | null) => {
      // Back to where the host says the leaf is, unless something moved it again meanwhile.
      if (shown !== undefined && this.model.leafId === shown && leaf !== shown) this.host.showLeaf(leaf);
    };
    try {
      const r = await this.host.request({ kind: 'moveTo', id: n.id });
      if (wasCancelled(r) || forkedFile(r) !== undefined || !r.moved) undo(r.leafId ?? before);
      this.afterMove(r, n.id);
    } catch (e) {
      undo(before);
      this.host.error((e as Error).message);
    }
  }

  /** The host may answer a move with `cancelled` (the user declined a warning) or fork instead. */
  afterMove(reply: Replies['moveWithSummary'], targetId: string | null): void {
    if (wasCancelled(reply)) return this.host.announce('Cancelled: nothing was written');
    const file = forkedFile(reply);
    if (file !== undefined) return this.host.announce(`Forked into ${file}`);
    const r = reply as Partial<Replies['moveTo']>;
    if (!r.moved) this.host.announce('Already at this point');
    else this.host.announce(`Moved the leaf${targetId ? ` to ${this.host.describe(r.leafId ?? targetId)}` : ''}`);
    if (typeof r.editorText === 'string') openEditorTextDialog(this.dialogs(), targetId, r.editorText);
  }

  moveWithSummary(it: Item): void {
    if (!this.canWrite()) return;
    const n = this.model.nodes[it.entry];
    openSummaryDialog(
      this.dialogs(),
      { id: n.id, title: clipWords(short(n.text), 60) || n.id },
      this.host.meta()?.summariesAvailable ?? false,
    );
  }

  /** pi's /compact of the context at the leaf (the palette's and the leaf's menu's "Compact…"). */
  compact(): void {
    if (!this.canWrite()) return;
    if (this.host.overlays.some((o) => !!o.el.querySelector('[data-dialog="compact"]'))) return;
    const meta = this.host.meta();
    openCompactDialog(this.dialogs(), { available: meta?.summariesAvailable ?? false, runningPi: meta?.bridge?.pid });
  }

  async fork(n: NodeView): Promise<void> {
    if (n.role !== 'user') return this.host.announce('Fork works from a user message; use Clone for other entries');
    await this.simple({ kind: 'fork', id: n.id }, 'Forked a new session from this message');
  }

  /** Sends a request whose reply only needs announcing (`done`, with the new file's name if any). */
  async simple(body: RequestBody, done: string): Promise<void> {
    if ((body.kind === 'setLabel' || body.kind === 'rename') && !this.canWrite()) return;
    try {
      const r = await this.host.request(body);
      const file = forkedFile(r);
      if (wasCancelled(r)) this.host.announce('Cancelled: nothing was written');
      else this.host.announce(file !== undefined ? `${done}: ${file}` : done);
    } catch (e) {
      this.host.error((e as Error).message);
    }
  }

  editLabel(it: Item): void {
    if (!this.canWrite()) return;
    const n = this.model.nodes[it.entry];
    const { node, row } = this.host.elementsOf(it);
    openLabelEditor(this.dialogs(), { id: n.id, label: n.label }, labelEditorAnchor(node, row));
  }

  clearLabel(n: NodeView): void {
    if (!this.canWrite()) return;
    if (n.label === undefined) return this.host.announce('This entry has no label');
    void this.simple({ kind: 'setLabel', id: n.id }, 'Label cleared');
  }

  rename(): void {
    const meta = this.host.meta();
    if (!this.canWrite() || !meta) return;
    const current = meta.name ?? '';
    this.host.editTitle(current, (name) => {
      if (name !== current) void this.simple({ kind: 'rename', name }, name ? `Renamed to ${name}` : 'Name cleared');
    });
  }
}
