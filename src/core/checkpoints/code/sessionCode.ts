// The code side of a session, for the CLI and the extension: which entries have a code state, and the
// code at two nodes (or at a node and the folder now) compared. Reads only: nothing is created until a
// restore writes.
import { privatePrefixes, underPrefix } from '../store/storeScope.js';
import { dirname } from 'node:path';
import type { Session } from '../../session/session.js';
import { changesOnPath } from '../../changes/branchChanges.js';
import { codeAt, sidesOf, unknownBecause, type CodeContext, type CodeState, type Side } from './codeState.js';
import { SessionCheckpoints } from '../store/manifests.js';
import { absPath, diskSide, sameSide } from '../restore/restorePlan.js';
import { CheckpointStore } from '../store/store.js';
import { layoutBacksCwd } from '../restore/restoreGuards.js';
import { canonicalCwd, projectStore, readCheckpointSettings, type CheckpointSettings } from '../store/storePaths.js';

export interface CodeOptions {
  agentDir: string;
  settings?: CheckpointSettings;
  program?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Whether the user runs pi-tree for this working folder (the editor: inside a workspace folder; the
   * CLI: run from inside it; the bridge: pi's own). Otherwise only pi's folder layout backs a header's
   * `cwd`, and a restore confirms every file by name.
   */
  vouched?: (cwd: string) => boolean;
  /** Longest wait for another restore of the project (default 15 s). */
  lockWaitMs?: number;
}

export interface SessionCode extends CodeContext {
  restoresDir: string;
  sessionFile?: string;
  /** The working folder is one the user runs pi-tree for (see CodeOptions.vouched). */
  cwdVouched: boolean;
  opts: CodeOptions;
}

/** The code side of an open session (reads only: nothing is created until something is written). */
export function sessionCode(session: Session, opts: CodeOptions): SessionCode {
  const settings = opts.settings ?? readCheckpointSettings(opts.agentDir);
  const checkpoints = SessionCheckpoints.load(session, opts.agentDir, {
    settings,
    program: opts.program,
    env: opts.env,
  });
  const cwd = canonicalCwd(String(session.header.cwd ?? ''));
  const cwdVouched = layoutBacksCwd(session.path, String(session.header.cwd ?? '')) || !!opts.vouched?.(cwd);
  // pi's own files (its agent dir, pi-tree's store, the session's folder) are never restored, even inside the folder.
  const prefixes =
    checkpoints.store?.privatePrefixes ??
    privatePrefixes(opts.agentDir, cwd, session.path ? [dirname(session.path)] : []);
  const excluded = prefixes.length ? (key: string) => underPrefix(key, prefixes) : undefined;
  return {
    session,
    checkpoints,
    cwd,
    ...(excluded ? { excluded } : {}),
    restoresDir: projectStore(opts.agentDir, cwd).restoresDir,
    sessionFile: session.path,
    cwdVouched,
    opts: { ...opts, settings },
  };
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
    out.set(id, {
      entryId: id,
      kind: 'snapshot',
      snapshot: line.kind,
      time: rec.time,
      files: line.changed ?? [],
      ...(line.skipped ? { skipped: line.skipped } : {}),
    });
  }
  for (const e of await changesOnPath(sc.session, index.live())) {
    if (out.has(e.entryId)) continue;
    const files = [...new Set(e.changes.filter((c) => !c.failed && c.tool !== 'bash').map((c) => c.path))];
    if (files.length)
      out.set(e.entryId, { entryId: e.entryId, kind: 'calls', time: index.get(e.entryId)?.time ?? 0, files });
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
export async function diffCode(
  sc: SessionCode,
  a: string | null,
  b: string | null | 'now',
  scB: SessionCode = sc,
): Promise<CodeChange[]> {
  return diffStates(sc, await codeAt(sc, a), b === 'now' ? 'now' : await codeAt(scB, b), scB);
}

/** `diffCode` and what neither state can name (a bash command naming no file, an extension's tool). */
export async function diffCodeNoted(
  sc: SessionCode,
  a: string | null,
  b: string | null | 'now',
): Promise<{ changes: CodeChange[]; notes: string[] }> {
  const sa = await codeAt(sc, a);
  const sb = b === 'now' ? 'now' : await codeAt(sc, b);
  const changes = await diffStates(sc, sa, sb);
  return { changes, notes: [...new Set([...sa.notes, ...(sb === 'now' ? [] : sb.notes)])] };
}

/** `diffCode` for code states already worked out (the details pane has the node's for its summary). */
export async function diffStates(
  sc: SessionCode,
  sa: CodeState,
  b: CodeState | 'now',
  scB: SessionCode = sc,
): Promise<CodeChange[]> {
  const sb = b === 'now' ? undefined : b;
  const keys = new Set<string>([...sa.overlay.keys(), ...(sb?.overlay.keys() ?? [])]);
  const store = sc.checkpoints.store;
  // (two sessions of one project share its store: a fork compared with the session it came from)
  const oneStore = store && scB.checkpoints.store?.where.gitDir === store.where.gitDir;
  if (store && oneStore && sa.base && sb?.base)
    for (const c of await store.diffTrees(sa.base.tree, sb.base.tree)) keys.add(c.path);
  if (store && sa.base && !sb) {
    // now: the folder as a snapshot would take it (a scratch index, so the session's own stays as it is)
    const now = await store.scratchSnapshot(sc.checkpoints.sessionId);
    for (const c of await store.diffTrees(sa.base.tree, now.tree)) keys.add(c.path);
    for (const x of sa.base.external ?? []) keys.add(x.path);
  }
  // now, without snapshots: the files the session's calls name up to its leaf may differ from `a`'s too
  // (as a restore's plan names them), not only those named up to `a`
  if (!sb && !sa.base && sc.session.leafId !== sa.entryId)
    for (const k of (await codeAt(sc, sc.session.leafId)).overlay.keys()) keys.add(k);
  const list = [...keys].sort();
  const aSides = await sidesOf(sc, sa, list, true);
  const bSides = sb
    ? await sidesOf(scB, sb, list, true)
    : new Map(list.map((k) => [k, diskSide(absPath(k, sc.cwd))] as const));
  const out: CodeChange[] = [];
  for (const key of list) {
    const x = unknownBecause(aSides.get(key)!, bSides.get(key));
    const y = unknownBecause(bSides.get(key)!, aSides.get(key));
    if (x.kind !== 'unknown' && y.kind !== 'unknown' && sameSide(x, y)) continue;
    const status =
      x.kind === 'unknown' || y.kind === 'unknown'
        ? 'unknown'
        : x.kind === 'absent'
          ? 'added'
          : y.kind === 'absent'
            ? 'deleted'
            : 'modified';
    out.push({ key, path: absPath(key, sc.cwd), status, a: x, b: y });
  }
  return out;
}

/** Deletes a session's checkpoints (its manifest, index and refs; what nothing else keeps is collected). */
export async function deleteCheckpoints(
  agentDir: string,
  cwd: string,
  sessionId: string,
  opts: Omit<CodeOptions, 'agentDir'> = {},
): Promise<boolean> {
  const store = CheckpointStore.existing(agentDir, cwd, opts.settings ?? readCheckpointSettings(agentDir), opts);
  if (!store) return false;
  await store.deleteSession(sessionId);
  return true;
}
