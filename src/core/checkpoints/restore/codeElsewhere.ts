// Where the code is when another session of the project moved the folder last: the working folder is
// one per project, so a fork or a second pi that ran a turn or a restore after this session's latest
// line left the folder at that line's snapshot. A restore plan then starts from that snapshot, and its
// scope takes the paths where it differs from the target's code (this session's own lines do not name
// them), so the dry-run, the restore and a diff with the folder agree.
import type { ManifestLine, SnapshotLine } from '../store/manifestLines.js';
import { othersNewest, type ProjectLine } from '../store/projectLatest.js';
import type { CodeContext, CodeState } from '../code/codeState.js';

/**
 * Another session's line newer than this session's latest (`own`; with none, newer than the leaf's
 * entry: a fork that never ran keeps the times of the entries it copied): where the folder is now.
 */
export function newerElsewhere(
  ctx: Pick<CodeContext, 'checkpoints' | 'session'>,
  own: SnapshotLine | undefined = ctx.checkpoints.latest(),
): ProjectLine | undefined {
  const store = ctx.checkpoints.store;
  if (!store || !ctx.checkpoints.sessionId) return undefined;
  const other = othersNewest(store.where.sessionsDir, ctx.checkpoints.sessionId);
  if (!other) return undefined;
  const leaf = ctx.session.leafId;
  const since = own ? Date.parse(own.at) : leaf ? (ctx.session.index.get(leaf)?.time ?? -Infinity) : -Infinity;
  return Date.parse(other.at) > since ? other : undefined;
}

/**
 * The paths where the folder's snapshot (another session's line) and the target's code may differ:
 * what the two trees differ in, the files the recorded calls after the target's snapshot name, and the
 * files outside the folder either side names.
 */
export async function keysElsewhere(ctx: CodeContext, line: ProjectLine, target: CodeState): Promise<string[]> {
  const store = ctx.checkpoints.store;
  const keys = new Set<string>(target.overlay.keys());
  for (const x of line.external ?? []) keys.add(x.path);
  for (const x of target.base?.external ?? []) keys.add(x.path);
  // (a target with no snapshot on its path knows only the files its calls name)
  if (store && target.base && target.base.tree !== line.tree)
    for (const c of await store.diffTrees(line.tree, target.base.tree)) keys.add(c.path);
  return [...keys];
}

/**
 * Whether the folder's snapshot and the target's code may differ, without a git process (Move here's
 * cheap check): different trees, or calls after the target's snapshot.
 */
export const differsElsewhere = (line: Pick<SnapshotLine, 'tree'>, target: CodeState): boolean =>
  target.overlay.size > 0 || (!!target.base && target.base.tree !== line.tree);

/** The lines of the session whose manifest holds `line` (who wrote the files it holds: agentSides.ts). */
export function linesElsewhere(ctx: CodeContext, line: ProjectLine): ManifestLine[] {
  try {
    return ctx.checkpoints.store?.manifest(line.sessionId) ?? [];
  } catch {
    return [];
  }
}

/**
 * The session's latest line if it is an undo's: the files it put back hold what was there before the
 * restore, which may be another session's code, not this session's at the node the line names; they
 * are in a plan's scope, and Move here asks where its snapshot differs from the target's code.
 */
export const undoLine = (latest: SnapshotLine | undefined): SnapshotLine | undefined =>
  latest?.kind === 'restore' && latest.step === 'undo' ? latest : undefined;
