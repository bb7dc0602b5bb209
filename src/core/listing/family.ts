// One family of sessions: the file a session came from (its header's `parentSession`) and the files
// that came from it (forks and clones: other files whose header names it as `parentSession`), each with
// the entry where they part. A fork or clone copies the path it was made from with the same ids and
// timestamps (pi's createBranchedSession), so the last copied entry is where it came from.
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { sliceDue, yieldSlice } from './infoRead.js';
import { samePath } from '../session/repository.js';
import type { SessionIndex } from '../index/sessionIndex.js';
import type { SessionInfo, SessionInfoCache } from './sessionInfo.js';

export interface Family {
  /** The session this one came from, when its file is still there. */
  parent?: SessionInfo;
  /** Sessions made from this one, oldest first. */
  children: SessionInfo[];
}

/** Same file: the names first (cheap), then the real paths. */
const sameFile = (a: string, b: string) => basename(a) === basename(b) && samePath(a, b);

/**
 * The parent and the children of `file`, from `known` infos (the sidebar's) and, when those do not cover
 * them, the listing of its folder and its parent's folder (pi puts forks beside their source).
 */
export async function familyOf(file: string, parentPath: string | undefined, cache: SessionInfoCache, known: readonly SessionInfo[] = [], signal?: AbortSignal): Promise<Family> {
  const infos = new Map<string, SessionInfo>();
  const knownDirs = new Set<string>();
  for (const i of known) {
    infos.set(i.path, i);
    knownDirs.add(dirname(i.path));
  }
  for (const dir of new Set([dirname(file), ...(parentPath ? [dirname(parentPath)] : [])])) {
    if (knownDirs.has(dir)) continue;
    let names: string[] = [];
    try {
      names = (await readdir(dir)).filter((f) => f.endsWith('.jsonl'));
    } catch {
      // a folder that is gone has no family in it
    }
    for (const n of names) {
      signal?.throwIfAborted();
      const p = join(dir, n);
      if (infos.has(p)) continue;
      const info = await cache.get(p, signal);
      if (info) infos.set(p, info);
    }
  }
  let parent: SessionInfo | undefined;
  const children: SessionInfo[] = [];
  for (const i of infos.values()) {
    if (sameFile(i.path, file)) continue;
    if (parentPath && !parent && sameFile(i.path, parentPath)) parent = i;
    if (i.parentSessionPath && sameFile(i.parentSessionPath, file)) children.push(i);
  }
  children.sort((a, b) => a.created.getTime() - b.created.getTime() || a.path.localeCompare(b.path));
  return { parent, children };
}

/**
 * Where `child` came from in `parent`: the last entry of the child (in file order) that the parent holds
 * with the same id, type and time. Null when it shares none (a fork made before the first message).
 * Walked back from the end over the record numbers, so the first match is the answer: a fork's or clone's
 * own entries follow its copied path, so the walk usually stops after them (at the first step for a fresh
 * clone). A child sharing nothing, or only an early part, is walked whole, without an object or an id
 * string per entry, giving the event loop its turns (a million entries against a million-entry parent
 * take about 100 ms).
 */
export async function attachPoint(parent: SessionIndex, child: SessionIndex): Promise<string | null> {
  // Records below `count` stay as they are while the walk waits (an index only grows).
  for (let i = child.count - 1; i >= 0; i--) {
    if ((i & 4095) === 0 && sliceDue()) await yieldSlice();
    if (!child.isLive(i)) continue;
    const p = parent.lookupIdOf(child, i);
    if (p >= 0 && parent.timeOf(p) === child.timeOf(i) && parent.typeOf(p) === child.typeOf(i)) return child.idOf(i);
  }
  return null;
}
