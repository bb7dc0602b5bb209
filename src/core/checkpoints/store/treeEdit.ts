// A snapshot made from the previous one and the watcher's list, in-process: the changed files hashed and
// written as loose blobs, the folders above them rewritten as tree objects, nothing else read. git's
// write-tree would read and write the whole index (7.8 MB at 100k files) twice for the same result.
// Tree objects are git's format exactly: entries "<octal mode> <name>\0<20-byte id>", sorted by name
// with a folder's name compared as if it ended in '/'; an empty folder has no entry (gitOutput.ts reads
// and writes them).
import { parseTree, readBatch, type TreeEntry } from '../git/gitOutput.js';

export type { TreeEntry };

/** A path's new state: its mode and blob, or null when it is gone (a file, or a whole folder). */
export type PathChange = { mode: string; sha: string } | null;

/** Reads the tree objects at these folder paths of `root` (missing or not a tree: left out). */
export type TreesAt = (root: string, dirs: readonly string[]) => Promise<Map<string, TreeEntry[]>>;

/**
 * Tree objects by id, read with `cat-file --batch` (`<root>:<folder>` names, one process for all that
 * are not held) and kept: the trees a snapshot writes are the next one's folders.
 */
export class TreeCache {
  private readonly bySha = new Map<string, TreeEntry[]>();
  constructor(
    private readonly catFile: (names: string) => Promise<Buffer>,
    private readonly max = 20_000,
  ) {}

  remember(sha: string, entries: TreeEntry[]): void {
    if (this.bySha.size >= this.max) this.bySha.clear();
    this.bySha.set(sha, entries);
  }

  readonly at: TreesAt = async (root, dirs) => {
    const out = new Map<string, TreeEntry[]>();
    const missing: string[] = [];
    for (const d of dirs) {
      const held = this.held(root, d);
      if (held) out.set(d, held);
      else missing.push(d);
    }
    if (!missing.length) return out;
    if (missing.some((d) => d.includes('\n'))) throw new Error('a folder name with a line break');
    const objects = readBatch(
      await this.catFile(missing.map((d) => (d ? `${root}:${d}` : root)).join('\n') + '\n'),
      missing.length,
    );
    missing.forEach((d, i) => {
      const o = objects[i];
      if ('missing' in o || o.type !== 'tree') return; // no such folder
      const entries = parseTree(o.body, o.id.length / 2);
      this.remember(o.id, entries);
      out.set(d, entries);
    });
    return out;
  };

  /** The folder `dir` of `root` if every tree down to it is held. */
  private held(root: string, dir: string): TreeEntry[] | undefined {
    let entries = this.bySha.get(root);
    if (dir) {
      for (const part of dir.split('/')) {
        const e = entries?.find((x) => x.name === part && x.mode === '40000');
        entries = e && this.bySha.get(e.sha);
      }
    }
    return entries;
  }
}

/**
 * `root` with `changes` (relative paths) applied; the new tree's id. Only the folders above the changed
 * paths are read (one call of `read` for all) and written again (`write` gives an object's id).
 */
export async function editTree(
  root: string,
  changes: ReadonlyMap<string, PathChange>,
  read: TreesAt,
  write: (entries: TreeEntry[]) => string,
): Promise<string> {
  const dirs = new Set<string>(['']);
  for (const p of changes.keys())
    for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) dirs.add(p.slice(0, i));
  const trees = await read(root, [...dirs]);
  const apply = (dir: string, own: Map<string, PathChange>): string | null => {
    const entries = new Map((trees.get(dir) ?? []).map((e) => [e.name, e]));
    const here = new Map<string, PathChange>();
    const below = new Map<string, Map<string, PathChange>>();
    for (const [rest, change] of own) {
      const slash = rest.indexOf('/');
      if (slash < 0) here.set(rest, change);
      else {
        const head = rest.slice(0, slash);
        if (!below.has(head)) below.set(head, new Map());
        below.get(head)!.set(rest.slice(slash + 1), change);
      }
    }
    for (const [head, sub] of below) {
      const path = dir ? `${dir}/${head}` : head;
      // A name that was not a folder starts as an empty one.
      if (entries.get(head)?.mode !== '40000') trees.delete(path);
      const sha = apply(path, sub);
      if (sha) entries.set(head, { mode: '40000', name: head, sha });
      else entries.delete(head);
    }
    // A path's own state comes last: it is what is on disk now (a file where a folder was, say).
    for (const [name, change] of here) {
      if (change) entries.set(name, { mode: change.mode, sha: change.sha, name });
      else entries.delete(name);
    }
    return entries.size ? write([...entries.values()]) : null;
  };
  return apply('', new Map(changes)) ?? write([]);
}
