// The one count and the one vocabulary for what a restore does, used by every place that says it (the
// details pane, Move here, the restore's choice and preview, the notifications, the CLI), so the same
// state reads the same everywhere. Files are counted by what will happen to them: created, changed,
// deleted (a conflict counts by what taking the node's version does, and is also one "you changed since";
// the user decides it), and kept (what cannot be restored stays as it is).
import type { PlanItem, RestorePlan, SideInfo } from './restorePlan.js';

export type FileFate = 'created' | 'changed' | 'deleted' | 'kept';

export interface PlanTally {
  /** Files a restore writes (created + changed + deleted), the conflicts among them. */
  files: number;
  created: number;
  changed: number;
  deleted: number;
  /** Of `files`: changed outside the agent since; the user decides each. */
  yours: number;
  /** Not restorable: left as they are. */
  kept: number;
}

/** "1 file", "3 files". */
export const fileCount = (n: number): string => `${n} file${n === 1 ? '' : 's'}`;

/** What a restore does to the file when it takes the node's version. */
export function fateOf(item: Pick<PlanItem, 'action' | 'now' | 'target'>): FileFate {
  if (item.action === 'unrestorable') return 'kept';
  return sideFate(item.now, item.target);
}

function sideFate(now: SideInfo, target: SideInfo): FileFate {
  if (target.kind === 'absent') return 'deleted';
  return now.kind === 'absent' ? 'created' : 'changed';
}

export function planTally(plan: Pick<RestorePlan, 'items'>): PlanTally {
  const t: PlanTally = { files: 0, created: 0, changed: 0, deleted: 0, yours: 0, kept: 0 };
  for (const i of plan.items) {
    const fate = fateOf(i);
    t[fate]++;
    if (fate !== 'kept') t.files++;
    if (i.action === 'conflict') t.yours++;
  }
  return t;
}

/**
 * The tally in words: "3 files: 1 created, 1 changed, 1 deleted; 1 you changed since; 1 kept as it is".
 * One kind alone reads "2 files deleted". Nothing to write: "no file".
 */
export function planWords(t: PlanTally): string {
  const kinds = (['created', 'changed', 'deleted'] as const).filter((k) => t[k] > 0);
  const head = !t.files
    ? 'no file'
    : kinds.length === 1
      ? `${fileCount(t.files)} ${kinds[0]}`
      : `${fileCount(t.files)}: ${kinds.map((k) => `${t[k]} ${k}`).join(', ')}`;
  const yours = t.yours ? `; ${t.yours} you changed since` : '';
  const kept = t.kept ? `; ${t.kept} kept as ${t.kept === 1 ? 'it is' : 'they are'} (not restorable)` : '';
  return `${head}${yours}${kept}`;
}

/** What taking the node's version does to one file, as a sentence for a choice's detail. */
export function takeNodeWords(item: Pick<PlanItem, 'action' | 'now' | 'target'>): string {
  switch (sideFate(item.now, item.target)) {
    case 'deleted':
      return 'Delete the file, which did not exist at the node';
    case 'created':
      return 'Create the file as it was at the node';
    default:
      return 'Write the file as it was at the node';
  }
}

/**
 * Why an undo or redo wrote nothing: `n` files changed since the restore, so neither side of its
 * journal is theirs now ("2 files were changed since the restore, so nothing was put back").
 */
export function flipConflictWords(n: number, step: 'undo' | 'redo'): string {
  return `${fileCount(n)} ${n === 1 ? 'was' : 'were'} changed since the restore, so nothing was ${step === 'redo' ? 'restored again' : 'put back'}`;
}
