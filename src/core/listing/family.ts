// One family of sessions: the file a session came from (its header's `parentSession`) and the files
// that came from it (forks and clones: other files whose header names it as `parentSession`), each with
// the entry where they part. A fork or clone copies the path it was made from with the same ids and
// timestamps (pi's createBranchedSession), so the last copied entry is where it came from.
// A header's `parentSession` is data: it may name any folder. Only the session folders pi-tree lists are
// looked in, and there only the first bytes of each file (its header) are read to know whether it is a
// relative; a relative's row is then read as the sidebar reads it.
import { readdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { findHeader, HEADER_READ_MAX, readHead } from '../index/sessionHeader.js';
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

/** Where family is looked for beyond the sessions already known. */
export interface FamilyScope {
  /** Whether pi-tree lists the sessions of `dir` (SessionRepository.listsFolder): no other folder is read. */
  listsFolder(dir: string): boolean;
  /** Reads at most `max` bytes from the start of `file` (sessionHeader.ts readHead; tests count the bytes). */
  readHead?(file: string, max: number): Promise<Buffer>;
}

/** No folder beyond the known sessions. */
const KNOWN_ONLY: FamilyScope = { listsFolder: () => false };

/** The most read of headers for one lookup; past it, the folders are not read further. */
export const FAMILY_READ_MAX = 16 * 1024 * 1024;

/** The `parentSession` of the header in `head`, the first bytes of a file read by readHead with the bound `max`. */
function headerParent(head: Buffer, max: number): string | undefined {
  const p = findHeader(head, head.length < max)?.header?.parentSession;
  return typeof p === 'string' ? p : undefined;
}

/**
 * The parent and the children of `file`, from `known` infos (the sidebar's) and, when those do not cover
 * them, the listing of its folder and its parent's folder (pi puts forks beside their source), when
 * pi-tree lists that folder (`scope`). There each file's header (at most HEADER_READ_MAX bytes, FAMILY_READ_MAX
 * in all) says whether it is a relative; only a relative's row is read whole.
 */
export async function familyOf(
  file: string,
  parentPath: string | undefined,
  cache: SessionInfoCache,
  known: readonly SessionInfo[] = [],
  signal?: AbortSignal,
  scope: FamilyScope = KNOWN_ONLY,
): Promise<Family> {
  const infos = new Map<string, SessionInfo>();
  const knownDirs = new Set<string>();
  for (const i of known) {
    infos.set(i.path, i);
    knownDirs.add(dirname(i.path));
  }
  const head = scope.readHead?.bind(scope) ?? readHead;
  let budget = FAMILY_READ_MAX;
  for (const dir of new Set([dirname(resolve(file)), ...(parentPath ? [dirname(resolve(parentPath))] : [])])) {
    if (knownDirs.has(dir) || !scope.listsFolder(dir)) continue;
    let names: string[] = [];
    try {
      names = (await readdir(dir)).filter((f) => f.endsWith('.jsonl'));
    } catch {
      // a folder that is gone has no family in it
    }
    for (const n of names) {
      signal?.throwIfAborted();
      const p = join(dir, n);
      if (infos.has(p) || sameFile(p, file)) continue;
      let related = parentPath !== undefined && sameFile(p, parentPath);
      if (!related) {
        if (budget <= 0) break;
        const max = Math.min(HEADER_READ_MAX, budget);
        let bytes: Buffer;
        try {
          bytes = await head(p, max);
        } catch {
          continue; // unreadable, or not a regular file
        }
        budget -= Math.max(bytes.length, 1);
        const from = headerParent(bytes, max);
        related = from !== undefined && sameFile(from, file);
      }
      if (!related) continue;
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
