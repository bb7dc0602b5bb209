// The changes a person can make to one open session from the tree (move, fork, clone, label, rename),
// with the checks around them: read-only sessions refuse, live sessions ask first ("Fork instead" makes
// a new session beside this one instead of writing where pi is writing).
import { basename, dirname } from 'node:path';
import type { SessionRepository } from '../../core/repository.js';
import type { Session } from '../../core/session.js';
import { moveTarget, type MoveTarget } from '../../core/moveTarget.js';
import { copyText } from '../../core/preview.js';
import type { MoveReply } from '../../protocol.js';

export interface ActionDeps {
  repo: () => SessionRepository;
  /** Opens a session's tree (the new file after fork or clone). */
  openTree: (file: string) => Promise<void>;
  /**
   * Asks before changing a session pi is writing; resolves false to cancel, 'fork' to fork instead
   * (offered only when `canFork`: a label or a name has no "instead").
   */
  confirmLiveWrite: (file: string, action: string, canFork: boolean) => Promise<boolean | 'fork'>;
}

export type Cancelled = { cancelled: true };

export class SessionActions {
  constructor(
    private readonly session: Session,
    private readonly file: string,
    private readonly deps: ActionDeps,
  ) {}

  /** The entry, or a clear error when the webview names one this session does not have. */
  need(id: string) {
    const rec = this.session.index.get(id);
    if (!rec) throw new Error(`Entry ${id} is not in this session.`);
    return rec;
  }

  /** pi's /tree rule (core/moveTarget.ts): a user (or custom) message puts the leaf on its parent and hands back its text. */
  piTarget(id: string | null): Promise<MoveTarget> {
    if (id !== null) this.need(id);
    return moveTarget(this.session, id);
  }

  /** Read-only sessions throw; live ones ask (true: go on, false: cancelled, 'fork': fork instead). */
  async guard(action: string, canFork = true): Promise<boolean | 'fork'> {
    const ro = this.session.readOnly;
    if (ro) throw new Error(`This session is read-only: ${ro}.`);
    return this.deps.confirmLiveWrite(this.file, action, canFork);
  }

  async moveTo(id: string | null): Promise<MoveReply & { cancelled?: boolean }> {
    const s = this.session;
    const { leaf, editorText } = await this.piTarget(id);
    if (leaf === s.leafId) return { leafId: leaf, editorText, moved: false };
    const ok = await this.guard('move the leaf');
    if (ok === false) return { leafId: s.leafId, moved: false, cancelled: true };
    if (ok === 'fork') {
      await this.forkInstead(leaf);
      return { leafId: s.leafId, editorText, moved: false };
    }
    const r = await s.moveTo(leaf);
    return { leafId: r.leafId, editorText, moved: r.moved };
  }

  /** A new session beside this one holding the path to `leaf` (an empty one that remembers its parent for the root). */
  async forkInstead(leaf: string | null): Promise<{ fileName: string }> {
    const s = this.session;
    const file = leaf === null ? await this.deps.repo().create(String(s.header.cwd ?? ''), { parentSession: this.file, dir: dirname(this.file) }) : await this.deps.repo().clone(s, leaf);
    await this.deps.openTree(file);
    return { fileName: basename(file) };
  }

  async fork(id: string): Promise<{ fileName: string; text: string }> {
    this.need(id);
    const { file, text } = await this.deps.repo().fork(this.session, id);
    await this.deps.openTree(file);
    return { fileName: basename(file), text };
  }

  async clone(id: string): Promise<{ fileName: string }> {
    this.need(id);
    const file = await this.deps.repo().clone(this.session, id);
    await this.deps.openTree(file);
    return { fileName: basename(file) };
  }

  /** The text "Copy text" puts on the clipboard (message text, tool output, summary …). */
  async copyableText(id: string): Promise<string> {
    this.need(id);
    const e = await this.session.getEntry(id);
    const text = e ? copyText(e) : undefined;
    if (!text) throw new Error('This entry has no text to copy.');
    return text;
  }

  async setLabel(id: string, label: string | undefined): Promise<{ label: string | null } | Cancelled> {
    this.need(id);
    if ((await this.guard('label an entry', false)) !== true) return { cancelled: true };
    await this.session.setLabel(id, label);
    return { label: this.session.index.labels.get(id)?.label ?? null };
  }

  async rename(name: string): Promise<{ name: string | null } | Cancelled> {
    if ((await this.guard('rename the session', false)) !== true) return { cancelled: true };
    await this.session.setName(name);
    return { name: this.session.name ?? null };
  }
}
