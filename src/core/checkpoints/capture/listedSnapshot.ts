// A snapshot from the previous snapshot's tree and the folder watcher's list of changed paths, without
// git's index or its walk: each listed path looked at (lstat), the files hashed and written as loose
// blobs in-process, the folders above them written again (treeEdit.ts). It keeps to what a snapshot
// through git's index holds: a file the old tree did not have is added only if the ignore rules let it
// in and it is not in a nested repository; too-large and special files are left out and named; the
// agent's own folders are left out. A listed path under a folder that is a symbolic link now is gone
// (lstat would follow the link; the link itself is the change). When a listed path is a folder now
// (made or moved in), the old tree cannot be read whole, or the list is odd in any way, it answers
// undefined and git looks at the listed paths itself (store.snapshot with `only`).
import { underPrefix } from '../store/storeScope.js';
import { readFileSync, readlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { commitText, writeLooseObject } from '../git/looseObjects.js';
import type { SkippedFile } from '../store/manifestLines.js';
import type { CheckpointStore, SnapshotResult } from '../store/store.js';
import { editTree, type PathChange, type TreeCache } from '../store/treeEdit.js';
import { serializeTree, type TreeEntry } from '../git/gitOutput.js';
import type { TreeChange } from '../store/treeReads.js';
import { lstatOrUndefined } from '../store/storeFiles.js';
import { gitModeOf, privateBits } from '../fileMode.js';
import { beyondLink } from '../store/indexPaths.js';

export interface ListedSnapshot extends SnapshotResult {
  /** The files that differ from the old tree (undefined when a whole folder went: diff-tree lists those). */
  changes: TreeChange[] | undefined;
  /** The objects new with it (the changed files' blobs, the folders' trees), for its share of the store's size. */
  written: string[];
  /** The tree it started from. */
  from: string;
}

const dirOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
const nameOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** The snapshot of `base` with `paths` as they are now (`message`: its commit's; none: no commit, only the tree). */
export async function snapshotFromList(
  store: CheckpointStore,
  cache: TreeCache,
  base: string,
  paths: readonly string[],
  message?: string,
): Promise<ListedSnapshot | undefined> {
  const started = performance.now();
  if (
    paths.some(
      (p) =>
        !p || p.includes('\n') || p.startsWith('/') || p.split('/').some((s) => s === '..' || s === '.' || s === ''),
    )
  )
    return undefined;
  const cwd = store.cwd;
  const now = new Map<string, Stats | undefined>();
  const links = new Map<string, boolean>();
  for (const p of paths) {
    // the agent's own, or beyond a link now: not in the folder's tree (gone, if the old tree had it)
    const st =
      underPrefix(p, store.privatePrefixes) || beyondLink(cwd, p, links) ? undefined : lstatOrUndefined(join(cwd, p));
    if (st?.isDirectory()) return undefined; // a folder made or moved in: git lists what is in it
    now.set(p, st);
  }
  const dirs = new Set<string>(['']);
  for (const p of paths) for (let d = dirOf(p); d; d = dirOf(d)) dirs.add(d);
  const old = await cache.at(base, [...dirs]);
  const oldEntry = (p: string): TreeEntry | undefined => old.get(dirOf(p))?.find((e) => e.name === nameOf(p));
  // The old tree whole, or git decides: a folder missing from the store would drop what is under it.
  for (const d of dirs) if (!old.has(d) && (d === '' || oldEntry(d)?.mode === '40000')) return undefined;

  const changes = new Map<string, PathChange>();
  const skipped: SkippedFile[] = [];
  const fresh: string[] = [];
  const hash: string[] = [];
  for (const [p, st] of now) {
    const was = oldEntry(p);
    if (!st) {
      if (was) changes.set(p, null);
    } else if (!st.isFile() && !st.isSymbolicLink()) {
      skipped.push({ path: p, why: 'special' });
      if (was) changes.set(p, null);
    } else if (st.isFile() && st.size > store.settings.maxFileBytes) {
      skipped.push({ path: p, why: 'size' });
      if (was) changes.set(p, null);
    } else if (was && was.mode !== '40000') hash.push(p);
    else fresh.push(p);
  }
  const modes: Record<string, number> = {};
  if (fresh.length) {
    // A new file in a nested repository: git decides (it lists the repository as one path).
    if (fresh.some((p) => inNestedRepository(cwd, p))) return undefined;
    const ignored = new Set(await store.ignored(fresh));
    for (const p of fresh) if (!ignored.has(p)) hash.push(p);
  }
  const trees: string[] = [];
  const gitDir = store.where.gitDir;
  if (!changes.size && !hash.length) {
    // nothing to write: the old tree (a 'before' snapshot after a turn, mostly)
    const commit =
      message === undefined
        ? ''
        : writeLooseObject(gitDir, 'commit', Buffer.from(commitText(base, message, new Date())));
    return { commit, tree: base, skipped, ms: performance.now() - started, changes: [], written: [], from: base };
  }
  for (const p of hash) {
    const st = now.get(p)!;
    const abs = join(cwd, p);
    const bytes = st.isSymbolicLink() ? readlinkSync(abs, { encoding: 'buffer' }) : readFileSync(abs);
    const mode = gitModeOf(st).toString(8);
    const bits = st.isFile() ? privateBits(st) : undefined;
    if (bits !== undefined) modes[p] = bits;
    const sha = writeLooseObject(gitDir, 'blob', bytes, 1);
    changes.set(p, { mode, sha });
  }
  const tree = await editTree(base, changes, cache.at, (entries) => {
    const sha = writeLooseObject(gitDir, 'tree', serializeTree(entries));
    cache.remember(sha, entries);
    trees.push(sha);
    return sha;
  });
  const commit =
    message === undefined ? '' : writeLooseObject(gitDir, 'commit', Buffer.from(commitText(tree, message, new Date())));
  let whole = true;
  const list: TreeChange[] = [];
  for (const [path, b] of changes) {
    const was = oldEntry(path);
    if (was?.mode === '40000') whole = false;
    const a = was ? { mode: parseInt(was.mode, 8), sha: was.sha } : null;
    const bSide = b ? { mode: parseInt(b.mode, 8), sha: b.sha } : null;
    if (a?.mode !== bSide?.mode || a?.sha !== bSide?.sha) list.push({ path, a, b: bSide });
  }
  // (a file written again with the same bytes, and the folders above it, add nothing)
  const written = tree === base ? [] : [...list.flatMap((c) => (c.b ? [c.b.sha] : [])), ...trees];
  return {
    commit,
    tree,
    skipped,
    ...(Object.keys(modes).length ? { modes } : {}),
    ms: performance.now() - started,
    changes: whole ? list : undefined,
    written,
    from: base,
  };
}

/** Whether a folder above `rel` (inside the working folder) holds a `.git`. */
function inNestedRepository(cwd: string, rel: string): boolean {
  for (let d = dirOf(rel); d; d = dirOf(d)) if (lstatOrUndefined(join(cwd, d, '.git'))) return true;
  return false;
}
