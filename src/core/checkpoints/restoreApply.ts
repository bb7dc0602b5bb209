// Writing a restore to the working folder (issue #32), undoably and crash-safely. First a journal: every
// file's content before and after, kept in one file under the store's `restores/<id>/` and synced; then
// each file atomically (temp + fsync + rename, mode kept, symlinks as links, deletions deleted); then
// the journal says done. The fsyncs run a few at a time (the file system commits them together: ~20x
// fewer waits than one after the other), each file still renamed only once its own bytes are synced. Killed at any step, the next run finishes it (a file already as planned is left,
// one still as before is written, anything else is left alone and named). Undo applies the journal
// backwards under the same rules, redo forwards again.
import { chmodSync, lstatSync, mkdirSync, renameSync, rmdirSync, rmSync, statSync, symlinkSync, unlinkSync, constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { blobSha, type Side } from './codeState.js';
import { diskSide, sameSide, type RestorePlan } from './restorePlan.js';
import { journalDir, journals, newId, readObject, saveJournal, writeBundle, type Journal, type JournalFile } from './restoreJournal.js';
import { ensurePrivateDir } from '../platform/privateDir.js';
import { samePath } from '../session/repository.js';

export type Resolution = 'mine' | 'theirs' | 'merge';

export interface ApplyResult {
  journal: Journal;
  written: string[];
  /** Files left alone: changed since the preview or the journal (with why). */
  skipped: { path: string; why: string }[];
}

/** Thrown when the working folder changed since the preview: nothing was written. */
export class PlanChangedError extends Error {
  override name = 'PlanChangedError';
}

export type RestoreStep = 'journal-written' | 'file-written' | 'files-done' | 'leaf-moved' | 'done';
let stepHook: ((step: RestoreStep, detail: string) => void) | undefined;
/** Test processes stop a restore at a named step with this. */
export function onRestoreStep(h: typeof stepHook): void {
  stepHook = h;
}

export interface ApplyOptions {
  restoresDir: string;
  sessionFile?: string;
  /** Conflicts: what the user chose per key (default: leave them). */
  resolutions?: Map<string, Resolution>;
  /** Three-way merge of a conflict resolved 'merge' (base: the latest checkpoint, ours: now, theirs: the node). */
  merge?: (base: Side, ours: Side, theirs: Side) => Promise<Buffer>;
  /** Take every conflict as the node's (the CLI's --force). */
  force?: boolean;
  /** Move the conversation as well; called after the files, undone with them if it fails. */
  moveLeaf?: { targetId: string | null; run: () => Promise<void> };
}

/** Writes the plan's changes. Checks first that nothing changed since the plan was made. */
export async function applyRestore(plan: RestorePlan, o: ApplyOptions): Promise<ApplyResult> {
  const files: JournalFile[] = [];
  const objects = new Map<string, Buffer>();
  for (const item of plan.items) {
    if (item.action === 'unrestorable') continue;
    const res = item.action === 'conflict' ? (o.force ? 'theirs' : o.resolutions?.get(item.key)) : 'theirs';
    if (!res || res === 'mine') continue;
    const sides = plan.sides.get(item.key)!;
    const now = diskSide(item.path);
    if (!sameSide(now, sides.now)) throw new PlanChangedError(`${item.path} changed since the preview; nothing was written. Look at the preview again.`);
    let after: Side = sides.target;
    if (res === 'merge') {
      if (!o.merge) throw new Error(`no way to merge ${item.path}`);
      const m = await o.merge(sides.latest, now, sides.target);
      after = { kind: 'file', sha: blobSha(m), mode: now.kind === 'file' ? now.mode : 0o100644, bytes: m };
    }
    if (after.kind === 'unknown') continue;
    files.push({ key: item.key, path: item.path, before: keep(now, objects), after: keep(after, objects) });
  }
  const journal: Journal = {
    v: 1,
    id: newId(),
    at: new Date().toISOString(),
    sessionFile: o.sessionFile,
    targetId: plan.targetId,
    state: 'prepared',
    files,
    madeDirs: [],
    ...(o.moveLeaf ? { leaf: { targetId: o.moveLeaf.targetId, moved: false } } : {}),
  };
  const dir = journalDir(o.restoresDir, journal.id);
  ensurePrivateDir(dir);
  journal.bundle = await writeBundle(join(dir, 'objects.bin'), objects);
  saveJournal(o.restoresDir, journal);
  stepHook?.('journal-written', journal.id);
  const result = await runFiles(o.restoresDir, journal, 'forward');
  stepHook?.('files-done', journal.id);
  if (o.moveLeaf) {
    try {
      await o.moveLeaf.run();
    } catch (e) {
      // The code and the conversation move together: put the files back, then report.
      journal.state = 'undoing';
      saveJournal(o.restoresDir, journal);
      await runFiles(o.restoresDir, journal, 'back');
      journal.state = 'undone';
      saveJournal(o.restoresDir, journal);
      throw e;
    }
    journal.leaf = { targetId: o.moveLeaf.targetId, moved: true };
    stepHook?.('leaf-moved', journal.id);
  }
  journal.state = 'done';
  saveJournal(o.restoresDir, journal);
  stepHook?.('done', journal.id);
  return { journal, ...result };
}

function keep(s: Side, objects: Map<string, Buffer>): { sha: string | null; mode: number } {
  if (s.kind !== 'file') return { sha: null, mode: 0 };
  if (s.bytes) objects.set(s.sha, s.bytes);
  return { sha: s.sha, mode: s.mode };
}

/**
 * Applies the journal's files in one direction: a file as `from` becomes `to`; as `to` already, left;
 * else named. Files are written a few at a time; the lists come back in the journal's order.
 */
async function runFiles(restoresDir: string, j: Journal, dir: 'forward' | 'back'): Promise<Omit<ApplyResult, 'journal'>> {
  const written = new Set<string>();
  const skipped = new Map<string, string>();
  await inParallel(j.files, async (f) => {
    const from = dir === 'forward' ? f.before : f.after;
    const to = dir === 'forward' ? f.after : f.before;
    const now = diskSide(f.path);
    if (matches(now, to)) return;
    if (!matches(now, from)) {
      skipped.set(f.path, now.kind === 'unknown' ? now.why : 'changed since the restore');
      return;
    }
    if (to.sha === null) {
      unlinkSync(f.path);
      if (dir === 'back') removeMadeDirs(j, f.path);
    } else {
      const made = makeDirs(dirname(f.path));
      if (dir === 'forward') for (const d of made) if (!j.madeDirs.includes(d)) j.madeDirs.push(d);
      const tmp = tempOf(f.path, j);
      rmSync(tmp, { force: true }); // what a killed run may have left
      await writeTemp(tmp, readObject(restoresDir, j, to.sha), to.mode, now.kind === 'file' ? currentMode(f.path) : undefined);
      renameInto(tmp, f.path);
    }
    written.add(f.path);
    stepHook?.('file-written', f.path);
  });
  if (dir === 'forward' && j.madeDirs.length) saveJournal(restoresDir, j);
  return {
    written: j.files.filter((f) => written.has(f.path)).map((f) => f.path),
    skipped: j.files.filter((f) => skipped.has(f.path)).map((f) => ({ path: f.path, why: skipped.get(f.path)! })),
  };
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

const matches = (s: Side, want: { sha: string | null; mode: number }) => (want.sha === null ? s.kind === 'absent' : s.kind === 'file' && s.sha === want.sha && s.mode === want.mode);

function currentMode(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
}

/**
 * The temp file a restore writes `path` through: named by the journal, so that finishing a killed
 * restore removes what it left (pi-tree's excludes keep such names out of snapshots).
 */
const tempOf = (path: string, j: Journal) => join(dirname(path), `.${basename(path)}.pi-tree-${j.id.slice(-8)}.tmp`);

/** Makes the missing folders above a file; returns them, top first. */
function makeDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let d = dir; !exists(d); d = dirname(d)) missing.push(d);
  for (const m of missing.reverse()) mkdirSync(m);
  return missing;
}

/** Writes `bytes` into the temp file `tmp` (a link for a link) and syncs them. */
async function writeTemp(tmp: string, bytes: Buffer, gitMode: number, keepMode?: number): Promise<void> {
  if (gitMode === 0o120000) {
    symlinkSync(bytes.toString('utf8'), tmp);
    return;
  }
  const exec = gitMode === 0o100755;
  // Keep the file's own permission bits, with the execute bits as the target has them.
  const mode = keepMode !== undefined ? (exec ? keepMode | 0o111 : keepMode & ~0o111) : exec ? 0o755 : 0o644;
  const h = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    await h.writeFile(bytes);
    await h.sync();
  } finally {
    await h.close();
  }
  chmodSync(tmp, mode);
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
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
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

/**
 * Finishes what a killed restore, undo or redo left half done (called before any new one). The leaf
 * move of a restore is finished by `moveLeaf` when given.
 */
export async function recoverPending(restoresDir: string, moveLeaf?: (j: Journal) => Promise<void>): Promise<Journal[]> {
  const done: Journal[] = [];
  for (const j of journals(restoresDir)) {
    if (j.state === 'done' || j.state === 'undone') continue;
    const forward = j.state === 'prepared' || j.state === 'redoing';
    await runFiles(restoresDir, j, forward ? 'forward' : 'back');
    if (forward && j.leaf && !j.leaf.moved && moveLeaf) {
      await moveLeaf(j);
      j.leaf.moved = true;
    }
    j.state = forward ? 'done' : 'undone';
    saveJournal(restoresDir, j);
    done.push(j);
  }
  return done;
}

/** Puts back what the last restore (of this session file, when given) replaced. */
export async function undoLast(restoresDir: string, opts: { sessionFile?: string; force?: boolean } = {}): Promise<ApplyResult & { conflicts: string[] }> {
  const j = journals(restoresDir).find((x) => x.state === 'done' && (!opts.sessionFile || (!!x.sessionFile && samePath(x.sessionFile, opts.sessionFile))));
  if (!j) throw new Error('there is no restore to undo');
  return flip(restoresDir, j, 'back', opts.force);
}

/** Restores again what the last undo put back. */
export async function redoLast(restoresDir: string, opts: { sessionFile?: string; force?: boolean } = {}): Promise<ApplyResult & { conflicts: string[] }> {
  const j = journals(restoresDir).find((x) => (x.state === 'done' || x.state === 'undone') && (!opts.sessionFile || (!!x.sessionFile && samePath(x.sessionFile, opts.sessionFile))));
  if (!j || j.state !== 'undone') throw new Error('there is no undone restore to redo');
  return flip(restoresDir, j, 'forward', opts.force);
}

async function flip(restoresDir: string, j: Journal, dir: 'forward' | 'back', force = false): Promise<ApplyResult & { conflicts: string[] }> {
  // A file changed since the restore is a conflict: nothing is written unless forced.
  const conflicts = j.files.filter((f) => {
    const now = diskSide(f.path);
    const from = dir === 'back' ? f.after : f.before;
    const to = dir === 'back' ? f.before : f.after;
    return !matches(now, from) && !matches(now, to);
  });
  if (conflicts.length && !force) return { journal: j, written: [], skipped: [], conflicts: conflicts.map((f) => f.path) };
  if (force) for (const f of conflicts) await forceTo(restoresDir, j, f, dir);
  j.state = dir === 'back' ? 'undoing' : 'redoing';
  saveJournal(restoresDir, j);
  const r = await runFiles(restoresDir, j, dir);
  j.state = dir === 'back' ? 'undone' : 'done';
  saveJournal(restoresDir, j);
  return { journal: j, ...r, conflicts: [] };
}

/** --force on a conflicting file: the journal's side is written whatever is there now. */
async function forceTo(restoresDir: string, j: Journal, f: JournalFile, dir: 'forward' | 'back'): Promise<void> {
  const to = dir === 'back' ? f.before : f.after;
  if (to.sha === null) unlinkSync(f.path);
  else {
    makeDirs(dirname(f.path));
    const tmp = tempOf(f.path, j);
    rmSync(tmp, { force: true });
    await writeTemp(tmp, readObject(restoresDir, j, to.sha), to.mode, currentMode(f.path));
    renameInto(tmp, f.path);
  }
}
