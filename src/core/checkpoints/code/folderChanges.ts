// What a checked-out folder (a variant's, restore/codeCheckout.ts) changed since its checkout: its files
// now (a scratch snapshot through a copy of its session's index, so only files changed since are hashed
// again and the session's own index stays as it was) against the tree it was checked out at, with the
// lines added and removed as git counts them. Two git reads of the folder's own store; nothing written but
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
  const [changes, numstat] = await Promise.all([store.diffTrees(o.baseTree, tree), store.run(['diff-tree', '-r', '-z', '--no-renames', '--no-commit-id', '--numstat', o.baseTree, tree])]);
  const counts = new Map<string, { added: number; removed: number }>();
  // `-z --numstat`: "added\tremoved\tpath" records ("-\t-\tpath" for a binary file), NUL-ended.
  for (const rec of zList(numstat)) {
    const m = /^(\d+|-)\t(\d+|-)\t([\s\S]*)$/.exec(rec);
    if (m) counts.set(m[3], { added: m[1] === '-' ? 0 : Number(m[1]), removed: m[2] === '-' ? 0 : Number(m[2]) });
  }
  return changes
    .map((c) => ({ path: c.path, status: !c.a ? ('created' as const) : !c.b ? ('deleted' as const) : ('changed' as const), ...(counts.get(c.path) ?? { added: 0, removed: 0 }) }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
