// A restore's journal under the store's `restores/<id>/`: every file's content before and after (one
// bundle file, synced once) and the journal itself, written atomically and synced, so a restore killed at
// any step can be finished, undone or redone from it.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentSide } from '../store/manifestLines.js';

/** One side of a journal file: its blob (null: absent), git's mode, and the permission bits to write it with. */
export interface JournalSide {
  sha: string | null;
  mode: number;
  /** The exact permission bits (before: the file's own; after: a private mode the node recorded). */
  perm?: number;
}

export interface JournalFile {
  key: string;
  path: string;
  before: JournalSide;
  after: JournalSide;
  /** `before` was the user's content (a conflict taken as the node's): the agent's side it was made from. */
  beforeAgent?: AgentSide;
  /** `after` is the user's content too (a merge): the agent's side at the node. */
  afterUser?: AgentSide;
}

export interface Journal {
  v: 1;
  id: string;
  at: string;
  sessionFile?: string;
  /** The session whose manifest records where the code is after each step. */
  sessionId?: string;
  /** The working folder: paths under it are checked for links before each write. */
  cwd?: string;
  /** Where the code was before the restore (an undo records the code back there). */
  from?: string | null;
  targetId: string | null;
  /**
   * prepared → done (restore, redo); undoing → undone. failed: a step could not be done and what was
   * written was put back (or named in `error`); it blocks nothing.
   */
  state: 'prepared' | 'done' | 'undoing' | 'undone' | 'redoing' | 'failed';
  error?: string;
  files: JournalFile[];
  /**
   * Files the restore left as the user has them (kept, or changed meanwhile), with the agent's side at
   * the node and where the code was before: a later restore asks before overwriting them.
   */
  kept?: Record<string, { path: string; atTarget: AgentSide; atFrom?: AgentSide }>;
  /**
   * Files in the plan the restore could not write (not restorable): not at the node after it. `was`,
   * whose content each held where the code was: the agent's, the user's (made from that agent side: an
   * undo records it so), or not known (a restore before could not write it either).
   */
  unrestored?: Record<string, { path: string; was: 'agent' | 'unknown' | AgentSide }>;
  /** Files the restore found already as at the node: the agent's content there once it is done. */
  same?: string[];
  /**
   * Files adopted from another folder (a variant's, adoptPlan.ts): no session's code moved, so no
   * manifest records it; `sessionFile` is the session whose files they were (its undo names it).
   */
  adopted?: true;
  /** Folders the restore made (an undo removes them again when empty). */
  madeDirs: string[];
  /** The conversation moved with the code: the leaf to move to, whether it did, and where it was. */
  leaf?: { targetId: string | null; moved: boolean; fromId?: string | null };
  /**
   * Where each side's bytes are in the journal's `objects.bin` (sha → [offset, length]): one file and one
   * fsync for them all. Journals written before it keep a file per object under `objects/`.
   */
  bundle?: Record<string, [number, number]>;
}

export const newId = () => `${new Date().toISOString().replace(/[:.]/g, '-')}_${randomBytes(4).toString('hex')}`;
export const journalDir = (restoresDir: string, id: string) => join(restoresDir, id);

/**
 * The journal's objects, one after the other in one file, written and synced (the fsync off the thread):
 * one fsync instead of one a file (each ~6 ms here, more under load). No temp file and rename: the
 * journal's folder is new and its journal.json is written only once the bundle is synced, so a bundle
 * cut short by a kill is in a folder no journal names. Returns where each object is.
 */
export async function writeBundle(
  file: string,
  objects: Map<string, Buffer>,
): Promise<Record<string, [number, number]>> {
  const at: Record<string, [number, number]> = {};
  let offset = 0;
  for (const [sha, bytes] of objects) {
    at[sha] = [offset, bytes.length];
    offset += bytes.length;
  }
  const h = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    for (const bytes of objects.values()) await h.writeFile(bytes); // each from where the last ended
    await h.sync();
  } finally {
    await h.close();
  }
  return at;
}

/** A side's bytes from the journal: from its bundle, or (journals written before bundles) a file each. */
export function readObject(restoresDir: string, j: Journal, sha: string): Buffer {
  const dir = journalDir(restoresDir, j.id);
  const where = j.bundle?.[sha];
  if (!where) return readFileSync(join(dir, 'objects', sha));
  const out = Buffer.alloc(where[1]);
  const fd = openSync(join(dir, 'objects.bin'), 'r');
  try {
    for (let got = 0; got < out.length;) {
      const n = readSync(fd, out, got, out.length - got, where[0] + got);
      if (n === 0) throw new Error(`the restore's journal ${j.id} is cut short`);
      got += n;
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

function writeSynced(file: string, bytes: Buffer | string): void {
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, bytes, { mode: 0o600 });
  const fd = openSync(tmp, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

export function saveJournal(restoresDir: string, j: Journal): void {
  writeSynced(join(journalDir(restoresDir, j.id), 'journal.json'), JSON.stringify(j, null, 1));
}

/** One journal as it is on disk now (undefined: none by that id, or one cut short). */
export function readJournal(restoresDir: string, id: string): Journal | undefined {
  try {
    const j = JSON.parse(readFileSync(join(journalDir(restoresDir, id), 'journal.json'), 'utf8')) as Journal;
    return j.v === 1 && Array.isArray(j.files) ? j : undefined;
  } catch {
    return undefined;
  }
}

/** Every journal of the project, newest first. */
export function journals(restoresDir: string): Journal[] {
  let names: string[];
  try {
    names = readdirSync(restoresDir);
  } catch {
    return [];
  }
  const out: Journal[] = [];
  for (const n of names.sort().reverse()) {
    // (none: a journal being written when its writer was killed; nothing was changed under it)
    const j = readJournal(restoresDir, n);
    if (j) out.push(j);
  }
  return out;
}
