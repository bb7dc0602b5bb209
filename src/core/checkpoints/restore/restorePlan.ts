// What a restore of the code at an entry would do, file by file, before anything is written.
// Only the agent's changes between where the code is now (the latest checkpoint) and the target are in
// scope: the paths the turns on the way changed (their snapshots say which) and the paths their
// recorded calls name. For each: the file as it is now (W), at the latest checkpoint (L) and at the
// target (T). W = T: nothing to do. W = L: the agent's content, restored. Anything else, or a file the
// user changed between turns on the way, is a conflict the user decides. A target not known is named as
// not restorable. Files outside the scope (the user's own, ignored ones) are never looked at.
import { mayChangeFiles } from '../toolKinds.js';
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathArg } from '../../changes/codeChanges.js';
import { resolveToolPath } from '../../changes/fileHistory.js';
import { bashFiles } from '../../changes/bashFiles.js';
import type { SnapshotLine } from '../store/manifestLines.js';
import { callsOn } from '../code/recordedCalls.js';
import {
  ABSENT,
  codeAt,
  fileSide,
  isOutside,
  keyOf,
  sidesOf,
  unknownBecause,
  type CodeContext,
  type CodeState,
  type Side,
} from '../code/codeState.js';
import { recordedPerm, touchReason, userTouches, type UserTouch } from './agentSides.js';
import { linkAbove, neverCaptured } from './restoreGuards.js';
import { gitModeOf } from '../fileMode.js';
import { differsElsewhere, keysElsewhere, linesElsewhere, newerElsewhere, undoLine } from './codeElsewhere.js';
import type { ProjectLine } from '../store/projectLatest.js';

export type PlanAction = 'create' | 'modify' | 'delete' | 'conflict' | 'unrestorable';

export interface SideInfo {
  kind: Side['kind'];
  sha?: string;
  mode?: number;
  why?: string;
}

export interface PlanItem {
  key: string;
  /** Absolute path. */
  path: string;
  action: PlanAction;
  now: SideInfo;
  target: SideInfo;
  latest: SideInfo;
  reason?: string;
  /** Outside the working folder: written only once the user confirmed it by name. */
  outside?: true;
  /** The file holds the user's content (see agentSides.ts): why, in words, for the preview. */
  userContent?: string;
}

export interface RestorePlan {
  targetId: string | null;
  /** Where the code is now, in the tree, and how the target's code is known. */
  from: { entryId: string | null; how: CodeState['how'] };
  target: { how: CodeState['how'] };
  items: PlanItem[];
  /** Files in scope that are already as at the target. */
  same: number;
  /** Their keys (after the restore they hold the agent's content at the target). */
  sameKeys: string[];
  /**
   * Each of them as it was found (its path, the target's side, its lstat when planned): the write checks
   * that none changed since, before it records them as the agent's.
   */
  sameFound?: Map<string, { path: string; sha: string | null; mode: number; stat: string }>;
  notes: string[];
  /** Changes when any file in the plan changes on disk (a restore checks it before writing). */
  fingerprint: string;
  /**
   * The folder's latest snapshot line when planned: the session's, or another session's that moved the
   * folder since (another restore or turn since makes the plan stale).
   */
  latest?: string;
  /**
   * The target's and the latest checkpoint's content of each item (bytes for writing and diffs); for a
   * conflict, `base`: the agent's version the file now was made from (a merge's base); for a file not
   * restorable, that version when the file holds the user's content.
   */
  sides: Map<string, PlanSides>;
}

export interface PlanSides {
  now: Side;
  target: Side;
  latest: Side;
  base?: Side;
  /** Private permission bits the node recorded for the file (a 0600 secret). */
  perm?: number;
}

export const sideInfo = (s: Side): SideInfo =>
  s.kind === 'file'
    ? { kind: 'file', sha: s.sha, mode: s.mode }
    : s.kind === 'unknown'
      ? { kind: 'unknown', why: s.why }
      : { kind: 'absent' };

/** Two sides hold the same file (content and mode), or are both absent. */
export function sameSide(a: Side, b: Side): boolean {
  if (a.kind === 'absent' || b.kind === 'absent') return a.kind === b.kind;
  return a.kind === 'file' && b.kind === 'file' && a.sha === b.sha && a.mode === b.mode;
}

/** The file at `abs` as it is now (bytes included). */
export function diskSide(abs: string): Side {
  try {
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) return fileSide(Buffer.from(readlinkSync(abs)), 0o120000);
    if (st.isFile()) return fileSide(readFileSync(abs), gitModeOf(st));
    return { kind: 'unknown', why: st.isDirectory() ? 'a folder is there now' : 'not a regular file now' };
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR'
      ? ABSENT
      : { kind: 'unknown', why: `unreadable now: ${(e as Error).message}` };
  }
}

export const absPath = (key: string, cwd: string) => (isOutside(key) ? key : join(cwd, key));

/** What lstat says of `abs` (inode, size, times in ns; 'absent'): a file written since says otherwise. */
export function statOf(abs: string): string {
  try {
    const st = lstatSync(abs, { bigint: true });
    return `${st.ino}:${st.mode}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return 'absent';
  }
}

/**
 * The first of the files a plan found already as at the target that is not so now (checked by content
 * where lstat says it changed since the plan), if one is not.
 */
export function sameChanged(plan: RestorePlan): string | undefined {
  for (const f of plan.sameFound?.values() ?? []) {
    if (statOf(f.path) === f.stat) continue;
    const now = diskSide(f.path);
    if (!sameSide(now, f.sha === null ? ABSENT : { kind: 'file', sha: f.sha, mode: f.mode })) return f.path;
  }
  return undefined;
}

/**
 * Where the code is now and its state: the latest snapshot, or the leaf's code when calls came after it;
 * `elsewhere`: another session of the project moved the folder since (codeElsewhere.ts), and the state
 * is that line's snapshot (`at`: this session's own position).
 */
async function currentCode(
  ctx: CodeContext,
): Promise<{ at: string | null; state: CodeState; elsewhere?: ProjectLine }> {
  const latest = ctx.checkpoints.latest();
  const leaf = ctx.session.leafId;
  const other = newerElsewhere(ctx, latest);
  if (other) {
    // (its node may be one this session shares, or not: the scope comes from the trees, and this
    // session's own route from where it last was)
    const at = latest ? positionOf(latest) : leaf;
    return {
      at,
      state: { entryId: at, base: other, overlay: new Map(), how: 'snapshot', notes: [] },
      elsewhere: other,
    };
  }
  if (!latest) return { at: leaf, state: await codeAt(ctx, leaf) };
  const at = positionOf(latest);
  // pi went on without the bridge after the latest snapshot: the leaf's calls come on top of it.
  if (
    leaf &&
    at &&
    leaf !== at &&
    ctx.session.index.get(at) &&
    ctx.session.index.branch(leaf).some((r) => r.id === at)
  ) {
    const leafState = await codeAt(ctx, leaf);
    if (leafState.how === 'snapshot+calls' && leafState.base?.commit === latest.commit)
      return { at: leaf, state: leafState };
  }
  return { at, state: { entryId: at, base: latest, overlay: new Map(), how: 'snapshot', notes: [] } };
}

/**
 * The files a 'restore' line says are not at its node: those it left as the user's (`user`) and those
 * it could not write (`unrestored`). A plan from there looks at them whatever its route (to the same
 * node it has none), so they are named again: not restorable, or a conflict before they are overwritten.
 */
function notAtTarget(line: SnapshotLine | undefined): { keys: string[]; unrestored: Set<string> } {
  if (line?.kind !== 'restore') return { keys: [], unrestored: new Set() };
  const unrestored = new Set(line.unrestored ?? []);
  return { keys: [...Object.keys(line.user ?? {}), ...unrestored], unrestored };
}

function positionOf(line: SnapshotLine): string | null {
  return line.kind === 'restore' || line.kind === 'baseline'
    ? (line.target ?? null)
    : (line.entries[line.entries.length - 1] ?? line.target ?? null);
}

/**
 * Entries between two nodes through their common ancestor (neither the ancestor nor anything above it);
 * `down`: when `to` is above `from`, the entries below `to` on the way, top first.
 */
function route(ctx: CodeContext, from: string | null, to: string | null): { ids: string[]; down: string[] } {
  const a = from === null ? [] : ctx.session.index.branch(from).map((r) => r.id);
  const b = to === null ? [] : ctx.session.index.branch(to).map((r) => r.id);
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return { ids: [...a.slice(common), ...b.slice(common)], down: common === b.length ? a.slice(common) : [] };
}

/**
 * Outside files the target's snapshot does not hold, when the target is above where the code is: the
 * first 'before' capture below it tells their content, if no call that may change files came between.
 */
async function outsideBelow(
  ctx: CodeContext,
  down: readonly string[],
  keys: readonly string[],
  sides: Map<string, Side>,
): Promise<void> {
  const want = keys.filter((k) => isOutside(k) && sides.get(k)?.kind === 'unknown');
  if (!want.length) return;
  for (const id of down) {
    const line = ctx.checkpoints.byEntry.get(id);
    if (line?.kind === 'before' && line.outsideBefore) {
      const blobs = ctx.checkpoints.store
        ? await ctx.checkpoints.store.readBlobs(line.outsideBefore.filter((x) => x.sha).map((x) => x.sha!))
        : new Map<string, Buffer>();
      for (const k of want) {
        const x = line.outsideBefore.find((o) => o.path === k);
        if (x && x.mode !== -1)
          sides.set(k, x.sha === null ? ABSENT : { kind: 'file', sha: x.sha, mode: x.mode, bytes: blobs.get(x.sha) });
      }
      return;
    }
    const rec = ctx.session.index.get(id);
    if (rec && (await callsOn(ctx.session, [rec])).some((c) => !c.failed && mayChangeFiles(c.name))) return;
  }
}

/**
 * Whether a checkpoint line or a recorded call that may change files (failed ones too: scopeOf takes
 * their paths) lies on the route from where the code is to `targetId`. false: the plan's scope would be
 * empty, so a plan would restore nothing. Where the code is: the latest snapshot's node, or the leaf
 * when calls came after it (currentCode picks one); both routes are looked at.
 */
export async function codeOnRoute(ctx: CodeContext, targetId: string | null): Promise<boolean> {
  const latest = ctx.checkpoints.latest();
  // (files the latest restore left not at its node are in every plan's scope from there)
  if (notAtTarget(latest).keys.length) return true;
  const leaf = ctx.session.leafId;
  // Another session moved the folder since: its snapshot against the target's code.
  const other = newerElsewhere(ctx, latest);
  const moved = other ?? undoLine(latest);
  if (moved && differsElsewhere(moved, await codeAt(ctx, targetId))) return true;
  for (const from of new Set(latest ? [positionOf(latest), leaf] : [leaf])) {
    const { ids } = route(ctx, from, targetId);
    if (ids.some((id) => ctx.checkpoints.byEntry.has(id))) return true;
    const recs = ids.map((id) => ctx.session.index.get(id)).filter((r): r is NonNullable<typeof r> => !!r);
    if ((await callsOn(ctx.session, recs)).length) return true;
  }
  return false;
}

/** The paths the agent changed on the way (snapshots and recorded calls), and those the user changed between turns. */
async function scopeOf(
  ctx: CodeContext,
  ids: readonly string[],
): Promise<{ keys: Set<string>; between: Set<string>; notes: string[] }> {
  const keys = new Set<string>();
  const between = new Set<string>();
  const notes: string[] = [];
  const seen = new Set<string>();
  for (const id of ids) {
    const line = ctx.checkpoints.byEntry.get(id);
    if (!line || seen.has(line.commit + line.kind)) continue;
    seen.add(line.commit + line.kind);
    for (const p of line.changed ?? []) keys.add(p);
    for (const x of line.external ?? []) keys.add(x.path);
    if (line.kind === 'before') for (const p of line.between ?? []) between.add(p);
    // (what another session's agent changed before this turn: restorable as the agent's)
    if (line.kind === 'before') for (const p of line.elsewhere ?? []) keys.add(p);
  }
  const recs = ids.map((id) => ctx.session.index.get(id)).filter((r): r is NonNullable<typeof r> => !!r);
  for (const c of await callsOn(ctx.session, recs)) {
    if (c.name === 'edit' || c.name === 'write') {
      const p = pathArg(c.args);
      if (p) keys.add(keyOf(resolveToolPath(p, ctx.cwd), ctx.cwd));
    } else if (c.name === 'bash') {
      const command =
        typeof (c.args as { command?: unknown })?.command === 'string' ? (c.args as { command: string }).command : '';
      for (const f of bashFiles(command)) keys.add(keyOf(resolveToolPath(f.path, ctx.cwd), ctx.cwd));
    }
  }
  return { keys, between, notes };
}

/** The plan for restoring the code at `targetId` (null: before the first entry). */
export async function planRestore(ctx: CodeContext, targetId: string | null): Promise<RestorePlan> {
  const cur = await currentCode(ctx);
  const target = await codeAt(ctx, targetId);
  const way = route(ctx, cur.at, targetId);
  const scope = await scopeOf(ctx, way.ids);
  // (files the line where the code is left not at its node, and what another session or an undo moved)
  const left = notAtTarget(cur.state.base);
  for (const k of left.keys) scope.keys.add(k);
  if (cur.elsewhere) for (const k of await keysElsewhere(ctx, cur.elsewhere, target)) scope.keys.add(k);
  else for (const k of undoLine(ctx.checkpoints.latest())?.restored ?? []) scope.keys.add(k);
  const keys = [...scope.keys].filter((k) => !ctx.excluded?.(k)).sort();
  const [tSides, lSides] = await Promise.all([sidesOf(ctx, target, keys, true), sidesOf(ctx, cur.state, keys)]);
  await outsideBelow(ctx, way.down, keys, tSides);
  // The user's content as of the latest line (files the calls after it wrote are the agent's): in the
  // manifest of the session that wrote it.
  const latestLine = cur.elsewhere ?? ctx.checkpoints.latest();
  const fromLatest = cur.state.base && cur.state.base.commit === latestLine?.commit;
  const touches = fromLatest
    ? userTouches(
        cur.elsewhere ? linesElsewhere(ctx, cur.elsewhere) : ctx.checkpoints.lines,
        keys.filter((k) => !cur.state.overlay.has(k)),
      )
    : new Map<string, UserTouch>();
  const bases = await agentBases(ctx, touches);
  const items: PlanItem[] = [];
  const sides = new Map<string, PlanSides>();
  let same = 0;
  const sameKeys: string[] = [];
  const sameFound: NonNullable<RestorePlan['sameFound']> = new Map();
  for (const key of keys) {
    const path = absPath(key, ctx.cwd);
    const link = linkAbove(key, ctx.cwd);
    const never = neverCaptured(key, ctx.cwd);
    const T: Side = link
      ? { kind: 'unknown', why: `${link} is a symbolic link now; a restore does not write beyond it` }
      : never
        ? { kind: 'unknown', why: never }
        : unknownBecause(tSides.get(key)!, lSides.get(key));
    // A file the restore the code is at could not write: not the agent's content there, whatever it is.
    const L: Side =
      left.unrestored.has(key) && !cur.state.overlay.has(key)
        ? { kind: 'unknown', why: 'the restore before this one could not write it' }
        : lSides.get(key)!;
    const stat = statOf(path); // (before the read: a change after it changes the stat)
    const W = diskSide(path);
    if (T.kind !== 'unknown' && sameSide(W, T)) {
      same++;
      sameKeys.push(key);
      sameFound.set(key, { path, sha: T.kind === 'file' ? T.sha : null, mode: T.kind === 'file' ? T.mode : 0, stat });
      continue;
    }
    // The user's content, unless it is the agent's version again (the user put it back by hand).
    const base = bases.get(key);
    const touch =
      touches.has(key) && !(base && base.kind !== 'unknown' && sameSide(W, base)) ? touches.get(key) : undefined;
    let action: PlanAction;
    let reason: string | undefined;
    if (T.kind === 'unknown') {
      action = 'unrestorable';
      reason = T.why;
    } else if (L.kind === 'unknown') {
      action = 'conflict';
      reason = `pi-tree cannot tell whether it changed since the agent last wrote it (${L.why})`;
    } else if (!sameSide(W, L)) {
      action = 'conflict';
      reason = W.kind === 'unknown' ? W.why : 'changed since the latest checkpoint';
    } else if (touch) {
      action = 'conflict';
      reason = touchReason(touch);
    } else if (scope.between.has(key)) {
      action = 'conflict';
      reason = 'changed between turns, outside the agent';
    } else action = T.kind === 'absent' ? 'delete' : W.kind === 'absent' ? 'create' : 'modify';
    const userContent = touch && sameSide(W, L) ? touchReason(touch) : undefined;
    items.push({
      key,
      path,
      action,
      now: sideInfo(W),
      target: sideInfo(T),
      latest: sideInfo(L),
      ...(reason ? { reason } : {}),
      ...(isOutside(key) ? { outside: true as const } : {}),
      ...(userContent ? { userContent } : {}),
    });
    const perm = T.kind === 'file' && target.base ? recordedPerm(ctx.checkpoints.lines, target.base, key) : undefined;
    // A conflict's merge base: the agent's version the file now was made from (and a file not restorable
    // that holds the user's content: whose it is, for an undo of the restore to record).
    const mergeBase =
      action === 'conflict' ? (touch ? base : L) : action === 'unrestorable' ? touch && base : undefined;
    sides.set(key, {
      now: W,
      target: T,
      latest: L,
      ...(mergeBase ? { base: mergeBase } : {}),
      ...(perm !== undefined ? { perm } : {}),
    });
  }
  const notes = [...new Set([...cur.state.notes, ...target.notes, ...scope.notes])];
  const latest = latestLine?.commit;
  return {
    targetId,
    from: { entryId: cur.at, how: cur.state.how },
    target: { how: target.how },
    items,
    same,
    sameKeys,
    sameFound,
    notes,
    fingerprint: fingerprintOf(targetId, items),
    sides,
    ...(latest ? { latest } : {}),
  };
}

/**
 * The agent's version of each file the user touched (see agentSides.ts): named by the manifest, or
 * looked up in the snapshot that holds it.
 */
async function agentBases(ctx: CodeContext, touches: Map<string, UserTouch>): Promise<Map<string, Side>> {
  const out = new Map<string, Side>();
  const byTree = new Map<string, string[]>();
  for (const [key, t] of touches) {
    if ('tree' in t.base) byTree.set(t.base.tree, [...(byTree.get(t.base.tree) ?? []), key]);
    else out.set(key, t.base.sha === null ? ABSENT : { kind: 'file', sha: t.base.sha, mode: t.base.mode });
  }
  const store = ctx.checkpoints.store;
  for (const [tree, keys] of byTree) {
    const found = store ? await store.lookup(tree, keys).catch(() => undefined) : undefined;
    for (const k of keys) {
      const f = found?.get(k);
      out.set(
        k,
        !found
          ? { kind: 'unknown', why: 'the agent\u2019s version is not in the store' }
          : f
            ? { kind: 'file', sha: f.sha, mode: f.mode }
            : ABSENT,
      );
    }
  }
  return out;
}

export function fingerprintOf(targetId: string | null, items: readonly PlanItem[]): string {
  const h = createHash('sha256').update(String(targetId));
  for (const i of items)
    h.update(
      `\0${i.key}\0${i.action}\0${i.now.sha ?? i.now.kind}\0${i.now.mode ?? ''}\0${i.target.sha ?? i.target.kind}`,
    );
  return h.digest('hex').slice(0, 32);
}

/**
 * Whether a plan made at `plannedAt` (Date.now() when planning began) still holds for the files it
 * found already as at the target: none of them changed since (their ctime, which no program sets
 * back). A restore that writes an older plan checks the files it writes itself; these it only records
 * as the agent's.
 */
export function sameStillHolds(plan: RestorePlan, cwd: string, plannedAt: number): boolean {
  // (a second's margin: a file system's clock may be coarser than the process's)
  const since = (p: string) => lstatSync(p).ctimeMs >= plannedAt - 1000;
  for (const key of plan.sameKeys) {
    const path = absPath(key, cwd);
    try {
      if (since(path)) return false;
    } catch {
      // Absent: absent at the target too, unless made or deleted since (its folder changed then).
      try {
        if (since(dirname(path))) return false;
      } catch {
        return false;
      }
    }
  }
  return true;
}

/** Counts for a preview's title. */
export function planCounts(plan: RestorePlan): Record<PlanAction, number> {
  const c: Record<PlanAction, number> = { create: 0, modify: 0, delete: 0, conflict: 0, unrestorable: 0 };
  for (const i of plan.items) c[i.action]++;
  return c;
}
