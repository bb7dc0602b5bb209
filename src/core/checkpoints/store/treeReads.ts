// Reading the store's trees: what differs between two, the files at some paths, every file. Paths in a
// few folders are looked up in those folders' tree objects alone (a restore plan asks for a handful of
// paths in a 100k-file tree).
import { parseTree, readBatch, readDiffTree, readLsTree, type TreeChange, type TreeFile } from '../git/gitOutput.js';

export type { TreeChange, TreeFile };

/** Runs git in the store and returns its output (`input` on its stdin). */
export type GitReader = (args: readonly string[], input?: string) => Promise<Buffer>;

/** Folders looked up one by one; more than that and the whole tree is listed once. */
const LOOKUP_FOLDERS = 200;

/**
 * Paths that differ between two trees: mode and blob on each side (null: absent). With `trees`, the
 * folders above them too (mode 040000), whose new trees came with the change.
 */
export async function diffTrees(
  run: GitReader,
  a: string,
  b: string,
  o: { trees?: boolean } = {},
): Promise<TreeChange[]> {
  return readDiffTree(
    await run(['diff-tree', '-r', ...(o.trees ? ['-t'] : []), '-z', '--no-renames', '--no-commit-id', a, b]),
  );
}

/** Mode and blob of `paths` in `tree` (absent ones left out). */
export async function lookupPaths(
  run: GitReader,
  tree: string,
  paths: readonly string[],
): Promise<Map<string, TreeFile>> {
  const map = new Map<string, TreeFile>();
  if (!paths.length) return map;
  const wanted = new Set(paths);
  const byDir = new Map<string, Set<string>>();
  for (const p of wanted) {
    const slash = p.lastIndexOf('/');
    const dir = slash < 0 ? '' : p.slice(0, slash);
    if (!byDir.has(dir)) byDir.set(dir, new Set());
    byDir.get(dir)!.add(p.slice(slash + 1));
  }
  if (byDir.size > LOOKUP_FOLDERS || paths.some((p) => p.includes('\n'))) {
    // Paths in many folders: the whole tree listed once (100k files: ~10 MB of text, ~150 ms).
    for (const { path, file } of readLsTree(await run(['ls-tree', '-r', '-z', '--full-tree', tree])))
      if (wanted.has(path)) map.set(path, file);
    return map;
  }
  // In a few folders: only those are read, in one `cat-file --batch` (<tree>:<folder>; each resolved
  // from the top, so this costs folders × depth tree reads).
  // (the tree itself asked for too: a folder not found in a tree the store lost is no absent folder)
  const dirs = byDir.has('') ? [...byDir.keys()] : ['', ...byDir.keys()];
  const objects = readBatch(
    await run(['cat-file', '--batch'], dirs.map((d) => (d ? `${tree}:${d}` : tree)).join('\n') + '\n'),
    dirs.length,
  );
  const top = objects[dirs.indexOf('')];
  if ('missing' in top || top.type !== 'tree') throw new Error(`the checkpoint store has lost the tree ${tree}`);
  dirs.forEach((dir, i) => {
    const o = objects[i];
    const names = byDir.get(dir);
    if (!names || 'missing' in o || o.type !== 'tree') return; // no such folder in the tree
    for (const e of parseTree(o.body, o.id.length / 2)) {
      if (e.mode !== '40000' && names.has(e.name))
        map.set(dir ? `${dir}/${e.name}` : e.name, { mode: parseInt(e.mode, 8), sha: e.sha });
    }
  });
  return map;
}

/** Every file of a tree (path → mode and blob). */
export async function listTree(run: GitReader, tree: string): Promise<Map<string, TreeFile>> {
  const map = new Map<string, TreeFile>();
  for (const { path, file } of readLsTree(await run(['ls-tree', '-r', '-z', '--full-tree', tree]))) map.set(path, file);
  return map;
}

/** A folder's entry in a diff with `trees`. */
export const isTreeChange = (c: TreeChange) => (!c.a || c.a.mode === 0o40000) && (!c.b || c.b.mode === 0o40000);
