// A restore as the CLI, the extension and the bridge run it: planned from the manifest as it is now,
// written one restore of the project at a time, undone and redone, a killed one finished first; each
// step records where the code now is as a 'restore' line, so the next restore knows. The conversation
// is the caller's to move: after writeCode with a leaf, the caller moves it and calls recordLeafMoved,
// or putCodeBack when the move failed; finishPending hands back the moves a kill left due, and an undo
// or redo says which move is due.
import { countConflicts } from '../git/gitOutput.js';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../git/gitRun.js';
import { isOutside, type Side } from '../code/codeState.js';
import { SessionCheckpoints } from '../store/manifests.js';
import { codeOnRoute, diskSide, planRestore, type RestorePlan } from './restorePlan.js';
import { newerElsewhere } from './codeElsewhere.js';
import {
  applyRestore,
  leafLanded,
  putBackFiles,
  type ApplyOptions,
  type ApplyResult,
  type Merger,
} from './restoreApply.js';
import { PlanChangedError } from './restoreErrors.js';
import { lastDone, redoLast, undoLast, type FlipOptions, type FlipResult } from './restoreFlip.js';
import { recoverPending, type Recovered } from './restoreRecover.js';
import { journals, type Journal } from './restoreJournal.js';
import type { AgentSide, ExternalFile, SnapshotLine } from '../store/manifestLines.js';
import { SKIPPED_KEPT, type CheckpointStore } from '../store/store.js';
import { withFileLock, LockBusyError } from '../../session/fileLock.js';
import { samePath } from '../../session/repository.js';
import { refName } from '../store/retention.js';
import { ensurePrivateDir } from '../../platform/privateDir.js';

import { type SessionCode } from '../code/sessionCode.js';

/**
 * One restore, undo or redo of a project at a time, across processes (the CLI beside the editor, two
 * pis). `left`: what a busy lock leaves, in words.
 */
export async function withRestoreLock<T>(
  sc: SessionCode,
  fn: () => Promise<T>,
  left = 'nothing was written',
): Promise<T> {
  ensurePrivateDir(sc.restoresDir);
  try {
    return await withFileLock(join(sc.restoresDir, 'restore.lock'), fn, { waitMs: sc.opts.lockWaitMs ?? 15_000 });
  } catch (e) {
    if (e instanceof LockBusyError)
      throw new Error(
        `another restore of this project is running (${e.message.replace(/ is writing this session.*$/s, '')}); ${left}. Try again once it is done.`,
        { cause: e },
      );
    throw e;
  }
}

/**
 * Finishes a restore, undo or redo a kill left half done (before anything new is planned): the files of
 * any of the project's. Each finished one records where its session's code is; one that cannot be
 * finished is put back and named in `failed`. `leafDue`: this session's journals whose conversation
 * move is still due; the caller moves the leaf to each one's `leaf.targetId` and calls recordLeafMoved.
 * `finished`: those whose files were finished now (not one whose only conversation move was due).
 * `leaves: false`: a caller that does not move the conversation; only the files are finished (a move
 * still due stays due, for the session's next restore that does).
 */
export async function finishPending(
  sc: SessionCode,
  o: { leaves?: boolean } = {},
): Promise<Recovered & { warnings: string[] }> {
  const own = o.leaves === false ? undefined : sc.sessionFile;
  if (!pendingJournals({ ...sc, sessionFile: own }).length)
    return { finished: [], failed: [], leafDue: [], warnings: [] };
  return withRestoreLock(sc, async () => {
    const r = await recoverPending(sc.restoresDir, { sessionFile: own });
    const warnings: string[] = [];
    const finished: Journal[] = [];
    for (const j of r.finished) {
      // (files finished and recorded before, only the conversation's move due: recorded again, the line
      // would put the code back at its target over any restore since; and no file was finished now)
      if (recordedBefore(sc, j)) continue;
      finished.push(j);
      await recordStep(sc, j, j.state === 'undone' ? 'undo' : 'restore', []).catch((e: unknown) =>
        warnings.push(recordWarning(e)),
      );
    }
    for (const j of r.failed)
      warnings.push(
        `an interrupted restore (journal ${j.id}) could not be finished: ${j.error ?? 'see its journal'}; its files were put back where they could be`,
      );
    return { ...r, finished, warnings };
  });
}

/** Whether the session's manifest has a line for the journal already (a journal half done has none). */
function recordedBefore(sc: SessionCode, j: Journal): boolean {
  const store = sc.checkpoints.store;
  const sessionId = j.sessionId ?? sc.checkpoints.sessionId;
  if (!store || !sessionId) return false;
  try {
    return store.manifest(sessionId).some((l) => l.kind === 'restore' && l.journal === j.id);
  } catch {
    return false;
  }
}

/** Restores, undos or redos a kill left half done (or a conversation move still due for this session). */
export function pendingJournals(sc: Pick<SessionCode, 'restoresDir' | 'sessionFile'>): Journal[] {
  return journals(sc.restoresDir).filter(
    (j) =>
      j.state === 'prepared' ||
      j.state === 'undoing' ||
      j.state === 'redoing' ||
      (j.state === 'done' &&
        !!j.leaf &&
        !j.leaf.moved &&
        !!sc.sessionFile &&
        !!j.sessionFile &&
        samePath(j.sessionFile, sc.sessionFile)),
  );
}

/**
 * Waits while a restore, undo or redo of the project still records where the code now is (it answers
 * with the files first and holds the project's restore lock until the record is written; a restore
 * through pi does so in pi's process): what reads where the code is reads it after that. A lock held
 * longer than a lock's wait is not waited out: the plan is made, and a write of it checks it again.
 */
async function afterRecords(sc: SessionCode): Promise<boolean> {
  const lock = join(sc.restoresDir, 'restore.lock');
  if (!existsSync(lock)) return false;
  try {
    await withFileLock(lock, async () => {}, { waitMs: sc.opts.lockWaitMs ?? 15_000 });
  } catch (e) {
    if (!(e instanceof LockBusyError)) throw e;
  }
  return true;
}

const loadCheckpoints = (sc: SessionCode) =>
  SessionCheckpoints.load(sc.session, sc.opts.agentDir, {
    settings: sc.opts.settings,
    program: sc.opts.program,
    env: sc.opts.env,
  });

/** The plan of a restore, from the manifest as it is now (a finished or another restore may have added to it). */
export async function planCode(sc: SessionCode, targetId: string | null): Promise<RestorePlan> {
  await afterRecords(sc);
  sc.checkpoints = loadCheckpoints(sc);
  return planRestore(sc, targetId);
}

/**
 * Whether a checkpoint or a recorded call that may change files lies between where the code is and
 * `targetId` (the checkpoints as `sc` read them, read again after a restore's record that was under
 * way). false: a plan would have nothing to restore, so a move there is the conversation's alone and
 * no plan need be made (one costs the store's reads and a look at every file in scope; this, the
 * route's entries).
 */
export async function codeBetween(sc: SessionCode, targetId: string | null): Promise<boolean> {
  if (await afterRecords(sc)) sc.checkpoints = loadCheckpoints(sc);
  return codeOnRoute(sc, targetId);
}

export type CodeWriteOptions = Omit<
  ApplyOptions,
  'restoresDir' | 'sessionFile' | 'sessionId' | 'cwd' | 'from' | 'cwdVouched'
>;

/** What writeCode did: the files, the words for what went wrong after them, and the time of each part. */
export type WrittenCode = ApplyResult & { warnings: string[]; ms: { apply: number; record: number } };

/**
 * Writes a plan (see applyRestore) and records where the code now is, one restore of the project at a
 * time. The files written stay written if the recording fails: that is a warning.
 */
export async function writeCode(sc: SessionCode, plan: RestorePlan, o: CodeWriteOptions): Promise<WrittenCode> {
  const { recorded, ...r } = await writeCodeEarly(sc, plan, o);
  const after = await recorded;
  r.warnings.push(...after.warnings);
  r.ms.record = after.ms;
  return r;
}

/**
 * writeCode resolved as soon as the files are written, the recording of where the code now is still
 * under way (`recorded`: its warnings and time; it never rejects), the project's restore lock held until
 * it is done: what waits for the user is the files; a restore or undo that comes next waits for the lock.
 */
export async function writeCodeEarly(
  sc: SessionCode,
  plan: RestorePlan,
  o: CodeWriteOptions,
): Promise<WrittenCode & { recorded: Promise<{ warnings: string[]; ms: number }> }> {
  let filesWritten!: (r: WrittenCode) => void;
  const written = new Promise<WrittenCode>((resolve) => (filesWritten = resolve));
  const whole = withRestoreLock(sc, async () => {
    const t0 = performance.now();
    const latest = latestLine(sc)?.commit;
    if (latest !== plan.latest)
      throw new PlanChangedError(
        'the code moved since the preview (another restore, or a turn of pi); nothing was written. Look at the preview again.',
      );
    const r = await applyRestore(plan, {
      merge: gitMerger(sc),
      ...o,
      restoresDir: sc.restoresDir,
      sessionFile: sc.sessionFile,
      ...(sc.checkpoints.sessionId ? { sessionId: sc.checkpoints.sessionId } : {}),
      cwd: sc.cwd,
      from: plan.from.entryId,
      cwdVouched: sc.cwdVouched,
    });
    const t1 = performance.now();
    filesWritten({ ...r, warnings: [], ms: { apply: Math.round(t1 - t0), record: 0 } });
    const warnings: string[] = [];
    await recordStep(
      sc,
      r.journal,
      'restore',
      r.skipped.map((x) => x.path),
    ).catch((e: unknown) => warnings.push(recordWarning(e)));
    return { warnings, ms: Math.round(performance.now() - t1) };
  });
  const recorded = whole.catch((e: unknown) => ({ warnings: [recordWarning(e)], ms: 0 }));
  // Refused or failed before the files were written: that is writeCode's answer.
  const r = await Promise.race([written, whole.then(() => written)]);
  return { ...r, recorded };
}

const recordWarning = (e: unknown) =>
  `the files were written, but where the code is now could not be recorded (${e instanceof Error ? e.message : String(e)}); the next restore may ask about them`;

/**
 * The conversation moved after writeCode's files: the journal records where the leaf landed (pi's rule
 * puts it on a user message's parent), so that an undo moves it back only while it is still there.
 * The leaf has moved whatever happens here: a record that fails is a warning (the journal still says
 * the move is due, and the session's next restore records it).
 */
export async function recordLeafMoved(
  sc: SessionCode,
  journal: Pick<Journal, 'id'>,
  landed: string | null,
): Promise<{ warnings: string[] }> {
  try {
    await withRestoreLock(
      sc,
      async () => void leafLanded(sc.restoresDir, journal.id, landed),
      'the journal was not updated',
    );
    return { warnings: [] };
  } catch (e) {
    return {
      warnings: [
        `the conversation moved, but the restore's journal could not record it (${e instanceof Error ? e.message : String(e)}); an undo would leave the conversation where it is`,
      ],
    };
  }
}

/**
 * The conversation could not move after writeCode's files (refused, cancelled, failed): the files go
 * back as they were (one changed since is left and named in `skipped`), and the code is recorded back
 * where it was.
 */
export async function putCodeBack(
  sc: SessionCode,
  journal: Pick<Journal, 'id'>,
): Promise<{ written: string[]; skipped: { path: string; why: string }[]; warnings: string[] }> {
  return withRestoreLock(
    sc,
    async () => {
      const r = await putBackFiles(sc.restoresDir, journal.id);
      const warnings: string[] = [];
      await recordStep(
        sc,
        r.journal,
        'undo',
        r.skipped.map((x) => x.path),
      ).catch((e: unknown) => warnings.push(recordWarning(e)));
      return { written: r.written, skipped: r.skipped, warnings };
    },
    'the files stay as the restore wrote them',
  );
}

export type CodeFlipOptions = Omit<FlipOptions, 'sessionFile'>;

export async function undoCode(sc: SessionCode, o: CodeFlipOptions = {}): Promise<FlipResult & { warnings: string[] }> {
  return flipCode(sc, 'undo', o);
}

export async function redoCode(sc: SessionCode, o: CodeFlipOptions = {}): Promise<FlipResult & { warnings: string[] }> {
  return flipCode(sc, 'redo', o);
}

async function flipCode(
  sc: SessionCode,
  step: 'undo' | 'redo',
  o: CodeFlipOptions,
): Promise<FlipResult & { warnings: string[] }> {
  return withRestoreLock(sc, async () => {
    const r = await (step === 'undo' ? undoLast : redoLast)(sc.restoresDir, { ...o, sessionFile: sc.sessionFile });
    const warnings: string[] = [];
    if (!r.conflicts.length)
      await recordStep(
        sc,
        r.journal,
        step,
        r.skipped.map((x) => x.path),
      ).catch((e: unknown) => warnings.push(recordWarning(e)));
    return { ...r, warnings };
  });
}

/**
 * Writes an adopt plan (adoptPlan.ts: another folder's changes) into the session's working folder: one
 * restore of the project at a time, the journal kept under `journalOf` (the session whose files they
 * are; its undo names it), nothing recorded in a manifest.
 */
export async function writeAdopt(
  sc: SessionCode,
  plan: RestorePlan,
  o: CodeWriteOptions & { journalOf: string },
): Promise<ApplyResult> {
  const { journalOf, ...rest } = o;
  return withRestoreLock(sc, () =>
    applyRestore(plan, {
      merge: gitMerger(sc),
      ...rest,
      restoresDir: sc.restoresDir,
      sessionFile: journalOf,
      cwd: sc.cwd,
      from: plan.from.entryId,
      cwdVouched: sc.cwdVouched,
      adopted: true,
    }),
  );
}

/** Puts back what the last adopt of `journalOf`'s files into the session's folder replaced. */
export async function undoAdopt(
  sc: SessionCode,
  journalOf: string,
  o: Pick<CodeFlipOptions, 'force'> = {},
): Promise<FlipResult> {
  return withRestoreLock(sc, async () => {
    const j = lastDone(sc.restoresDir, journalOf);
    if (!j?.adopted) throw new Error('there is no adopt of this variant to undo');
    return undoLast(sc.restoresDir, { force: o.force, sessionFile: journalOf });
  });
}

/**
 * A three-way merge with git's merge-file. base: the agent's version the file now was made from (so
 * what the user added is their change, kept), ours: the file now, theirs: the node's. What both changed
 * comes out with conflict markers, counted, for the user to settle in the editor.
 */
export function gitMerger(sc: SessionCode): Merger {
  return async (base, ours, theirs) => {
    const bytes = async (x: Side) =>
      x.kind !== 'file' ? Buffer.alloc(0) : (x.bytes ?? (await sc.checkpoints.store!.readBlobs([x.sha])).get(x.sha)!);
    const dir = mkdtempSync(join(tmpdir(), 'pi-tree-merge-'));
    try {
      const names = ['ours', 'base', 'theirs'];
      const sides = [ours, base, theirs];
      for (let i = 0; i < 3; i++) writeFileSync(join(dir, names[i]), await bytes(sides[i]), { mode: 0o600 });
      const out = await git(['merge-file', '-p', '-L', 'yours', '-L', 'the agent\u2019s', '-L', 'the node', ...names], {
        gitDir: join(dir, 'none'),
        cwd: dir,
        okCodes: Array.from({ length: 127 }, (_, i) => i + 1),
        program: sc.opts.program,
        env: sc.opts.env,
      });
      const conflicts = countConflicts(out, 'yours');
      return { bytes: out, conflicts };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

function latestLine(sc: SessionCode): SnapshotLine | undefined {
  const store = sc.checkpoints.store;
  if (!store || !sc.checkpoints.sessionId) return undefined;
  const own = store.manifest(sc.checkpoints.sessionId).findLast((l): l is SnapshotLine => l.kind !== 'off');
  // (as the plan reads it: another session's newer line is where the folder is)
  return newerElsewhere(sc, own) ?? own;
}

const agentOf = (x: { sha: string | null; mode: number }): AgentSide => ({
  sha: x.sha,
  mode: x.sha === null ? 0 : x.mode,
});

/**
 * A 'restore' line: the folder after a restore, undo or redo, as the latest checkpoint, with where the
 * code now is (the node, or where it was before for an undo), which files hold the agent's content
 * there, which the user's (with the agent's version they were made from) and which the restore could
 * not write, and what else changed since the previous line (the user's). Only where the project has a store.
 */
/**
 * The files outside the working folder a step wrote as the agent's, as they are now (a snapshot holds
 * only the folder): the next plan knows them from the step's line instead of "not captured at this entry".
 */
async function outsideNow(store: CheckpointStore, keys: readonly string[]): Promise<ExternalFile[]> {
  const out: ExternalFile[] = [];
  for (const key of keys) {
    if (!isOutside(key)) continue;
    const now = diskSide(key);
    if (now.kind === 'absent') out.push({ path: key, sha: null, mode: 0 });
    else if (now.kind === 'file' && now.bytes) {
      const [sha] = await store.writeBlobs([now.bytes]);
      out.push({ path: key, sha, mode: now.mode });
    }
  }
  return out;
}

async function recordStep(
  sc: SessionCode,
  j: Journal,
  step: 'restore' | 'undo' | 'redo',
  skipped: readonly string[],
): Promise<void> {
  const store = sc.checkpoints.store;
  const sessionId = j.sessionId ?? sc.checkpoints.sessionId;
  // (files adopted from a variant move no session's code: the next snapshot sees them as changed between turns)
  if (!store || !sessionId || j.adopted || (step === 'undo' && j.from === undefined)) return;
  const own = store.manifest(sessionId).findLast((l): l is SnapshotLine => l.kind !== 'off');
  // The folder's previous state: another session's newer line when one moved it since (its files are
  // the agent's there, not changes of the user's).
  const prev = (sessionId === sc.checkpoints.sessionId ? newerElsewhere(sc, own) : undefined) ?? own;
  const back = step === 'undo';
  const position = back ? (j.from ?? null) : j.targetId;
  const snap = await store.snapshot(sessionId, `${step} ${position ?? 'root'}`);
  const restored: string[] = [];
  const user: Record<string, AgentSide> = {};
  const left = new Set(skipped);
  for (const f of j.files) {
    const agent = back ? f.beforeAgent : f.afterUser;
    if (agent) user[f.key] = agent;
    else if (left.has(f.path)) user[f.key] = agentOf(back ? f.before : f.after);
    else restored.push(f.key);
  }
  for (const [key, k] of Object.entries(j.kept ?? {})) {
    const agent = back ? k.atFrom : k.atTarget;
    if (agent) user[key] = agent;
  }
  if (!back) for (const key of j.same ?? []) restored.push(key);
  // Files the plan could not write: not at the node after a restore or redo; after an undo, where they
  // were before it (the user's, or still not known whose, when the plan found them so).
  const unrestored: string[] = [];
  for (const [key, u] of Object.entries(j.unrestored ?? {}))
    if (!back || u.was === 'unknown') unrestored.push(key);
    else if (u.was !== 'agent') user[key] = u.was;
  const written = new Set([
    ...j.files.map((f) => f.key),
    ...Object.keys(j.kept ?? {}),
    ...(back ? [] : (j.same ?? [])),
  ]);
  const between =
    prev && prev.tree !== snap.tree
      ? (await store.diffTrees(prev.tree, snap.tree)).map((c) => c.path).filter((p) => !written.has(p))
      : [];
  const external = await outsideNow(store, restored);
  const line: SnapshotLine = {
    v: 1,
    kind: 'restore',
    entries: [],
    commit: snap.commit,
    tree: snap.tree,
    at: new Date().toISOString(),
    ...(position ? { target: position } : {}),
    journal: j.id,
    step,
    ...(restored.length ? { restored } : {}),
    ...(Object.keys(user).length ? { user } : {}),
    ...(unrestored.length ? { unrestored } : {}),
    ...(between.length ? { between } : {}),
    ...(external.length ? { external } : {}),
    ...(snap.skipped.length
      ? { skipped: { count: snap.skipped.length, files: snap.skipped.slice(0, SKIPPED_KEPT) } }
      : {}),
    ...(snap.modes ? { modes: snap.modes } : {}),
  };
  await store.keep(sessionId, refName(line), snap.commit);
  store.append(sessionId, line);
}
