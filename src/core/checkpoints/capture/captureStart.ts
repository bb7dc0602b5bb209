// What a capture does when its session starts (capture.ts), apart: whether the working folder may be
// captured at all (captureScope.ts; the capped walk also finds the specials git never lists and the
// private permission bits the baseline records), where the session's code was when it last ran (its
// latest manifest line, whose tree the baseline is compared with: a turn killed before its 'after'
// snapshot, or the user's changes while no pi ran the session), and the line that says capture is off
// for a folder too large to capture, written without making a store for it.
import { isObjectId, readBatchCheck } from '../git/gitOutput.js';
import { privatePrefixes } from '../store/storeScope.js';
import { appendFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { captureBlocked, walkFolder, type FolderWalk } from './captureScope.js';
import type { OffLine, SkippedFile, SnapshotLine } from '../store/manifestLines.js';
import { ensurePrivateDir } from '../../platform/privateDir.js';
import { SKIPPED_KEPT, type CheckpointStore } from '../store/store.js';
import { projectStore, safeSessionId, type CheckpointSettings } from '../store/storePaths.js';

export interface ScopeOptions {
  agentDir: string;
  cwd: string;
  settings: CheckpointSettings;
  privateDirs?: readonly string[];
}

/** The walk of the working folder at session start, and why capture stays off there, if it does. */
export async function scopeOf(o: ScopeOptions): Promise<{ blocked?: string; walk: FolderWalk }> {
  const where = projectStore(o.agentDir, o.cwd);
  // The private bits of files an index seeded from before will not look at: worth a stat a file only
  // then (a fresh index has git's walk look at every file, and the snapshot reads their stats anyway).
  const seeded = existsSync(where.indexDir) && readdirSync(where.indexDir).some((n) => !n.includes('.'));
  const walk = await walkFolder(o.cwd, {
    // (capped in a folder opted in too: past the bound it only finds fewer specials and private files)
    max: o.settings.maxFiles,
    exclude: o.settings.exclude,
    skip: privatePrefixes(o.agentDir, o.cwd, o.privateDirs),
    modes: seeded,
  });
  return {
    blocked: captureBlocked(o.settings, o.cwd, { agentDir: o.agentDir, privateDirs: o.privateDirs, files: walk.files }),
    walk,
  };
}

/** Appends an 'off' line to the session's manifest without making a store (none is needed to say it). */
export function writeOffLine(agentDir: string, cwd: string, sessionId: string, reason: string): void {
  const dir = projectStore(agentDir, cwd).sessionsDir;
  ensurePrivateDir(dir);
  const line: OffLine = { v: 1, kind: 'off', at: new Date().toISOString(), reason, rule: true };
  appendFileSync(join(dir, `${safeSessionId(sessionId)}.jsonl`), `${JSON.stringify(line)}\n`, { mode: 0o600 });
}

export interface Resumed {
  line: SnapshotLine;
  /** Its 'before' never got an 'after' (pi was killed mid-turn), and capture was on to the end. */
  killed: boolean;
}

/** The session's latest snapshot line, if its tree is still in the store (a session resumed). */
export async function resumedFrom(store: CheckpointStore, sessionId: string): Promise<Resumed | undefined> {
  const lines = store.manifest(sessionId);
  const at = lines.findLastIndex((l) => l.kind !== 'off');
  if (at < 0) return undefined;
  const line = lines[at] as SnapshotLine;
  if (!(await treeExists(store, line.tree))) return undefined;
  return { line, killed: line.kind === 'before' && at === lines.length - 1 };
}

async function treeExists(store: CheckpointStore, tree: string): Promise<boolean> {
  if (!isObjectId(tree)) return false;
  const [o] = readBatchCheck(await store.run(['cat-file', '--batch-check'], { input: `${tree}\n` }));
  return !!o && !('missing' in o) && o.type === 'tree';
}

/** The baseline's own fields: the resumed session's changes since, the walk's private modes and specials. */
export async function baselineFields(
  store: CheckpointStore,
  line: SnapshotLine,
  changedSince: string[] | undefined,
  resumed: Resumed | undefined,
  walk: FolderWalk | undefined,
): Promise<void> {
  if (resumed && changedSince) {
    if (resumed.killed) {
      line.killedTurn = true;
      if (changedSince.length) line.changed = changedSince;
    } else if (changedSince.length) line.between = changedSince;
  }
  if (!walk) return;
  if (walk.modes.size) {
    const held = await store.lookup(line.tree, [...walk.modes.keys()]);
    const modes = { ...line.modes };
    for (const [p, bits] of walk.modes) if (held.has(p)) modes[p] ??= bits;
    if (Object.keys(modes).length) line.modes = modes;
  }
  if (walk.special.length) {
    const ignored = new Set(await store.ignored(walk.special));
    const named = new Set(line.skipped?.files.map((f) => f.path));
    const more: SkippedFile[] = walk.special
      .filter((p) => !ignored.has(p) && !named.has(p))
      .map((path) => ({ path, why: 'special' }));
    if (more.length) {
      const files = [...(line.skipped?.files ?? []), ...more];
      line.skipped = { count: (line.skipped?.count ?? 0) + more.length, files: files.slice(0, SKIPPED_KEPT) };
    }
  }
}
