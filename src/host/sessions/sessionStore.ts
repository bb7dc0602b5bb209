// Open sessions shared by every view of the host (a file opened in two panels is one Session, so its
// appends are serialized in one queue). Sessions are kept while something holds them.
import { Session } from '../../core/session/session.js';

interface Slot {
  session: Promise<Session>;
  refs: number;
  /** The session once open (for synchronous questions). */
  ready?: Session;
}

export class SessionStore {
  private readonly slots = new Map<string, Slot>();
  /** Set while the workspace is untrusted: every session is read-only. */
  private blocked: string | undefined;

  setWriteBlocked(reason: string | undefined): void {
    this.blocked = reason;
    for (const slot of this.slots.values())
      void slot.session.then(
        (s) => (s.writeBlocked = reason),
        () => undefined,
      );
  }

  async acquire(path: string): Promise<{ session: Session; release: () => void }> {
    let slot = this.slots.get(path);
    if (!slot) {
      const opening = Session.open(path).then((s) => {
        s.writeBlocked = this.blocked;
        if (this.slots.get(path) === slot) slot!.ready = s;
        return s;
      });
      slot = { session: opening, refs: 0 };
      this.slots.set(path, slot);
      opening.catch(() => {
        if (this.slots.get(path) === slot) this.slots.delete(path);
      });
    }
    slot.refs++;
    const session = await slot.session;
    let released = false;
    return {
      session,
      release: () => {
        if (released) return;
        released = true;
        if (--slot!.refs <= 0 && this.slots.get(path) === slot) {
          this.slots.delete(path);
          // Its own last write is still known once nothing holds the session (a rename from the
          // sidebar, a label from the CodeLens): the file at that size was written by pi-tree.
          if (session.ownWriteSize !== undefined) this.created.set(path, session.ownWriteSize);
        }
      },
    };
  }

  /** Reads what was appended to `path`, if it is open. */
  async refresh(path: string): Promise<void> {
    const slot = this.slots.get(path);
    if (!slot) return;
    try {
      await (await slot.session).refresh();
    } catch {
      // a deleted or unreadable file: views keep what they have until closed
    }
  }

  private readonly created = new Map<string, number>();

  /** Remembers a file pi-tree wrote itself (fork, clone, new session, a released session's last write) at that size. */
  noteOwnFile(path: string, size: number): void {
    this.created.set(path, size);
  }

  /** True when the file's current size is what pi-tree's own last write left (so the change was ours). */
  lastWriteWasOurs(path: string, size: number): boolean {
    const own = this.slots.get(path)?.ready?.ownWriteSize;
    return own !== undefined ? own === size : this.created.get(path) === size;
  }

  get(path: string): Promise<Session> | undefined {
    return this.slots.get(path)?.session;
  }
}
