// Undo and redo of a restore: its journal applied back (the files as they were before it) or forward
// again, the last one of the session. A file changed since the restore is a conflict: nothing is
// written unless forced. A restore that moved the conversation says where its leaf goes now; the
// caller moves it (only while it is still where the restore left it).
import { diskSide } from './restorePlan.js';
import { journals, saveJournal, type Journal } from './restoreJournal.js';
import { forceTo, matches, runOrRollBack, type FilesResult } from './journalFiles.js';
import { samePath } from '../../session/repository.js';

const ofSession = (sessionFile: string | undefined) => (x: Journal) =>
  !sessionFile || (!!x.sessionFile && samePath(x.sessionFile, sessionFile));

/** The restore an undo would put back (the last one done, of this session file when given). */
export function lastDone(restoresDir: string, sessionFile?: string): Journal | undefined {
  return journals(restoresDir).find((x) => x.state === 'done' && ofSession(sessionFile)(x));
}

/** Puts back what the last restore (of this session file, when given) replaced. */
export async function undoLast(restoresDir: string, opts: FlipOptions = {}): Promise<FlipResult> {
  const j = lastDone(restoresDir, opts.sessionFile);
  if (!j) throw new Error('there is no restore to undo');
  return flip(restoresDir, j, 'back', opts);
}

/** Restores again what the last undo put back. */
export async function redoLast(restoresDir: string, opts: FlipOptions = {}): Promise<FlipResult> {
  const j = journals(restoresDir).find(
    (x) => (x.state === 'done' || x.state === 'undone') && ofSession(opts.sessionFile)(x),
  );
  if (!j || j.state !== 'undone') throw new Error('there is no undone restore to redo');
  return flip(restoresDir, j, 'forward', opts);
}

export interface FlipOptions {
  sessionFile?: string;
  force?: boolean;
}

export interface FlipResult extends FilesResult {
  journal: Journal;
  conflicts: string[];
  /**
   * The restore had moved the conversation: the caller moves the leaf `to`, only while it is still at
   * `expect` (the user may have moved on since). Nothing needs recording: the journal keeps both ends.
   */
  leaf?: { to: string | null; expect: string | null };
}

async function flip(restoresDir: string, j: Journal, dir: 'forward' | 'back', o: FlipOptions): Promise<FlipResult> {
  // A file changed since the restore is a conflict: nothing is written unless forced.
  const conflicts = j.files.filter((f) => {
    const now = diskSide(f.path);
    const from = dir === 'back' ? f.after : f.before;
    const to = dir === 'back' ? f.before : f.after;
    return !matches(now, from) && !matches(now, to);
  });
  if (conflicts.length && !o.force)
    return { journal: j, written: [], skipped: [], conflicts: conflicts.map((f) => f.path) };
  if (o.force) for (const f of conflicts) await forceTo(restoresDir, j, f, dir);
  j.state = dir === 'back' ? 'undoing' : 'redoing';
  saveJournal(restoresDir, j);
  const r = await runOrRollBack(restoresDir, j, dir);
  j.state = dir === 'back' ? 'undone' : 'done';
  saveJournal(restoresDir, j);
  let leaf: Pick<FlipResult, 'leaf'> = {};
  if (j.leaf?.moved && j.leaf.fromId !== undefined) {
    const [to, expect] = dir === 'back' ? [j.leaf.fromId, j.leaf.targetId] : [j.leaf.targetId, j.leaf.fromId];
    leaf = { leaf: { to, expect } };
  }
  return { journal: j, ...r, conflicts: [], ...leaf };
}
