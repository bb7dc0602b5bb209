// "Live": pi (or anything other than pi-tree) wrote the session a moment ago. pi keeps its leaf in
// memory and never re-reads its file, so changing a live session asks first.
import { statSync } from 'node:fs';
import type { SessionStore } from './sessionStore.js';

/** Fresh facts from the file (not the list's cache): a write pi made a moment ago counts. */
export function makeIsLive(store: SessionStore, windowSeconds: () => number): (file: string) => boolean {
  return (file) => {
    let stat;
    try {
      stat = statSync(file);
    } catch {
      return false;
    }
    return Date.now() - stat.mtimeMs < windowSeconds() * 1000 && !store.lastWriteWasOurs(file, stat.size);
  };
}
