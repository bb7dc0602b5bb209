// Finishing what a killed restore, undo or redo left half done, before anything new is planned: its
// journal says how far it got, and its files are run again in its direction (a file already as planned
// is left). One that cannot be finished is put back where it can be and marked failed.
import { journals, saveJournal, type Journal } from './restoreJournal.js';
import { runOrRollBack } from './journalFiles.js';
import { samePath } from '../../session/repository.js';

export interface RecoverOptions {
  /** The session asking: only its own journals' conversation moves are handed back (others' wait for theirs). */
  sessionFile?: string;
}

export interface Recovered {
  finished: Journal[];
  failed: Journal[];
  /** The asking session's journals whose files are done and whose conversation move is due: the caller moves the leaf and records it (leafLanded). */
  leafDue: Journal[];
}

/**
 * Finishes what a killed restore, undo or redo left half done (called before any new one). The files
 * of every pending journal of the project are finished (they are the project's); a conversation move
 * still due is handed back only for the asking session's own journals. A journal that cannot be
 * finished is put back where it can be and marked failed, never left to block the next restore.
 */
export async function recoverPending(restoresDir: string, o: RecoverOptions = {}): Promise<Recovered> {
  const finished: Journal[] = [];
  const failed: Journal[] = [];
  const leafDue: Journal[] = [];
  const own = (j: Journal) => !!o.sessionFile && !!j.sessionFile && samePath(j.sessionFile, o.sessionFile);
  for (const j of journals(restoresDir)) {
    const ownLeafDue = !!j.leaf && !j.leaf.moved && own(j);
    if (j.state === 'done' || j.state === 'undone' || j.state === 'failed') {
      if (j.state !== 'done' || !ownLeafDue) continue;
    }
    const forward = j.state === 'prepared' || j.state === 'redoing' || j.state === 'done';
    try {
      if (j.state !== 'done') await runOrRollBack(restoresDir, j, forward ? 'forward' : 'back');
    } catch {
      failed.push(j);
      continue;
    }
    j.state = forward ? 'done' : 'undone';
    saveJournal(restoresDir, j);
    finished.push(j);
    if (forward && ownLeafDue) leafDue.push(j);
  }
  return { finished, failed, leafDue };
}
