// The first screen of a big session: what the explorer frames on open (the leaf, the path above it and
// the branches leaving that path), projected on the host from the index it already holds, a few hundred
// lines read by offset. It is drawn while the whole tree is still on its way (a 100k-entry snapshot
// takes seconds to cross from the extension host to the webview), and replaced by it.
import type { Session } from '../../core/session/session.js';
import type { NodeView } from '../../protocol.js';
import { projectAll } from './projection.js';

/**
 * Entries of the current path shown first, counted up from the leaf: a few screens of it. The first
 * screen crosses to the webview as one message, and in a new window that crossing took 100-200 ms for
 * 400 entries (110 KB): it is kept to what the framed view shows and a little scrolling.
 */
export const FIRST_SCREEN_PATH = 150;
/** Entries of each branch leaving that path (its first ones). */
const BRANCH = 3;
/** At most this many entries in all. */
const MAX = 2000;

export async function firstScreenNodes(s: Session): Promise<NodeView[]> {
  const index = s.index;
  await index.prepareTree();
  const leaf = s.leafId === null ? -1 : index.lookup(s.leafId);
  const path = index.branchIdx(leaf);
  const from = Math.max(0, path.length - FIRST_SCREEN_PATH);
  const picked = new Set<number>();
  for (let k = from; k < path.length; k++) picked.add(path[k]);
  // The branches leaving the shown path: their first entries, and the children of the leaf.
  const take = (p: number, depth: number) => {
    for (const c of index.childrenIdx(p)) {
      if (picked.has(c) || picked.size >= MAX) continue;
      picked.add(c);
      if (depth > 1) take(c, depth - 1);
      break; // one line of each branch; its siblings are their own branches
    }
  };
  for (let k = from; k < path.length && picked.size < MAX; k++) {
    for (const c of index.childrenIdx(path[k])) {
      if (picked.has(c) || picked.size >= MAX) continue;
      picked.add(c);
      take(c, BRANCH - 1);
    }
  }
  // In file order, so that a tool call is seen before its result (their titles name the call).
  const records = [...picked].sort((a, b) => a - b).map((i) => index.view(i));
  return projectAll(index, records, s);
}
