// Writing a restore to the working folder, undoably and crash-safely. First a journal: every
// file's content before and after, kept in one file under the store's `restores/<id>/` and synced; then
// each file atomically (temp + fsync + rename, mode kept, symlinks as links, deletions deleted); then
// the journal says done. The fsyncs run a few at a time (the file system commits them together: ~20x
// fewer waits than one after the other), each file still renamed only once its own bytes are synced. Killed at any step, the next run finishes it (a file already as planned is left,
// one still as before is written, anything else is left alone and named). Undo applies the journal
// backwards under the same rules, redo forwards again.
// The conversation is never moved from here: a restore that moves it too says so in its journal, done
// with the leaf's move due; the caller (the extension, the CLI, pi) moves the leaf and records where it
// landed, or has the files put back when the move failed. An undo or redo says which move is due the
// same way. So the core never calls back into whoever drives it, and a kill between the files and the
// leaf leaves a journal the next run of that session finishes.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statfsSync,
  statSync,
  symlinkSync,
  unlinkSync,
  constants,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { blobSha, isOutside, type Side } from '../code/codeState.js';
import { LINK_MODE } from '../fileMode.js';
import type { AgentSide } from '../store/manifestLines.js';
import { diskSide, sameSide, type RestorePlan } from './restorePlan.js';
import { refusedNow } from './restoreGuards.js';
import {
  journalDir,
  journals,
  newId,
  readJournal,
  readObject,
  saveJournal,
  writeBundle,
  type Journal,
  type JournalFile,
  type JournalSide,
} from './restoreJournal.js';
import { lstatOrUndefined } from '../store/storeFiles.js';
import { ensurePrivateDir } from '../../platform/privateDir.js';
import { samePath } from '../../session/repository.js';

export type Resolution = 'mine' | 'theirs' | 'merge';

export interface ApplyResult {
  journal: Journal;
  written: string[];
  /** Files left alone: changed since the preview or the journal (with why). */
  skipped: { path: string; why: string }[];
  /** Files merged with conflict markers left in them for the user to settle (how many conflicts each). */
  merged: { path: string; conflicts: number }[];
}

/** Thrown when the working folder changed since the preview: nothing was written. */
export class PlanChangedError extends Error {
  override name = 'PlanChangedError';
}

/** Thrown before the first write when a restore could not finish (a name too long, no room…): nothing was written. */
export class RestoreRefusedError extends Error {
  override name = 'RestoreRefusedError';
}

/** Thrown when files outside the working folder (or a folder no one vouched for) would be written unconfirmed. */
export class OutsideWriteError extends Error {
  override name = 'OutsideWriteError';
  constructor(readonly paths: string[]) {
    super(
      `${paths.length} file${paths.length === 1 ? '' : 's'} outside the session\u2019s working folder would be written: ${paths.join(', ')}; nothing was written. Confirm each to restore them.`,
    );
  }
}

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

/** A three-way merge: the bytes, and how many conflicts it left marked in them. */
export type Merger = (base: Side, ours: Side, theirs: Side) => Promise<{ bytes: Buffer; conflicts: number }>;

export interface ApplyOptions {
  restoresDir: string;
  sessionFile?: string;
  /** The session whose manifest records the result, its working folder, and where the code was before. */
  sessionId?: string;
  cwd?: string;
  from?: string | null;
  /** Conflicts: what the user chose per key (default: leave them). */
  resolutions?: Map<string, Resolution>;
  /** Three-way merge of a conflict resolved 'merge' (base: the agent's version the file was made from). */
  merge?: Merger;
  /** Take every conflict as the node's (the CLI's --force). */
  force?: boolean;
  /** The working folder is one the user runs pi-tree for (otherwise every file needs confirming). */
  cwdVouched?: boolean;
  /** Files outside the working folder (absolute paths) the user confirmed by name. */
  confirmed?: ReadonlySet<string>;
  /**
   * The conversation moves as well: to `targetId`, from `fromId`. The journal ends done with the move
   * due; the caller moves the leaf after the files, then records it (leafLanded) or has the files put
   * back (putBackFiles).
   */
  leaf?: { targetId: string | null; fromId?: string | null };
  /** Files adopted from another session's folder (the journal says so; no manifest records it). */
  adopted?: boolean;
}

const agentSide = (s: Side | undefined): AgentSide | undefined =>
  s?.kind === 'file' ? { sha: s.sha, mode: s.mode } : s?.kind === 'absent' ? { sha: null, mode: 0 } : undefined;

/** The files of a plan that need the user's confirmation by name before they are written. */
export function needsConfirming(plan: RestorePlan, cwdVouched: boolean): string[] {
  return plan.items.filter((i) => i.action !== 'unrestorable' && (i.outside || !cwdVouched)).map((i) => i.path);
}

/** Writes the plan's changes. Checks first that nothing changed since the plan was made. */
export async function applyRestore(plan: RestorePlan, o: ApplyOptions): Promise<ApplyResult> {
  const files: JournalFile[] = [];
  const objects = new Map<string, Buffer>();
  const kept: NonNullable<Journal['kept']> = {};
  const merged: ApplyResult['merged'] = [];
  for (const item of plan.items) {
    if (item.action === 'unrestorable') continue;
    const res = item.action === 'conflict' ? (o.force ? 'theirs' : o.resolutions?.get(item.key)) : 'theirs';
    const sides = plan.sides.get(item.key)!;
    const agentBase = agentSide(sides.base) ?? agentSide(sides.latest);
    if (!res || res === 'mine') {
      if (item.action === 'conflict' && sides.target.kind !== 'unknown')
        kept[item.key] = {
          path: item.path,
          atTarget: agentSide(sides.target)!,
          ...(agentBase ? { atFrom: agentBase } : {}),
        };
      continue;
    }
    const now = diskSide(item.path);
    if (!sameSide(now, sides.now))
      throw new PlanChangedError(
        `${item.path} changed since the preview; nothing was written. Look at the preview again.`,
      );
    let after: Side = sides.target;
    let afterUser: AgentSide | undefined;
    if (res === 'merge') {
      if (!o.merge) throw new Error(`no way to merge ${item.path}`);
      const base = sides.base?.kind === 'unknown' ? undefined : (sides.base ?? sides.latest);
      if (!base || base.kind === 'unknown')
        throw new RestoreRefusedError(
          `${item.path} cannot be merged: the agent\u2019s version it was made from is not known; nothing was written.`,
        );
      const m = await o.merge(base, now, sides.target);
      after = { kind: 'file', sha: blobSha(m.bytes), mode: now.kind === 'file' ? now.mode : 0o100644, bytes: m.bytes };
      afterUser = agentSide(sides.target);
      if (m.conflicts) merged.push({ path: item.path, conflicts: m.conflicts });
    }
    if (after.kind === 'unknown') continue;
    files.push({
      key: item.key,
      path: item.path,
      before: { ...keep(now, objects), ...permOf(item.path, now) },
      after: { ...keep(after, objects), ...(sides.perm !== undefined && res !== 'merge' ? { perm: sides.perm } : {}) },
      ...(item.action === 'conflict' && agentBase ? { beforeAgent: agentBase } : {}),
      ...(afterUser ? { afterUser } : {}),
    });
  }
  const unconfirmed = files
    .filter((f) => (isOutside(f.key) || !o.cwdVouched) && !o.confirmed?.has(f.path))
    .map((f) => f.path);
  if (unconfirmed.length) throw new OutsideWriteError(unconfirmed);
  preflight(files, objects, o.cwd);
  const journal: Journal = {
    v: 1,
    id: newId(),
    at: new Date().toISOString(),
    sessionFile: o.sessionFile,
    ...(o.sessionId ? { sessionId: o.sessionId } : {}),
    ...(o.cwd ? { cwd: o.cwd } : {}),
    ...(o.from !== undefined ? { from: o.from } : {}),
    targetId: plan.targetId,
    state: 'prepared',
    files,
    madeDirs: [],
    ...(Object.keys(kept).length ? { kept } : {}),
    ...(plan.sameKeys?.length ? { same: plan.sameKeys } : {}),
    ...(o.adopted ? { adopted: true as const } : {}),
    ...(o.leaf
      ? {
          leaf: {
            targetId: o.leaf.targetId,
            moved: false,
            ...(o.leaf.fromId !== undefined ? { fromId: o.leaf.fromId } : {}),
          },
        }
      : {}),
  };
  const dir = journalDir(o.restoresDir, journal.id);
  ensurePrivateDir(dir);
  try {
    journal.bundle = await writeBundle(join(dir, 'objects.bin'), objects);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw new RestoreRefusedError(
      `the restore's journal could not be written (${(e as Error).message}); nothing was written`,
    );
  }
  saveJournal(o.restoresDir, journal);
  stepHook?.('journal-written', journal.id);
  const result = await runOrRollBack(o.restoresDir, journal, 'forward');
  stepHook?.('files-done', journal.id);
  journal.state = 'done';
  saveJournal(o.restoresDir, journal);
  stepHook?.(journal.leaf ? 'leaf-due' : 'done', journal.id);
  return { journal, ...result, merged };
}

/** The journal `id` as it is on disk now, when it still waits for its conversation's move. */
function leafDue(restoresDir: string, id: string): Journal & { leaf: NonNullable<Journal['leaf']> } {
  const j = readJournal(restoresDir, id);
  if (!j || j.state !== 'done' || !j.leaf || j.leaf.moved)
    throw new Error(`the restore (journal ${id}) no longer waits for its conversation to move`);
  return j as Journal & { leaf: NonNullable<Journal['leaf']> };
}

/**
 * The conversation moved after the files: the journal records where the leaf landed (pi's rule puts it
 * on a user message's parent), so that an undo moves it back only while it is still there.
 */
export function leafLanded(restoresDir: string, id: string, landed: string | null): Journal {
  const j = leafDue(restoresDir, id);
  stepHook?.('leaf-moved', j.id);
  j.leaf = { ...j.leaf, targetId: landed, moved: true };
  saveJournal(restoresDir, j);
  stepHook?.('done', j.id);
  return j;
}

/**
 * The conversation could not move (refused, cancelled, failed): the code and the conversation move
 * together, so the files go back as they were and the journal says undone. A file changed since is
 * left and named.
 */
export async function putBackFiles(restoresDir: string, id: string): Promise<Omit<ApplyResult, 'merged'>> {
  const j: Journal = leafDue(restoresDir, id);
  j.state = 'undoing';
  saveJournal(restoresDir, j);
  const r = await runFiles(restoresDir, j, 'back');
  j.state = 'undone';
  saveJournal(restoresDir, j);
  return { journal: j, ...r };
}

function keep(s: Side, objects: Map<string, Buffer>): { sha: string | null; mode: number } {
  if (s.kind !== 'file') return { sha: null, mode: 0 };
  if (s.bytes) objects.set(s.sha, s.bytes);
  return { sha: s.sha, mode: s.mode };
}

/** The permission bits of the file now (an undo gives them back exactly). */
function permOf(path: string, now: Side): { perm?: number } {
  if (now.kind !== 'file' || now.mode === LINK_MODE) return {};
  try {
    return { perm: lstatSync(path).mode & 0o7777 };
  } catch {
    return {};
  }
}

/** The longest file name most file systems take (NAME_MAX), in bytes. */
const NAME_MAX = 255;

/**
 * What can be checked before the first write, so that a restore does not stop half way: a name too
 * long, a folder on the way that is a file now (and stays one), a folder where a file goes, a link on
 * the way, and room for the bytes.
 */
function preflight(files: readonly JournalFile[], objects: Map<string, Buffer>, cwd: string | undefined): void {
  const problems: string[] = [];
  const deleted = new Set(files.filter((f) => f.after.sha === null).map((f) => f.path));
  let bytes = 0;
  for (const f of files) {
    const refused = refusedNow(f.path, cwd);
    if (refused) problems.push(refused);
    if (f.after.sha === null) continue;
    bytes += objects.get(f.after.sha)?.length ?? 0;
    if (Buffer.byteLength(basename(f.path)) > NAME_MAX)
      problems.push(`${f.path}: the name is longer than this file system takes`);
    const st = lstatOrUndefined(f.path);
    if (st?.isDirectory() && !emptiedBy(f.path, deleted))
      problems.push(`${f.path} is a folder now, where the node has a file`);
    for (let d = dirname(f.path); d !== dirname(d) && (!cwd || d.length > cwd.length); d = dirname(d)) {
      const dst = lstatOrUndefined(d);
      if (!dst) continue;
      const folder = dst.isDirectory() || (dst.isSymbolicLink() && statOrUndefined(d)?.isDirectory());
      if (!folder && !deleted.has(d)) problems.push(`${d} is a file now, where the node has a folder`);
      break;
    }
  }
  const room = freeBytes(cwd ?? dirname(files[0]?.path ?? '.'));
  if (room !== undefined && bytes + 1024 * 1024 > room)
    problems.push(`the disk has ${room} bytes free and the restore writes ${bytes}`);
  if (problems.length)
    throw new RestoreRefusedError(
      `the restore cannot be done: ${[...new Set(problems)].join('; ')}. Nothing was written.`,
    );
}

/** Whether the folder holds nothing but files the restore deletes (so the file can take its place). */
function emptiedBy(dir: string, deleted: ReadonlySet<string>, budget = { n: 10_000 }): boolean {
  let names;
  try {
    names = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const d of names) {
    if (--budget.n < 0) return false;
    const p = join(dir, d.name);
    if (d.isDirectory() ? !emptiedBy(p, deleted, budget) : !deleted.has(p)) return false;
  }
  return true;
}

function statOrUndefined(p: string) {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}

function freeBytes(dir: string): number | undefined {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

/**
 * Runs the journal's files; if one cannot be written, puts back what was (the journal then says
 * 'failed' and blocks nothing) and throws what went wrong, in words.
 */
async function runOrRollBack(
  restoresDir: string,
  j: Journal,
  dir: 'forward' | 'back',
): Promise<Omit<ApplyResult, 'journal' | 'merged'>> {
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
async function runFiles(
  restoresDir: string,
  j: Journal,
  dir: 'forward' | 'back',
): Promise<Omit<ApplyResult, 'journal' | 'merged'>> {
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

const matches = (s: Side, want: { sha: string | null; mode: number }) =>
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

export interface FlipResult extends Omit<ApplyResult, 'merged'> {
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

/** --force on a conflicting file: the journal's side is written whatever is there now. */
async function forceTo(restoresDir: string, j: Journal, f: JournalFile, dir: 'forward' | 'back'): Promise<void> {
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
