// Reading the store's trees: what differs between two, the files at some paths, every file. Paths in a
// few folders are looked up in those folders' tree objects alone (a restore plan asks for a handful of
// paths in a 100k-file tree).
import { zList } from '../git/gitRun.js';

/** Runs git in the store and returns its output (`input` on its stdin). */
export type GitReader = (args: readonly string[], input?: string) => Promise<Buffer>;

export interface TreeFile {
  mode: number;
  sha: string;
}

/** Folders looked up one by one; more than that and the whole tree is listed once. */
const LOOKUP_FOLDERS = 200;

/**
 * Paths that differ between two trees: mode and blob on each side (null: absent). With `trees`, the
 * folders above them too (mode 040000), whose new trees came with the change.
 */
export async function diffTrees(run: GitReader, a: string, b: string, o: { trees?: boolean } = {}): Promise<TreeChange[]> {
  const parts = zList(await run(['diff-tree', '-r', ...(o.trees ? ['-t'] : []), '-z', '--no-renames', '--no-commit-id', a, b]));
  const out: TreeChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [ma, mb, sa, sb] = parts[i].slice(1).split(' ');
    out.push({ path: parts[i + 1], a: side(ma, sa), b: side(mb, sb) });
  }
  return out;
}

/** Mode and blob of `paths` in `tree` (absent ones left out). */
export async function lookupPaths(run: GitReader, tree: string, paths: readonly string[]): Promise<Map<string, TreeFile>> {
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
    for (const line of zList(await run(['ls-tree', '-r', '-z', '--full-tree', tree]))) {
      const tab = line.indexOf('\t');
      const path = line.slice(tab + 1);
      if (!wanted.has(path)) continue;
      const [mode, , sha] = line.slice(0, tab).split(' ');
      map.set(path, { mode: parseInt(mode, 8), sha });
    }
    return map;
  }
  // In a few folders: only those are read, in one `cat-file --batch` (<tree>:<folder>; each resolved
  // from the top, so this costs folders × depth tree reads).
  const dirs = [...byDir.keys()];
  const out = await run(['cat-file', '--batch'], dirs.map((d) => (d ? `${tree}:${d}` : tree)).join('\n') + '\n');
  let at = 0;
  for (const dir of dirs) {
    const nl = out.indexOf(0x0a, at);
    const head = /^([0-9a-f]{40,64}) (\w+) (\d+)$/.exec(out.toString('latin1', at, nl));
    at = nl + 1;
    if (!head) continue; // missing: no such folder in the tree
    const body = out.subarray(at, at + Number(head[3]));
    at += body.length + 1;
    if (head[2] !== 'tree') continue;
    const names = byDir.get(dir)!;
    const idBytes = head[1].length / 2;
    // A tree object: entries of "<octal mode> <name>\0<id as bytes>".
    for (let i = 0; i < body.length;) {
      const sp = body.indexOf(0x20, i);
      const nul = body.indexOf(0, sp);
      const mode = parseInt(body.toString('latin1', i, sp), 8);
      const name = body.toString('utf8', sp + 1, nul);
      i = nul + 1 + idBytes;
      if (mode !== 0o40000 && names.has(name)) map.set(dir ? `${dir}/${name}` : name, { mode, sha: body.toString('hex', nul + 1, i) });
    }
  }
  return map;
}

/** Every file of a tree (path → mode and blob). */
export async function listTree(run: GitReader, tree: string): Promise<Map<string, TreeFile>> {
  const map = new Map<string, TreeFile>();
  for (const line of zList(await run(['ls-tree', '-r', '-z', '--full-tree', tree]))) {
    const tab = line.indexOf('\t');
    const [mode, , sha] = line.slice(0, tab).split(' ');
    map.set(line.slice(tab + 1), { mode: parseInt(mode, 8), sha });
  }
  return map;
}

/** A folder's entry in a diff with `trees`. */
export const isTreeChange = (c: TreeChange) => (!c.a || c.a.mode === 0o40000) && (!c.b || c.b.mode === 0o40000);

export interface TreeChange {
  path: string;
  a: TreeFile | null;
  b: TreeFile | null;
}

const ZERO = /^0+$/;
function side(mode: string, sha: string): TreeFile | null {
  return ZERO.test(sha) || mode === '000000' ? null : { mode: parseInt(mode, 8), sha };
}
