// What a checked-out folder (a variant's, restore/codeCheckout.ts) changed since its checkout: its files
// now (a scratch snapshot through a copy of its session's index, so only files changed since are hashed
// again and the session's own index stays as it was) against the tree it was checked out at, with the
// lines added and removed as git counts them, in one `diff-tree` of the folder's own store; nothing written but
// the new blobs the snapshot needs (which the folder's next capture would write anyway).
import { zList } from '../git/gitOutput.js';
import { CheckpointStore } from '../store/store.js';
import type { CheckpointSettings } from '../store/storePaths.js';

export interface FolderChange {
  path: string;
  status: 'created' | 'deleted' | 'changed';
  /** Lines added and removed (0 and 0 for a binary file). */
  added: number;
  removed: number;
}

export interface FolderChangesOptions {
  agentDir: string;
  settings: CheckpointSettings;
  /** The folder, its session's id (whose index the snapshot starts from) and the tree it was checked out at. */
  folder: string;
  sessionId: string;
  baseTree: string;
  program?: string;
  env?: NodeJS.ProcessEnv;
}

/** The folder's changed files since `baseTree`, by path; throws when the folder's store is gone. */
export async function folderChanges(o: FolderChangesOptions): Promise<FolderChange[]> {
  const store = CheckpointStore.existing(o.agentDir, o.folder, o.settings, { program: o.program, env: o.env });
  if (!store) throw new Error(`the folder's checkpoints are gone (${o.folder})`);
  const { tree } = await store.scratchSnapshot(o.sessionId);
  if (tree === o.baseTree) return [];
  // One git: the raw records (":<mode a> <mode b> <id a> <id b> <status>", then the path) say what
  // happened to each path, the numstat records ("added\tremoved\tpath", "-\t-\tpath" for a binary
  // file) how many lines; with -z each piece is NUL-ended.
  const out = zList(
    await store.run([
      'diff-tree',
      '-r',
      '-z',
      '--no-renames',
      '--no-commit-id',
      '--raw',
      '--numstat',
      o.baseTree,
      tree,
    ]),
  );
  const changes: { path: string; status: FolderChange['status'] }[] = [];
  const counts = new Map<string, { added: number; removed: number }>();
  for (let i = 0; i < out.length; i++) {
    const rec = out[i];
    if (rec.startsWith(':')) {
      const status = rec.split(' ')[4];
      changes.push({ path: out[++i], status: status === 'A' ? 'created' : status === 'D' ? 'deleted' : 'changed' });
      continue;
    }
    const m = /^(\d+|-)\t(\d+|-)\t([\s\S]*)$/.exec(rec);
    if (m) counts.set(m[3], { added: m[1] === '-' ? 0 : Number(m[1]), removed: m[2] === '-' ? 0 : Number(m[2]) });
  }
  return changes
    .map((c) => ({ ...c, ...(counts.get(c.path) ?? { added: 0, removed: 0 }) }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The bytes of `path` in the tree the folder was checked out at (undefined when it was not there): the left side of a variant's file. */
export async function folderFileAtBase(
  o: Omit<FolderChangesOptions, 'sessionId'> & { path: string },
): Promise<Buffer | undefined> {
  const store = CheckpointStore.existing(o.agentDir, o.folder, o.settings, { program: o.program, env: o.env });
  if (!store) throw new Error(`the folder's checkpoints are gone (${o.folder})`);
  const file = (await store.lookup(o.baseTree, [o.path])).get(o.path);
  if (!file) return undefined;
  return (await store.readBlobs([file.sha])).get(file.sha);
}
