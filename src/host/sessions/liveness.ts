// "Live": someone other than pi-tree (pi, most likely) appended to the session a moment ago. pi keeps
// its leaf in memory and never re-reads its file, so changing a live session asks first.
//
// Growth is what counts, not the file's age: a file seen for the first time (the listing's first look,
// a session copied or restored into the folder, a new one pi just wrote) is not live until it grows;
// pi-tree's own appends (SessionStore.lastWriteWasOurs) move the baseline without making it live. A
// session a pi with the bridge runs is known for sure and shown as "pi connected" instead.
import { statSync } from 'node:fs';

export interface LivenessDeps {
  /** Whether pi-tree's own last write left the file at this size. */
  ownWrite(path: string, size: number): boolean;
  /** The live window in milliseconds (piTree.liveWindowSeconds). */
  windowMs(): number;
  now?(): number;
}

interface Seen {
  size: number;
  mtimeMs: number;
  /** mtime of the last growth by someone else, if any. */
  grewAt?: number;
}

export class Liveness {
  private readonly seen = new Map<string, Seen>();

  constructor(private readonly deps: LivenessDeps) {}

  /** Records what a file looks like now and tells whether another writer appended to it within the window. */
  observe(path: string, size: number, mtimeMs: number): boolean {
    const s = this.seen.get(path);
    if (!s) {
      this.seen.set(path, { size, mtimeMs });
      return false;
    }
    if (size > s.size) {
      s.grewAt = this.deps.ownWrite(path, size) ? undefined : mtimeMs;
      s.size = size;
      s.mtimeMs = mtimeMs;
    } else if (size < s.size && mtimeMs > s.mtimeMs) {
      // Rewritten (a migration, a restore): a new baseline, nothing appended. (Smaller and not newer
      // is an older look at the file, from a list's cache: ignored.)
      s.size = size;
      s.mtimeMs = mtimeMs;
      s.grewAt = undefined;
    }
    if (s.grewAt === undefined || this.deps.ownWrite(path, size)) return false;
    return (this.deps.now?.() ?? Date.now()) - s.grewAt < this.deps.windowMs();
  }

  /** Fresh facts from the file (not a list's cache): a write pi made a moment ago counts. */
  isLive(path: string): boolean {
    let st;
    try {
      st = statSync(path);
    } catch {
      return false;
    }
    return this.observe(path, st.size, st.mtimeMs);
  }
}
