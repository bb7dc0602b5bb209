// The code of a session, for the CLI and the extension (issue #32): which entries have a code state,
// the code at two nodes (or at a node and now) compared, and a restore planned, written, undone and
// redone, with a killed one finished first. Restores outside pi (no pi runs the session) record the
// state they leave as a 'restore' snapshot, so the next restore knows where the code is.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Session } from '../session/session.js';
import { git } from './gitRun.js';
import { changesOnPath } from '../changes/branchChanges.js';
import { codeAt, sidesOf, type CodeContext, type CodeState, type Side } from './codeState.js';
import { SessionCheckpoints } from './manifests.js';
import { absPath, diskSide, planRestore, sameSide, type RestorePlan } from './restorePlan.js';
import { applyRestore, recoverPending, redoLast, undoLast, type ApplyOptions, type ApplyResult } from './restoreApply.js';
import { journals, type Journal } from './restoreJournal.js';
import type { SnapshotLine } from './manifestLines.js';
import { CheckpointStore } from './store.js';
import { refName } from './retention.js';
import { ensurePrivateDir } from '../platform/privateDir.js';
import { canonicalCwd, projectStore, readCheckpointSettings, type CheckpointSettings } from './storePaths.js';

export interface CodeOptions {
  agentDir: string;
  settings?: CheckpointSettings;
  program?: string;
  env?: NodeJS.ProcessEnv;
}

export interface SessionCode extends CodeContext {
  restoresDir: string;
  sessionFile?: string;
  opts: CodeOptions;
}

/** The code side of an open session (reads only: nothing is created until something is written). */
export function sessionCode(session: Session, opts: CodeOptions): SessionCode {
  const settings = opts.settings ?? readCheckpointSettings(opts.agentDir);
  const checkpoints = SessionCheckpoints.load(session, opts.agentDir, { settings, program: opts.program, env: opts.env });
  const cwd = canonicalCwd(String(session.header.cwd ?? ''));
  return { session, checkpoints, cwd, restoresDir: projectStore(opts.agentDir, cwd).restoresDir, sessionFile: session.path, opts: { ...opts, settings } };
}

export interface CodeEntry {
  entryId: string;
  /** snapshot: captured by the bridge; calls: the session's own record of edit/write calls. */
  kind: 'snapshot' | 'calls';
  snapshot?: 'before' | 'after' | 'baseline' | 'restore';
  time: number;
  /** Paths the turn changed (snapshots), or that its calls name. */
  files: string[];
  /** Files the snapshot left out (too large, nested repositories, special files), with the first few named. */
  skipped?: { count: number; files: { path: string; why: string }[] };
}

/** The entries with a code state of their own, in file order. */
export async function codeEntries(sc: SessionCode): Promise<CodeEntry[]> {
  const out = new Map<string, CodeEntry>();
  const index = sc.session.index;
  for (const [id, line] of sc.checkpoints.byEntry) {
    const rec = index.get(id);
    if (!rec) continue;
    out.set(id, { entryId: id, kind: 'snapshot', snapshot: line.kind, time: rec.time, files: line.changed ?? [], ...(line.skipped ? { skipped: line.skipped } : {}) });
  }
  for (const e of await changesOnPath(sc.session, index.live())) {
    if (out.has(e.entryId)) continue;
    const files = [...new Set(e.changes.filter((c) => !c.failed && c.tool !== 'bash').map((c) => c.path))];
    if (files.length) out.set(e.entryId, { entryId: e.entryId, kind: 'calls', time: index.get(e.entryId)?.time ?? 0, files });
  }
  return [...out.values()].sort((a, b) => (index.get(a.entryId)?.seq ?? 0) - (index.get(b.entryId)?.seq ?? 0));
}

export interface CodeChange {
  key: string;
  path: string;
  status: 'added' | 'modified' | 'deleted' | 'unknown';
  a: Side;
  b: Side;
}

/**
 * The code at `a` against the code at `b` (null: the working folder now). With snapshots on both
 * sides every file of the folder is compared; otherwise the files the record names.
 */
export async function diffCode(sc: SessionCode, a: string | null, b: string | null | 'now', scB: SessionCode = sc): Promise<CodeChange[]> {
  return diffStates(sc, await codeAt(sc, a), b === 'now' ? 'now' : await codeAt(scB, b), scB);
}

/** `diffCode` for code states already worked out (the details pane has the node's for its summary). */
export async function diffStates(sc: SessionCode, sa: CodeState, b: CodeState | 'now', scB: SessionCode = sc): Promise<CodeChange[]> {
  const sb = b === 'now' ? undefined : b;
  const keys = new Set<string>([...sa.overlay.keys(), ...(sb?.overlay.keys() ?? [])]);
  const store = sc.checkpoints.store;
  // (two sessions of one project share its store: a fork compared with the session it came from)
  const oneStore = store && scB.checkpoints.store?.where.gitDir === store.where.gitDir;
  if (store && oneStore && sa.base && sb?.base) for (const c of await store.diffTrees(sa.base.tree, sb.base.tree)) keys.add(c.path);
  if (store && sa.base && !sb) {
    // now: the folder as a snapshot would take it (a scratch index, so the session's own stays as it is)
    const now = await store.scratchSnapshot(sc.checkpoints.sessionId);
    for (const c of await store.diffTrees(sa.base.tree, now.tree)) keys.add(c.path);
    for (const x of sa.base.external ?? []) keys.add(x.path);
  }
  const list = [...keys].sort();
  const aSides = await sidesOf(sc, sa, list, true);
  const bSides = sb ? await sidesOf(scB, sb, list, true) : new Map(list.map((k) => [k, diskSide(absPath(k, sc.cwd))] as const));
  const out: CodeChange[] = [];
  for (const key of list) {
    const x = aSides.get(key)!;
    const y = bSides.get(key)!;
    if (x.kind !== 'unknown' && y.kind !== 'unknown' && sameSide(x, y)) continue;
    const status = x.kind === 'unknown' || y.kind === 'unknown' ? 'unknown' : x.kind === 'absent' ? 'added' : y.kind === 'absent' ? 'deleted' : 'modified';
    out.push({ key, path: absPath(key, sc.cwd), status, a: x, b: y });
  }
  return out;
}

/** Finishes a restore, undo or redo a kill left half done (before anything new is planned). */
export async function finishPending(sc: SessionCode, moveLeaf?: (j: Journal) => Promise<void>): Promise<Journal[]> {
  return recoverPending(sc.restoresDir, moveLeaf);
}

/** Restores, undos or redos a kill left half done. */
export function pendingJournals(sc: SessionCode): Journal[] {
  return journals(sc.restoresDir).filter((j) => j.state !== 'done' && j.state !== 'undone');
}

export async function planCode(sc: SessionCode, targetId: string | null): Promise<RestorePlan> {
  return planRestore(sc, targetId);
}

/** Writes a plan (see applyRestore), then records where the code now is. */
export async function writeCode(sc: SessionCode, plan: RestorePlan, o: Omit<ApplyOptions, 'restoresDir' | 'sessionFile'>): Promise<ApplyResult> {
  ensurePrivateDir(sc.restoresDir);
  const r = await applyRestore(plan, { merge: gitMerger(sc), ...o, restoresDir: sc.restoresDir, sessionFile: sc.sessionFile });
  await recordRestore(sc, plan.targetId);
  return r;
}

export function undoCode(sc: SessionCode, force = false): ReturnType<typeof undoLast> {
  return undoLast(sc.restoresDir, { sessionFile: sc.sessionFile, force });
}

export function redoCode(sc: SessionCode, force = false): ReturnType<typeof redoLast> {
  return redoLast(sc.restoresDir, { sessionFile: sc.sessionFile, force });
}

/**
 * A three-way merge with git's merge-file (base: the latest checkpoint, ours: the file now, theirs: the
 * node's); what both changed comes out with conflict markers for the user to settle in the editor.
 */
export function gitMerger(sc: SessionCode): (base: Side, ours: Side, theirs: Side) => Promise<Buffer> {
  return async (base, ours, theirs) => {
    const bytes = async (x: Side) => (x.kind !== 'file' ? Buffer.alloc(0) : (x.bytes ?? (await sc.checkpoints.store!.readBlobs([x.sha])).get(x.sha)!));
    const dir = mkdtempSync(join(tmpdir(), 'pi-tree-merge-'));
    try {
      const names = ['ours', 'base', 'theirs'];
      const sides = [ours, base, theirs];
      for (let i = 0; i < 3; i++) writeFileSync(join(dir, names[i]), await bytes(sides[i]), { mode: 0o600 });
      const out = await git(['merge-file', '-p', '-L', 'now', '-L', 'latest checkpoint', '-L', 'the node', ...names], {
        gitDir: join(dir, 'none'),
        cwd: dir,
        okCodes: Array.from({ length: 127 }, (_, i) => i + 1),
        program: sc.opts.program,
        env: sc.opts.env,
      });
      return out;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** A 'restore' snapshot: the folder after a restore, as the latest checkpoint (only where a store exists). */
export async function recordRestore(sc: SessionCode, targetId: string | null): Promise<void> {
  const store = sc.checkpoints.store ?? (sc.checkpoints.lines.length ? await CheckpointStore.open(sc.opts.agentDir, sc.cwd, sc.opts.settings!, sc.opts) : undefined);
  if (!store || !sc.checkpoints.sessionId) return;
  const snap = await store.snapshot(sc.checkpoints.sessionId, `restore ${targetId ?? 'root'}`);
  const line: SnapshotLine = { v: 1, kind: 'restore', entries: [], commit: snap.commit, tree: snap.tree, at: new Date().toISOString(), ...(targetId ? { target: targetId } : {}) };
  await store.keep(sc.checkpoints.sessionId, refName(line), snap.commit);
  store.append(sc.checkpoints.sessionId, line);
}

/** Deletes a session's checkpoints (its manifest, index and refs; what nothing else keeps is collected). */
export async function deleteCheckpoints(agentDir: string, cwd: string, sessionId: string, opts: Omit<CodeOptions, 'agentDir'> = {}): Promise<boolean> {
  const store = CheckpointStore.existing(agentDir, cwd, opts.settings ?? readCheckpointSettings(agentDir), opts);
  if (!store) return false;
  await store.deleteSession(sessionId);
  return true;
}
