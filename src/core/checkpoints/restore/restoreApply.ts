// Writing a restore's plan to the working folder, undoably and crash-safely. First a journal: every
// file's content before and after, kept in one file under the store's `restores/<id>/` and synced;
// then the files (journalFiles.ts: each atomically, a few syncs at a time); then the journal says
// done. What can be checked before the first write is (a name too long, a folder in a file's place, no
// room), so that a restore does not stop half way. Killed at any step, the next run finishes it
// (restoreRecover.ts); undo and redo run the journal back and forward again (restoreFlip.ts).
// The conversation is never moved from here: a restore that moves it too says so in its journal, done
// with the leaf's move due; the caller (the extension, the CLI, pi) moves the leaf and records where it
// landed (leafLanded), or has the files put back when the move failed (putBackFiles). So the core
// never calls back into whoever drives it, and a kill between the files and the leaf leaves a journal
// the next run of that session finishes.
import { lstatSync, readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { blobSha, isOutside, type Side } from '../code/codeState.js';
import { LINK_MODE } from '../fileMode.js';
import type { AgentSide } from '../store/manifestLines.js';
import { diskSide, sameChanged, sameSide, type PlanSides, type RestorePlan } from './restorePlan.js';
import { refusedNow } from './restoreGuards.js';
import {
  journalDir,
  newId,
  readJournal,
  saveJournal,
  writeBundle,
  type Journal,
  type JournalFile,
} from './restoreJournal.js';
import { OutsideWriteError, PlanChangedError, RestoreRefusedError } from './restoreErrors.js';
import { restoreStep, runFiles, runOrRollBack, type FilesResult } from './journalFiles.js';
import { lstatOrUndefined } from '../store/storeFiles.js';
import { ensurePrivateDir } from '../../platform/privateDir.js';

export type Resolution = 'mine' | 'theirs' | 'merge';

export interface ApplyResult {
  journal: Journal;
  written: string[];
  /** Files left alone: changed since the preview or the journal (with why). */
  skipped: { path: string; why: string }[];
  /** Files merged with conflict markers left in them for the user to settle (how many conflicts each). */
  merged: { path: string; conflicts: number }[];
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

/**
 * Whose content a file the restore cannot write held where the code was (so that an undo records it):
 * the user's when the plan found it changed since the agent's version (`base`, or the latest
 * checkpoint's), not known when the latest checkpoint's is not.
 */
function heldBefore(sides: PlanSides | undefined): NonNullable<Journal['unrestored']>[string]['was'] {
  if (!sides || sides.latest.kind === 'unknown') return 'unknown';
  if (sides.base) return agentSide(sides.base) ?? 'unknown';
  return sameSide(sides.now, sides.latest) ? 'agent' : agentSide(sides.latest)!;
}

/** The files of a plan that need the user's confirmation by name before they are written. */
export function needsConfirming(plan: RestorePlan, cwdVouched: boolean): string[] {
  return plan.items.filter((i) => i.action !== 'unrestorable' && (i.outside || !cwdVouched)).map((i) => i.path);
}

/** Writes the plan's changes. Checks first that nothing changed since the plan was made. */
export async function applyRestore(plan: RestorePlan, o: ApplyOptions): Promise<ApplyResult> {
  const files: JournalFile[] = [];
  const objects = new Map<string, Buffer>();
  const kept: NonNullable<Journal['kept']> = {};
  const unrestored: NonNullable<Journal['unrestored']> = {};
  const merged: ApplyResult['merged'] = [];
  for (const item of plan.items) {
    if (item.action === 'unrestorable') {
      unrestored[item.key] = { path: item.path, was: heldBefore(plan.sides.get(item.key)) };
      continue;
    }
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
    // Not a file now (a folder where the node has a file), as when the plan was made: no change to look
    // at again, but nothing a restore can write over.
    if (now.kind === 'unknown' && sides.now.kind === 'unknown' && now.why === sides.now.why)
      throw new RestoreRefusedError(`the restore cannot be done: ${item.path}: ${now.why}. Nothing was written.`);
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
  // The files it found already as at the node are recorded as the agent's there: none may have changed.
  const changed = sameChanged(plan);
  if (changed)
    throw new PlanChangedError(`${changed} changed since the preview; nothing was written. Look at the preview again.`);
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
    ...(Object.keys(unrestored).length ? { unrestored } : {}),
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
  restoreStep('journal-written', journal.id);
  const result = await runOrRollBack(o.restoresDir, journal, 'forward');
  restoreStep('files-done', journal.id);
  journal.state = 'done';
  saveJournal(o.restoresDir, journal);
  restoreStep(journal.leaf ? 'leaf-due' : 'done', journal.id);
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
  restoreStep('leaf-moved', j.id);
  j.leaf = { ...j.leaf, targetId: landed, moved: true };
  saveJournal(restoresDir, j);
  restoreStep('done', j.id);
  return j;
}

/**
 * The conversation could not move (refused, cancelled, failed): the code and the conversation move
 * together, so the files go back as they were and the journal says undone. A file changed since is
 * left and named.
 */
export async function putBackFiles(restoresDir: string, id: string): Promise<FilesResult & { journal: Journal }> {
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
/** Room kept free beyond the files' bytes: the journal, new folders, and what else writes meanwhile. */
const FREE_MARGIN = 1024 * 1024;
/** A byte count as a person reads it. */
const sizeWords = (n: number) =>
  n < 10_000 ? `${n} bytes` : n < 10_000_000 ? `${Math.round(n / 1000)} KB` : `${(n / 1e6).toFixed(1)} MB`;

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
  // (a margin for the journal and the folders: a disk filled to its last byte fails elsewhere, mid-write)
  if (room !== undefined && bytes + FREE_MARGIN > room)
    problems.push(
      `the disk has ${sizeWords(room)} free and the restore needs ${sizeWords(bytes + FREE_MARGIN)} (${sizeWords(bytes)} of files and ${sizeWords(FREE_MARGIN)} to spare)`,
    );
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
