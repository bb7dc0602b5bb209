// A restore's journal applied to the working folder in one direction (forward: the restore, back: its
// undo), under one rule: a file as the journal's `from` side becomes its `to` side, one already as
// `to` is left, anything else is left alone and named. Each file through a temp file beside it, synced
// and renamed over it; deletions first; a few at a time (the file system commits their syncs together).
// A run that fails puts back what it wrote. The restore, its undo and redo, and the finishing of a
// killed one all write through here; the steps a crash test kills at are named here too.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  constants,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Side } from '../code/codeState.js';
import { LINK_MODE } from '../fileMode.js';
import { diskSide } from './restorePlan.js';
import { refusedNow } from './restoreGuards.js';
import { RestoreRefusedError } from './restoreErrors.js';
import { readObject, saveJournal, type Journal, type JournalFile, type JournalSide } from './restoreJournal.js';
import { lstatOrUndefined } from '../store/storeFiles.js';

/**
 * The steps a crash test kills at. With the conversation: 'leaf-due' once the journal says the files are
 * done and the leaf's move due, 'leaf-moved' once the caller moved it (before the journal records it).
 */
export type RestoreStep = 'journal-written' | 'file-written' | 'files-done' | 'leaf-due' | 'leaf-moved' | 'done';
let stepHook: ((step: RestoreStep, detail: string) => void) | undefined;
/** @internal Test processes stop a restore at a named step with this (a crash test kills there). */
export function onRestoreStep(h: typeof stepHook): void {
  stepHook = h;
}

/** Tells the test's hook (if any) that a restore reached `step`. */
export function restoreStep(step: RestoreStep, detail: string): void {
  stepHook?.(step, detail);
}

/** What a run of the journal's files did: the files written, and those left alone (with why). */
export interface FilesResult {
  written: string[];
  skipped: { path: string; why: string }[];
}

/**
 * Runs the journal's files; if one cannot be written, puts back what was (the journal then says
 * 'failed' and blocks nothing) and throws what went wrong, in words.
 */
export async function runOrRollBack(restoresDir: string, j: Journal, dir: 'forward' | 'back'): Promise<FilesResult> {
  try {
    return await runFiles(restoresDir, j, dir);
  } catch (e) {
    const why = (e as Error).message;
    let left: string[];
    try {
      const back = await runFiles(restoresDir, j, dir === 'forward' ? 'back' : 'forward');
      left = back.skipped.map((s) => s.path);
    } catch (e2) {
      left = [`(putting them back failed too: ${(e2 as Error).message})`];
    }
    removeTemps(j);
    j.state = 'failed';
    j.error = why;
    saveJournal(restoresDir, j);
    const undoWord = dir === 'forward' ? 'restore' : 'undo';
    throw new RestoreRefusedError(
      `the ${undoWord} stopped: ${why}. ${left.length ? `The files written were put back, but for ${left.join(', ')}.` : 'The files written were put back; nothing changed.'}`,
    );
  }
}

function removeTemps(j: Journal): void {
  for (const f of j.files) {
    try {
      rmSync(tempOf(f.path, j), { force: true });
    } catch {
      // not a file of ours (a folder in its place): left as it is
    }
  }
}

/**
 * Applies the journal's files in one direction: a file as `from` becomes `to`; as `to` already, left;
 * else named. Deletions go first (a file where the other side has a folder), then the writes, a few at a
 * time; the lists come back in the journal's order.
 */
export async function runFiles(restoresDir: string, j: Journal, dir: 'forward' | 'back'): Promise<FilesResult> {
  const written = new Set<string>();
  const skipped = new Map<string, string>();
  const one = async (f: JournalFile) => {
    const from = dir === 'forward' ? f.before : f.after;
    const to = dir === 'forward' ? f.after : f.before;
    const refused = refusedNow(f.path, j.cwd);
    if (refused) throw new Error(refused);
    const now = diskSide(f.path);
    if (matches(now, to)) return;
    if (!matches(now, from)) {
      skipped.set(f.path, now.kind === 'unknown' ? now.why : 'changed since the restore');
      return;
    }
    await writeSide(restoresDir, j, f.path, to, now, dir);
    written.add(f.path);
    stepHook?.('file-written', f.path);
  };
  const toOf = (f: JournalFile) => (dir === 'forward' ? f.after : f.before);
  await inParallel(
    j.files.filter((f) => toOf(f).sha === null),
    one,
  );
  await inParallel(
    j.files.filter((f) => toOf(f).sha !== null),
    one,
  );
  if (dir === 'forward' && j.madeDirs.length) saveJournal(restoresDir, j);
  return {
    written: j.files.filter((f) => written.has(f.path)).map((f) => f.path),
    skipped: j.files.filter((f) => skipped.has(f.path)).map((f) => ({ path: f.path, why: skipped.get(f.path)! })),
  };
}

/** Makes `path` hold `to` (absent: deleted), through a synced temp file renamed over it. */
async function writeSide(
  restoresDir: string,
  j: Journal,
  path: string,
  to: JournalSide,
  now: Side,
  dir: 'forward' | 'back',
): Promise<void> {
  if (to.sha === null) {
    unlinkSync(path);
    if (dir === 'back') removeMadeDirs(j, path);
    return;
  }
  // A folder the other side's files left empty (they were deleted first): the file takes its place.
  if (lstatOrUndefined(path)?.isDirectory()) rmdirSync(path);
  const made = makeDirs(dirname(path));
  if (dir === 'forward') for (const d of made) if (!j.madeDirs.includes(d)) j.madeDirs.push(d);
  const tmp = tempOf(path, j);
  rmSync(tmp, { force: true }); // what a killed run may have left
  await writeTemp(tmp, readObject(restoresDir, j, to.sha), to, now.kind === 'file' ? currentMode(path) : undefined);
  renameInto(tmp, path);
}

/** How many files are written (and fsynced) at once. */
const PARALLEL = 16;

/** Runs `fn` over `items`, PARALLEL at a time; after a failure no new item starts, and the first error is thrown once all have settled. */
async function inParallel<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: { e: unknown } | undefined;
  const worker = async () => {
    while (!failed && next < items.length) {
      try {
        await fn(items[next++]);
      } catch (e) {
        failed ??= { e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  if (failed) throw failed.e;
}

export const matches = (s: Side, want: { sha: string | null; mode: number }) =>
  want.sha === null ? s.kind === 'absent' : s.kind === 'file' && s.sha === want.sha && s.mode === want.mode;

function currentMode(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
}

/**
 * The temp file a restore writes `path` through: beside it, named by the journal and a hash of the
 * name (a fixed length, so a name near the file system's limit still has a temp), so that finishing a
 * killed restore removes what it left (pi-tree's excludes keep `.*.pi-tree-*.tmp` out of snapshots).
 */
const tempOf = (path: string, j: Journal) =>
  join(
    dirname(path),
    `.${createHash('sha1').update(basename(path)).digest('hex').slice(0, 12)}.pi-tree-${j.id.slice(-8)}.tmp`,
  );

/** Makes the missing folders above a file; returns them, top first. */
function makeDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let d = dir; !exists(d); d = dirname(d)) missing.push(d);
  for (const m of missing.reverse()) mkdirSync(m);
  return missing;
}

/**
 * Writes `bytes` into the temp file `tmp` (a link for a link) and syncs them. The permission bits: the
 * side's own (an undo's, a private mode the node recorded), else the file's bits now with the execute
 * bits as the side has them, else a new file's as the user's umask makes them.
 */
async function writeTemp(tmp: string, bytes: Buffer, side: JournalSide, keepMode?: number): Promise<void> {
  if (side.mode === LINK_MODE) {
    symlinkSync(bytes.toString('utf8'), tmp);
    return;
  }
  const exec = side.mode === 0o100755;
  const withExec = (m: number) => (exec ? m | ((m & 0o444) >> 2) | 0o100 : m & ~0o111);
  const exact = side.perm !== undefined ? withExec(side.perm) : keepMode !== undefined ? withExec(keepMode) : undefined;
  // A new file is created as any program creates one: 0666 or 0777 less the umask (the kernel applies it).
  const h = await open(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
    exact !== undefined ? exact & 0o700 : exec ? 0o777 : 0o666,
  );
  try {
    await h.writeFile(bytes);
    await h.sync();
  } finally {
    await h.close();
  }
  if (exact !== undefined) chmodSync(tmp, exact);
}

/** Moves a written temp file over `path` (the temp removed if that fails). */
function renameInto(tmp: string, path: string): void {
  try {
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

function exists(p: string): boolean {
  return lstatOrUndefined(p) !== undefined;
}

function removeMadeDirs(j: Journal, path: string): void {
  for (let d = dirname(path); j.madeDirs.includes(d); d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return; // not empty: something else lives there now
    }
  }
}

/** --force on a conflicting file: the journal's side is written whatever is there now. */
export async function forceTo(restoresDir: string, j: Journal, f: JournalFile, dir: 'forward' | 'back'): Promise<void> {
  const to = dir === 'back' ? f.before : f.after;
  const refused = refusedNow(f.path, j.cwd);
  if (refused) throw new RestoreRefusedError(`${refused}; nothing was written`);
  if (to.sha === null) unlinkSync(f.path);
  else {
    makeDirs(dirname(f.path));
    const tmp = tempOf(f.path, j);
    rmSync(tmp, { force: true });
    await writeTemp(tmp, readObject(restoresDir, j, to.sha), to, currentMode(f.path));
    renameInto(tmp, f.path);
  }
}
