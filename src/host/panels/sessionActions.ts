// The changes a person can make to one session (move, fork, clone, label, rename), from the tree, the
// sidebar and the CodeLens alike, with the checks around them: read-only sessions refuse; a session a
// pi with the bridge runs is changed BY that pi (PiGateway), so it jumps at once and goes on from there
// (one that does not answer, stopped with Ctrl+Z, is waited for or the action cancelled: never the file);
// other live sessions ask first ("Fork instead" makes a new session beside this one instead of writing
// where pi is writing).
import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { PiUnresponsiveError } from '../../core/piClient/discovery.js';
import type { FileDetails } from '../../core/piClient/protocol.js';
import type { SessionRepository } from '../../core/session/repository.js';
import type { Session } from '../../core/session/session.js';
import { moveTarget, type MoveTarget } from '../../core/session/moveTarget.js';
import { copyText } from '../../core/context/entryText.js';
import type { MoveReply } from '../../protocol.js';
import type { PiGateway } from '../runningPi/piGateway.js';

export interface ActionDeps {
  repo: () => SessionRepository;
  /**
   * Opens a session's tree (the new file after fork or clone); `editorText`: a forked message's text,
   * offered there for re-editing (pi's /fork puts it in its editor).
   */
  openTree: (file: string, opts?: { editorText?: string }) => Promise<void>;
  /** A new session was made (fork, clone): the sidebar lists it, selected. */
  revealSession?: (file: string) => void;
  /**
   * Asks before changing a session pi is writing; resolves false to cancel, 'fork' to fork instead
   * (offered only when `canFork`: a label or a name has no "instead").
   */
  confirmLiveWrite: (file: string, action: string, canFork: boolean) => Promise<boolean | 'fork'>;
  /** Routes changes through the pi running the session, when there is one. */
  gateway?: PiGateway;
  /** pi-tree made `file` as a fork or a clone (its title says which: core/listing/forkKind.ts). */
  noteKind?: (file: string, kind: 'fork' | 'clone') => void;
}

export type Cancelled = { cancelled: true };
/** A new session from fork or clone; `file` stays on the host (replies to the webview drop it). */
export interface NewSession {
  fileName: string;
  file: string;
  /** The forked message's text (pi put it in its editor when `viaPi`). */
  text?: string;
  /** pi (this pid) made the new session and runs it now. */
  viaPi?: number;
}

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
    this.checkWritable();
    return this.deps.confirmLiveWrite(this.file, action, canFork);
  }

  /** Throws for a read-only session (also an untrusted workspace's): before any change or the work that prepares one. */
  checkWritable(): void {
    const ro = this.session.readOnly;
    if (ro) throw new Error(`This session is read-only: ${ro}.`);
  }

  /** Is a pi with the bridge running this session, answering or not? (Then every change goes through it.) */
  async piRunning(): Promise<boolean> {
    try {
      return !!(await this.deps.gateway?.live(this.file));
    } catch (e) {
      if (e instanceof PiUnresponsiveError) return true;
      throw e;
    }
  }

  /** Moves the leaf (`asked`: the live question was asked already, before the files of a restore were written). */
  async moveTo(id: string | null, o: { asked?: boolean } = {}): Promise<MoveReply & { cancelled?: boolean }> {
    const s = this.session;
    if (id !== null && this.deps.gateway) {
      this.need(id);
      this.checkWritable();
      // pi applies its own rule for user messages (leaf on the parent, the text back in its editor).
      const r = await this.deps.gateway.run(this.file, 'goto', { targetId: id }, s);
      if (r.via === 'cancelled') return { leafId: s.leafId, moved: false, cancelled: true };
      if (r.via === 'pi') {
        await s.refresh();
        return { leafId: r.data.leafId, moved: r.data.moved };
      }
    } else if (id === null && (await this.piRunning())) {
      throw new Error(
        'pi cannot move before the first entry of a session it runs. Fork from the first message instead, or quit pi first.',
      );
    }
    const { leaf, editorText } = await this.piTarget(id);
    if (leaf === s.leafId) return { leafId: leaf, editorText, moved: false };
    const ok = o.asked ? true : await this.guard('move the leaf');
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
    const file =
      leaf === null
        ? await this.deps
            .repo()
            .create(String(s.header.cwd ?? ''), { parentSession: this.file, dir: dirname(this.file) })
        : await this.deps.repo().clone(s, leaf);
    this.deps.noteKind?.(file, 'fork');
    await this.deps.openTree(file);
    this.deps.revealSession?.(file);
    return { fileName: basename(file) };
  }

  async fork(id: string): Promise<NewSession | Cancelled> {
    this.need(id);
    const viaPi = await this.newViaPi('fork', id);
    if (viaPi) return viaPi;
    const { file, text } = await this.deps.repo().fork(this.session, id);
    this.deps.noteKind?.(file, 'fork');
    await this.deps.openTree(file, { editorText: text });
    this.deps.revealSession?.(file);
    return { fileName: basename(file), file, text };
  }

  async clone(id: string): Promise<NewSession | Cancelled> {
    this.need(id);
    const viaPi = await this.newViaPi('clone', id);
    if (viaPi) return viaPi;
    const file = await this.deps.repo().clone(this.session, id);
    this.deps.noteKind?.(file, 'clone');
    await this.deps.openTree(file);
    this.deps.revealSession?.(file);
    return { fileName: basename(file), file };
  }

  /** pi forks or clones and switches to the new session (written at once, or with its first message). */
  private async newViaPi(op: 'fork' | 'clone', id: string): Promise<NewSession | Cancelled | undefined> {
    if (!this.deps.gateway) return undefined;
    this.checkWritable();
    const r =
      op === 'fork'
        ? await this.deps.gateway.run(this.file, 'fork', { entryId: id, position: 'before' }, this.session)
        : await this.deps.gateway.run(this.file, 'clone', { entryId: id }, this.session);
    if (r.via === 'none') return undefined;
    if (r.via === 'cancelled' || r.data.cancelled || !r.data.sessionFile) return { cancelled: true };
    const file = r.data.sessionFile;
    this.deps.noteKind?.(file, op);
    if (existsSync(file)) {
      // pi has the forked message in its own editor already.
      await this.deps.openTree(file);
      this.deps.revealSession?.(file);
    }
    return { fileName: basename(file), file, text: r.data.editorText, viaPi: r.pid };
  }

  /** A reviewed branch summary committed by the running pi (it writes it and moves); undefined without one. */
  async moveWithSummaryViaPi(
    id: string | null,
    text: string,
    details: FileDetails | undefined,
  ): Promise<(MoveReply & { cancelled?: boolean }) | undefined> {
    if (id === null || !this.deps.gateway) return undefined;
    this.need(id);
    this.checkWritable();
    const summary = text.trim() ? { summary: { text, ...(details ? { details } : {}) } } : {};
    const r = await this.deps.gateway.run(this.file, 'goto', { targetId: id, ...summary }, this.session);
    if (r.via === 'none') return undefined;
    if (r.via === 'cancelled') return { leafId: this.session.leafId, moved: false, cancelled: true };
    await this.session.refresh();
    return { leafId: r.data.leafId, moved: r.data.moved };
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
    if (this.deps.gateway) {
      this.checkWritable();
      const r = await this.deps.gateway.run(this.file, 'label', { entryId: id, label }, this.session);
      if (r.via === 'cancelled') return { cancelled: true };
      if (r.via === 'pi') {
        await this.session.refresh();
        return { label: label?.trim() || null };
      }
    }
    if ((await this.guard('label an entry', false)) !== true) return { cancelled: true };
    await this.session.setLabel(id, label);
    return { label: this.session.index.labels.get(id)?.label ?? null };
  }

  async rename(name: string): Promise<{ name: string | null } | Cancelled> {
    if (this.deps.gateway) {
      this.checkWritable();
      const r = await this.deps.gateway.run(this.file, 'name', { name }, this.session);
      if (r.via === 'cancelled') return { cancelled: true };
      if (r.via === 'pi') {
        await this.session.refresh();
        return { name: this.session.name ?? (name.replace(/[\r\n]+/g, ' ').trim() || null) };
      }
    }
    if ((await this.guard('rename the session', false)) !== true) return { cancelled: true };
    await this.session.setName(name);
    return { name: this.session.name ?? null };
  }
}
