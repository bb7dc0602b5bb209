// The code at an entry: the working folder as it was right after that entry on its path.
// From the nearest snapshot at or above the entry, plus what the recorded calls after it did (a `write`
// gives a whole file, an `edit` applies to a known file exactly as written; a `bash` command leaves the
// files it names unknown). Without any snapshot, from the session's record alone (the last write or
// whole read of a file, and the edits since). A file whose content is not known is `unknown`, never
// guessed. Paths are keyed relative to the working folder ('src/a.ts'), or absolute outside it.
import { mayChangeFiles } from '../toolKinds.js';
import { createHash } from 'node:crypto';
import { isAbsolute, relative, sep } from 'node:path';
import { applyEdits, editsOf, pathArg } from '../../changes/codeChanges.js';
import { bashFiles } from '../../changes/bashFiles.js';
import { contentBefore, resolveToolPath } from '../../changes/fileHistory.js';
import type { Session } from '../../session/session.js';
import type { EntrySnapshot, SessionCheckpoints } from '../store/manifests.js';
import type { SkippedFile, SnapshotLine } from '../store/manifestLines.js';
import { callsOn, type RecordedCall } from './recordedCalls.js';

export type Side =
  { kind: 'file'; sha: string; mode: number; bytes?: Buffer } | { kind: 'absent' } | { kind: 'unknown'; why: string };

export const ABSENT: Side = { kind: 'absent' };

export interface CodeState {
  entryId: string | null;
  /** The snapshot the state starts from. */
  base?: SnapshotLine & { sessionId: string; outsideBefore?: EntrySnapshot['outsideBefore'] };
  /** Files the recorded calls after the base changed (or, without a base, all the record tells). */
  overlay: Map<string, Side>;
  how: 'snapshot' | 'snapshot+calls' | 'calls' | 'none';
  /** What is not known (a bash command naming no file, an extension's tool). */
  notes: string[];
}

export interface CodeContext {
  session: Session;
  checkpoints: SessionCheckpoints;
  cwd: string;
  /** Paths that are never the project's (pi's agent dir, pi-tree's store, session folders inside the folder). */
  excluded?: (key: string) => boolean;
}

/** git's blob id of some bytes (what `git hash-object` gives). */
export function blobSha(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

export function fileSide(bytes: Buffer, mode = 0o100644): Side {
  return { kind: 'file', sha: blobSha(bytes), mode, bytes };
}

/** The key of an absolute path: relative inside the working folder (with '/'), absolute outside. */
export function keyOf(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  if (!rel || rel === '..' || rel.startsWith('..' + sep) || isAbsolute(rel)) return abs;
  return sep === '/' ? rel : rel.split(sep).join('/');
}

export const isOutside = (key: string) => isAbsolute(key);

/** The code at `entryId` (null: before the first entry). */
export async function codeAt(ctx: CodeContext, entryId: string | null): Promise<CodeState> {
  const path = entryId === null ? [] : ctx.session.index.branch(entryId);
  let baseAt = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (ctx.checkpoints.byEntry.has(path[i].id)) {
      baseAt = i;
      break;
    }
  }
  const notes: string[] = [];
  if (baseAt >= 0) {
    const base = ctx.checkpoints.byEntry.get(path[baseAt].id)!;
    const calls = (await callsOn(ctx.session, path.slice(baseAt + 1))).filter(
      (c) => !c.failed && mayChangeFiles(c.name),
    );
    const overlay = new Map<string, Side>();
    const state: CodeState = { entryId, base, overlay, how: calls.length ? 'snapshot+calls' : 'snapshot', notes };
    for (const c of calls) await applyCall(ctx, state, c);
    return state;
  }
  // No snapshot on the path: what the session's record tells, file by file.
  const overlay = new Map<string, Side>();
  const state: CodeState = { entryId, overlay, how: 'none', notes };
  const calls = (await callsOn(ctx.session, path)).filter((c) => !c.failed && mayChangeFiles(c.name));
  const files = new Map<string, string>();
  for (const c of calls) {
    if (c.name === 'edit' || c.name === 'write') {
      const p = pathArg(c.args);
      if (p) files.set(keyOf(resolveToolPath(p, ctx.cwd), ctx.cwd), p);
    }
  }
  for (const [key, named] of files) {
    const known = await contentBefore(ctx.session, path, path.length, named);
    if (!known) overlay.set(key, { kind: 'unknown', why: 'the session does not record its whole content' });
    else if (known.text.includes('\r') || known.text.startsWith('\uFEFF'))
      overlay.set(key, {
        kind: 'unknown',
        why: 'its line endings or BOM are kept by pi in ways pi-tree will not guess',
      });
    else overlay.set(key, fileSide(Buffer.from(known.text, 'utf8')));
  }
  // A bash command after a file's last known content leaves it unknown.
  const lastKnown = new Map<string, number>();
  calls.forEach((c, i) => {
    if (c.name === 'write' || c.name === 'edit') {
      const p = pathArg(c.args);
      if (p) lastKnown.set(keyOf(resolveToolPath(p, ctx.cwd), ctx.cwd), i);
    }
  });
  calls.forEach((c, i) => {
    if (c.name === 'bash') {
      for (const f of bashNamed(c, ctx.cwd, notes))
        if ((lastKnown.get(f) ?? -1) < i) overlay.set(f, { kind: 'unknown', why: 'a bash command changed it' });
    } else if (c.name !== 'edit' && c.name !== 'write')
      notes.push(`the ${c.name} tool may have changed files pi-tree cannot name`);
  });
  if (overlay.size) state.how = 'calls';
  return state;
}

function bashNamed(c: RecordedCall, cwd: string, notes: string[]): string[] {
  const command =
    typeof (c.args as { command?: unknown })?.command === 'string' ? (c.args as { command: string }).command : '';
  const named = bashFiles(command);
  if (!named.length)
    notes.push(`a bash command may have changed files it does not name: ${command.split('\n')[0].slice(0, 80)}`);
  return named.map((f) => keyOf(resolveToolPath(f.path, cwd), cwd));
}

/** What one recorded call after the base does to the state's files. */
async function applyCall(ctx: CodeContext, state: CodeState, c: RecordedCall): Promise<void> {
  if (c.name === 'bash') {
    for (const f of bashNamed(c, ctx.cwd, state.notes))
      state.overlay.set(f, { kind: 'unknown', why: 'a bash command changed it after the last checkpoint' });
    return;
  }
  if (c.name !== 'edit' && c.name !== 'write') {
    state.notes.push(`the ${c.name} tool ran after the last checkpoint and may have changed files pi-tree cannot name`);
    return;
  }
  const p = pathArg(c.args);
  if (!p) return;
  const key = keyOf(resolveToolPath(p, ctx.cwd), ctx.cwd);
  if (c.name === 'write') {
    const content = (c.args as { content?: unknown }).content;
    state.overlay.set(
      key,
      typeof content === 'string'
        ? fileSide(Buffer.from(content, 'utf8'))
        : { kind: 'unknown', why: 'a write without content' },
    );
    return;
  }
  const prev = state.overlay.get(key) ?? (await sidesOf(ctx, { ...state, overlay: new Map() }, [key], true)).get(key)!;
  if (prev.kind !== 'file' || !prev.bytes) {
    state.overlay.set(key, {
      kind: 'unknown',
      why: 'edited after the last checkpoint from content pi-tree does not have',
    });
    return;
  }
  const text = prev.bytes.toString('utf8');
  const next = text.includes('\r') || text.startsWith('\uFEFF') ? undefined : applyEdits(text, editsOf(c.args));
  state.overlay.set(
    key,
    next === undefined
      ? { kind: 'unknown', why: 'an edit after the last checkpoint that pi-tree cannot replay exactly' }
      : fileSide(Buffer.from(next, 'utf8'), prev.mode),
  );
}

const NO_RECORD: Side = { kind: 'unknown', why: 'no checkpoint and no record of its content' };

/**
 * One side said with what the other knows: a file with no record here that a bash command changed on
 * the other side is unknown because of that command, and the user recognises the command, not the gap.
 */
export function unknownBecause(side: Side, other: Side | undefined): Side {
  if (side !== NO_RECORD || other?.kind !== 'unknown' || !other.why.startsWith('a bash command changed it'))
    return side;
  return {
    kind: 'unknown',
    why: 'changed by a bash command, with no checkpoint: pi-tree has no record of its content before that',
  };
}

/**
 * The sides of `keys` in `state` (bytes included when `withBytes`). A path the base snapshot does not
 * hold is absent only if the snapshot would have held it: an ignored or too-large file is unknown.
 */
export async function sidesOf(
  ctx: CodeContext,
  state: CodeState,
  keys: readonly string[],
  withBytes = false,
): Promise<Map<string, Side>> {
  const out = new Map<string, Side>();
  const fromBase: string[] = [];
  for (const k of keys) {
    const o = state.overlay.get(k);
    if (o) out.set(k, o);
    else if (!state.base) out.set(k, NO_RECORD);
    else if (isOutside(k)) out.set(k, outsideSide(state.base, k));
    else fromBase.push(k);
  }
  const store = ctx.checkpoints.store;
  if (fromBase.length && state.base && store) {
    const found = await store.lookup(state.base.tree, fromBase);
    const missing = fromBase.filter((k) => !found.has(k));
    const notCaptured = missing.length ? await uncaptured(ctx, state.base, missing) : new Map<string, string>();
    for (const k of fromBase) {
      const f = found.get(k);
      if (f) out.set(k, { kind: 'file', sha: f.sha, mode: f.mode });
      else out.set(k, notCaptured.has(k) ? { kind: 'unknown', why: notCaptured.get(k)! } : ABSENT);
    }
  }
  if (withBytes) await fillBytes(ctx, out);
  return out;
}

function outsideSide(base: NonNullable<CodeState['base']>, key: string): Side {
  const list = base.kind === 'before' ? base.outsideBefore : base.external;
  const x = list?.find((e) => e.path === key);
  if (!x || x.mode === -1) return { kind: 'unknown', why: 'outside the working folder and not captured at this entry' };
  return x.sha === null ? ABSENT : { kind: 'file', sha: x.sha, mode: x.mode };
}

const SKIP_WORDS: Partial<Record<SkippedFile['why'], string>> = {
  size: 'larger than the size limit',
  'not-known': 'its content was not known where the folder was made',
  'link-leads-out': 'a link that leads out of the folder',
  'bad-name': 'a name that would lead out of the folder',
};

/** Paths that a snapshot leaves out on purpose (ignored, too large, skipped): their reason. */
async function uncaptured(ctx: CodeContext, base: SnapshotLine, keys: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const s of base.skipped?.files ?? [])
    if (keys.includes(s.path)) out.set(s.path, `not captured (${SKIP_WORDS[s.why] ?? s.why})`);
  const store = ctx.checkpoints.store!;
  const ignored = await store.ignored(keys.filter((k) => !out.has(k)));
  for (const k of ignored) out.set(k, 'ignored by .gitignore or pi-tree\u2019s excludes: never captured');
  // A line names only what its own walk skipped: a file too large since an earlier snapshot is in no
  // tree and on no later line, so the file as it is now decides (never "absent at the node").
  for (const k of keys)
    if (!out.has(k) && store.tooLargeNow(k)) out.set(k, 'not captured (larger than the size limit)');
  return out;
}

async function fillBytes(ctx: CodeContext, sides: Map<string, Side>): Promise<void> {
  const need = [...sides.values()]
    .filter((s): s is Extract<Side, { kind: 'file' }> => s.kind === 'file' && !s.bytes)
    .map((s) => s.sha);
  if (!need.length) return;
  const blobs = await ctx.checkpoints.store!.readBlobs(need);
  for (const [k, s] of sides) if (s.kind === 'file' && !s.bytes) sides.set(k, { ...s, bytes: blobs.get(s.sha) });
}
