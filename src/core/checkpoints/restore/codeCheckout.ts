// The code at an entry written into a new, empty folder (a variant's, src/core/variants), and that
// folder's store made ready for the session that will run there. The entry's snapshot goes in through
// git (read-tree -m -u through a private index: git's own checkout, which writes no name with `..` or
// `.git` in it and never through a link); what the recorded calls after it wrote comes on top; a
// file whose content is not known is left out and named, never guessed. No link that leads out of the
// folder stays in it. The folder's store borrows the project store's objects (git's alternates: nothing
// copied) and the project store keeps the snapshot with a ref named for the new session; the new
// session's index is the one the checkout filled (its stats match the files, so the first snapshot
// there is a stat pass), and its manifest starts with a line for the entry: the code at the entry is
// known to the new session though its header's cwd is not the project's. Nothing of the user's working
// folder is read or written.
import {
  chmodSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  closeSync,
  readdirSync,
  rmSync,
  statfsSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { codeAt, isOutside, type CodeState, type Side } from '../code/codeState.js';
import type { SessionCode } from '../code/sessionCode.js';
import { LINK_MODE } from '../fileMode.js';
import { GitError } from '../git/gitRun.js';
import { readId, readLsTreeSized } from '../git/gitOutput.js';
import { commitText, writeLooseObject } from '../git/looseObjects.js';
import type { SkippedFile, SnapshotLine } from '../store/manifestLines.js';
import { CheckpointStore } from '../store/store.js';
import { checkpointsRoot, DEFAULT_SETTINGS, projectStore } from '../store/storePaths.js';
import { inside } from '../store/storeScope.js';
import { recordedPerm } from './agentSides.js';
import { linkLeadsOut } from '../../platform/folderLinks.js';

export interface CheckoutResult {
  /** The folder's tree as written (the entry's code without what was left out), in the folder's store. */
  tree: string;
  commit: string;
  /** How the code at the entry is known: its snapshot, or its snapshot and the calls recorded after it. */
  how: 'snapshot' | 'snapshot+calls';
  files: number;
  bytes: number;
  /** Files whose content at the entry is not known (a bash command changed them after the snapshot): not written. */
  unknown: { path: string; why: string }[];
  /** Paths not written: links leading out of the folder, names that would, paths beyond a link. */
  leftOut: { path: string; why: string }[];
  notes: string[];
  /** The folder's store (its root folder), made for the session. */
  storeRoot: string;
  /** The folders the code has (relative, '/'; '' the folder itself): where dependency folders may sit beside it. */
  folders: string[];
  ms: number;
}

/** The disk has no room for the folder (before a byte was written, or while writing): nothing is kept. */
export class NoRoomError extends Error {
  override name = 'NoRoomError';
}

/** The code at the entry is not known well enough to make a folder of it. */
export class CodeUnknownError extends Error {
  override name = 'CodeUnknownError';
}

export interface CheckoutOptions {
  /** The session that will run in the folder: the folder's store gets its index and first manifest line. */
  sessionId: string;
  /** Bytes free where the folder is (default: the file system's; tests). */
  freeBytes?: (dir: string) => number | undefined;
}

/** A disk block for each file besides its bytes, and a megabyte to spare. */
const BLOCK = 4096;
const SPARE = 1024 * 1024;

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
const noSpace = (e: unknown) =>
  /ENOSPC|EDQUOT|No space left on device|Disk quota exceeded/.test(
    `${(e as Error)?.message ?? e}\n${(e as GitError)?.stderr ?? ''}\n${(e as NodeJS.ErrnoException)?.code ?? ''}`,
  );

/**
 * Writes the code at `entryId` of `sc`'s session into `folder` (empty; the caller made it and removes it
 * if this throws) and makes the folder's store ready for `o.sessionId`. Refuses an entry with no
 * checkpoint at or above it (CodeUnknownError), and a disk without room (NoRoomError).
 */
export async function checkoutCode(
  sc: SessionCode,
  entryId: string,
  folder: string,
  o: CheckoutOptions,
): Promise<CheckoutResult> {
  const started = performance.now();
  const { state, base, source } = await knownCode(sc, entryId);
  if (readdirSync(folder).length) throw new Error(`${folder} is not empty`);
  const where = projectStore(sc.opts.agentDir, folder);
  if (inside(checkpointsRoot(sc.opts.agentDir), where.root) === undefined)
    throw new Error(`the folder's store would be outside pi-tree's checkpoints (${where.root})`);
  try {
    const { listed, store, index } = await listBesideStore(sc, folder, source, base.tree, o.sessionId);
    const leftOut: CheckoutResult['leftOut'] = [];
    const files = checkNames(sc, listed, leftOut);
    const w: Written = { files, leftOut, unknown: [], notes: [...state.notes], update: new Set(), remove: new Set() };
    const bytes = checkRoom(files, state, folder, o);
    const whole = files.length === listed.files.length && !listed.invalid.length;
    await writeSnapshot(store, index, base.tree, files, whole, folder);
    applyCalls(sc, state, folder, w);
    dropLinksLeadingOut(folder, w);
    const modes = keepPrivateModes(source, base, folder, w);
    const tree = await recordInIndex(store, index, base.tree, whole, w);
    const commit = await keepAndRecord(store, source, { entryId, sessionId: o.sessionId, base, tree, modes, w });
    return {
      tree,
      commit,
      how: state.how === 'snapshot+calls' ? 'snapshot+calls' : 'snapshot',
      files: w.files.length,
      bytes,
      unknown: w.unknown,
      leftOut: w.leftOut,
      notes: w.notes,
      storeRoot: where.root,
      folders: foldersOf(w.files),
      ms: performance.now() - started,
    };
  } catch (e) {
    await dropStores(sc.opts.agentDir, folder, o.sessionId, source, where.root).catch(() => undefined);
    if (noSpace(e))
      throw new NoRoomError(
        `the disk filled up while the code was written into ${folder} (${(e as Error).message}); nothing was kept`,
        { cause: e },
      );
    throw e;
  }
}

type Listed = ReturnType<typeof readLsTreeSized>;
type ListedFile = Listed['files'][number];
type Base = NonNullable<CodeState['base']>;

/** What the checkout wrote and left out so far, and the index changes still to make. */
interface Written {
  files: ListedFile[];
  leftOut: CheckoutResult['leftOut'];
  unknown: CheckoutResult['unknown'];
  notes: string[];
  /** Paths whose index entry is to be (re)made from the folder, and those to be dropped from it. */
  update: Set<string>;
  remove: Set<string>;
}

/** The code at the entry, refused when no snapshot at or above it holds it. */
/**
 * Why a folder cannot be made with the code at `entryId` (no whole snapshot at or above it), or
 * undefined when it can: asked once before N variants are started, rather than failing each of them.
 */
export async function codeUnknownAt(sc: SessionCode, entryId: string): Promise<string | undefined> {
  try {
    await knownCode(sc, entryId);
    return undefined;
  } catch (e) {
    if (e instanceof CodeUnknownError) return e.message;
    throw e;
  }
}

async function knownCode(
  sc: SessionCode,
  entryId: string,
): Promise<{ state: CodeState; base: Base; source: CheckpointStore }> {
  const state = await codeAt(sc, entryId);
  const source = sc.checkpoints.store;
  if (!state.base || !source) {
    const off = sc.checkpoints.offReason();
    throw new CodeUnknownError(
      `the code at ${entryId} is not known: no checkpoint at or above it${off ? ` (${off})` : ' (the session ran without the pi-tree bridge, or before it captured)'}; only whole snapshots make a folder, since the files its record tells are not the project`,
    );
  }
  return { state, base: state.base, source };
}

/** The snapshot's listing (names, links, sizes) beside the folder's store made, with an empty index. */
async function listBesideStore(
  sc: SessionCode,
  folder: string,
  source: CheckpointStore,
  tree: string,
  sessionId: string,
): Promise<{ listed: Listed; store: CheckpointStore; index: string }> {
  // Both at once (two cores). The index is read from the tree only where the files are written, in the
  // same git process: nothing is written into the folder before the names are checked and the room known.
  const made = (async () => {
    const s = await CheckpointStore.open(sc.opts.agentDir, folder, sc.opts.settings!, {
      program: sc.opts.program,
      env: sc.opts.env,
    });
    s.borrowObjects(source);
    const index = s.indexFile(sessionId);
    rmSync(index, { force: true });
    return { store: s, index };
  })();
  const [listing, ready] = await Promise.allSettled([
    source.run(['ls-tree', '-r', '-l', '-z', '--full-tree', tree]).then(readLsTreeSized),
    made,
  ]);
  if (listing.status === 'rejected') throw listing.reason;
  if (ready.status === 'rejected') throw ready.reason;
  return { listed: listing.value, ...ready.value };
}

/** The listed files that may be written (names checked, the settings' exclusions out); the rest left out. */
function checkNames(sc: SessionCode, listed: Listed, leftOut: CheckoutResult['leftOut']): ListedFile[] {
  for (const path of listed.invalid) leftOut.push({ path, why: 'a name that is not UTF-8' });
  return listed.files.filter((f) => {
    const bad = badName(f.path);
    if (bad) leftOut.push({ path: f.path, why: bad });
    return !bad && !sc.excluded?.(f.path);
  });
}

/** The bytes the code takes; NoRoomError (nothing written yet) when the disk has not that much free. */
function checkRoom(files: readonly ListedFile[], state: CodeState, folder: string, o: CheckoutOptions): number {
  const overlayBytes = [...state.overlay.values()].reduce(
    (n, s) => n + (s.kind === 'file' ? (s.bytes?.length ?? 0) : 0),
    0,
  );
  const bytes = files.reduce((n, f) => n + f.size, 0) + overlayBytes;
  const need = bytes + (files.length + state.overlay.size) * BLOCK + SPARE;
  const free = (o.freeBytes ?? freeBytes)(folder);
  if (free !== undefined && need > free)
    throw new NoRoomError(
      `the disk has ${mb(free)} free where the folder goes (${folder}) and the code takes about ${mb(need)}; nothing was written`,
    );
  return bytes;
}

/** The snapshot written by git's own checkout, which fills the index with the written files' stats. */
async function writeSnapshot(
  store: CheckpointStore,
  index: string,
  tree: string,
  files: readonly ListedFile[],
  whole: boolean,
  folder: string,
): Promise<void> {
  if (whole) {
    // One git process reads the tree (refusing a name git will not write), fills the index and writes
    // the files: the index is neither written nor read twice. Git refuses before the first file.
    try {
      await store.run(['read-tree', '-m', '-u', tree], { index });
      return;
    } catch (e) {
      if (noSpace(e) || readdirSync(folder).length) throw e;
    }
  }
  // (names were left out, or git refused the tree: the index made from the checked list)
  rmSync(index, { force: true });
  await store.run(['update-index', '-z', '--index-info'], {
    index,
    input: files.map((f) => `${f.file.mode.toString(8)} ${f.file.sha}\t${f.path}\0`).join(''),
  });
  await store.run(['checkout-index', '-a', '-u'], { index });
}

/** What the calls after the snapshot did, on top of it: written, removed, or named unknown and removed. */
function applyCalls(sc: SessionCode, state: CodeState, folder: string, w: Written): void {
  for (const [key, side] of state.overlay) {
    if (isOutside(key)) {
      w.notes.push(`${key} is outside the working folder: not part of the folder`);
      continue;
    }
    if (sc.excluded?.(key)) continue;
    const bad = badName(key) ?? beyondLink(folder, key);
    if (bad) {
      // (nothing to remove: git writes nothing beyond a link, nor a bad name)
      w.leftOut.push({ path: key, why: bad });
      w.remove.add(key);
      continue;
    }
    if (side.kind === 'unknown') {
      w.unknown.push({ path: key, why: side.why });
      removeFile(folder, key);
      w.remove.add(key);
    } else if (side.kind === 'absent') {
      removeFile(folder, key);
      w.remove.add(key);
    } else {
      writeSide(folder, key, side);
      w.update.add(key);
    }
  }
}

/** The links the folder holds (the snapshot's, as the calls left them) that lead out of it: removed. */
function dropLinksLeadingOut(folder: string, w: Written): void {
  const links = new Set(w.files.filter((f) => f.file.mode === LINK_MODE).map((f) => f.path));
  for (const key of w.update) links.add(key);
  for (const key of links) {
    // (only what is a link now: a call may have made a file or nothing of it)
    const out = linkLeadsOut(folder, key);
    if (!out || !isLink(join(folder, key))) continue;
    w.leftOut.push({ path: key, why: `a link that leads out of the folder: ${out}` });
    unlinkSync(join(folder, key));
    w.update.delete(key);
    w.remove.add(key);
  }
}

/** The private permission bits the node recorded, put back on the files written (a 0600 secret stays 0600). */
function keepPrivateModes(source: CheckpointStore, base: Base, folder: string, w: Written): Record<string, number> {
  const modes = privateModes(source, base, w.files.map((f) => f.path).concat([...w.update]));
  for (const [key, perm] of Object.entries(modes)) {
    try {
      if (!lstatSync(join(folder, key)).isFile()) continue;
      chmodSync(join(folder, key), perm);
      w.update.add(key);
    } catch {
      // not there (left out)
    }
  }
  return modes;
}

/** The index made to match the folder (what came on top or was left out); the folder's tree. */
async function recordInIndex(
  store: CheckpointStore,
  index: string,
  tree: string,
  whole: boolean,
  w: Written,
): Promise<string> {
  for (const k of w.update) w.remove.delete(k);
  if (w.remove.size)
    await store.run(['update-index', '-z', '--force-remove', '--stdin'], {
      index,
      input: [...w.remove].join('\0') + '\0',
    });
  if (w.update.size)
    await store.run(['update-index', '-z', '--add', '--stdin'], { index, input: [...w.update].join('\0') + '\0' });
  // (the snapshot's tree itself when nothing came on top of it or was left out)
  return whole && !w.remove.size && !w.update.size ? tree : readId(await store.run(['write-tree'], { index }));
}

/** The folder's commit kept, the snapshot it borrows kept, and the session's first manifest line. */
async function keepAndRecord(
  store: CheckpointStore,
  source: CheckpointStore,
  r: { entryId: string; sessionId: string; base: Base; tree: string; modes: Record<string, number>; w: Written },
): Promise<string> {
  const commit = writeLooseObject(
    store.where.gitDir,
    'commit',
    Buffer.from(commitText(r.tree, `checkout ${r.entryId}`, new Date())),
  );
  // The project store keeps the snapshot the folder borrows; the folder's store its own tree.
  await source.keep(r.sessionId, 'checkout-base', r.base.commit);
  await store.keep(r.sessionId, 'checkout', commit);
  const skipped: SkippedFile[] = [
    ...r.w.unknown.map((u) => ({ path: u.path, why: 'not-known' as const })),
    ...r.w.leftOut.map((l) => ({
      path: l.path,
      why: (l.why.startsWith('a link')
        ? 'link-leads-out'
        : l.why.startsWith('beyond')
          ? 'beyond-link'
          : 'bad-name') as SkippedFile['why'],
    })),
  ];
  const line: SnapshotLine = {
    v: 1,
    kind: 'baseline',
    entries: [r.entryId],
    commit,
    tree: r.tree,
    at: new Date().toISOString(),
    target: r.entryId,
    ...(skipped.length ? { skipped: { count: skipped.length, files: skipped } } : {}),
    ...(Object.keys(r.modes).length ? { modes: r.modes } : {}),
  };
  store.append(r.sessionId, line);
  return commit;
}

/** The folders the files are in ('' the folder itself), each once. */
function foldersOf(files: readonly ListedFile[]): string[] {
  const folders = new Set<string>(['']);
  for (const f of files)
    for (
      let at = f.path.lastIndexOf('/');
      at > 0 && !folders.has(f.path.slice(0, at));
      at = f.path.lastIndexOf('/', at - 1)
    )
      folders.add(f.path.slice(0, at));
  return [...folders];
}

export interface DropOptions {
  /** The folder checked out, the session made for it, and the project whose store it borrowed from. */
  folder: string;
  sessionId: string;
  project: string;
  /** Where the folder's store is (CheckoutResult.storeRoot; default: where it is for `folder` now). */
  storeRoot?: string;
  program?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Undoes what checkoutCode made besides the folder's files: the folder's store (only inside pi-tree's
 * checkpoints) and the project store's ref for the session (what it kept goes at the next collect).
 */
export async function dropCheckout(agentDir: string, o: DropOptions): Promise<void> {
  const source = CheckpointStore.existing(agentDir, o.project, DEFAULT_SETTINGS, { program: o.program, env: o.env });
  await dropStores(agentDir, o.folder, o.sessionId, source, o.storeRoot);
}

async function dropStores(
  agentDir: string,
  folder: string,
  sessionId: string,
  source: CheckpointStore | undefined,
  storeRoot?: string,
): Promise<void> {
  const root = storeRoot ?? projectStore(agentDir, folder).root;
  if (inside(checkpointsRoot(agentDir), root)) rmSync(root, { recursive: true, force: true });
  await source?.dropRefs(sessionId);
}

/** A path with no empty, `.`, `..` or `.git` part and nothing that leads out: most paths, told at once. */
const PLAIN_PATH = /^(?![./])(?!.*\/[./])(?!.*\/$)[^\\\0]+$/s;

/** Why a tree path may not be written (a name leading out of the folder or into a repository). */
function badName(path: string): string | undefined {
  if (PLAIN_PATH.test(path)) return undefined;
  if (path.startsWith('/') || path.includes('\\') || path.includes('\0'))
    return 'a name that would lead out of the folder';
  for (const c of path.split('/')) {
    if (c === '' || c === '.' || c === '..') return 'a name that would lead out of the folder';
    if (c.toLowerCase() === '.git') return 'a name inside a repository’s .git';
  }
  return undefined;
}

/** Why a path cannot be written: a folder on its way is a link, or not a folder. */
function beyondLink(folder: string, key: string): string | undefined {
  const parts = key.split('/');
  for (let i = 1; i < parts.length; i++) {
    const d = join(folder, ...parts.slice(0, i));
    let st;
    try {
      st = lstatSync(d);
    } catch {
      return undefined;
    }
    if (!st.isDirectory())
      return `beyond ${parts.slice(0, i).join('/')}, which is ${st.isSymbolicLink() ? 'a link' : 'not a folder'}`;
  }
  return undefined;
}

const isLink = (p: string) => {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
};

/** Removes a file or link (never a folder, never through a link: the caller checked the way). */
function removeFile(folder: string, key: string): void {
  const p = join(folder, key);
  try {
    if (!lstatSync(p).isDirectory()) unlinkSync(p);
  } catch {
    // not there
  }
}

/** Writes a side at `key` (the folders on the way checked): a new file, never through what was there. */
function writeSide(folder: string, key: string, side: Extract<Side, { kind: 'file' }>): void {
  const p = join(folder, key);
  mkdirSync(join(p, '..'), { recursive: true });
  removeFile(folder, key);
  if (side.mode === LINK_MODE) {
    symlinkSync(side.bytes!.toString('utf8'), p);
    return;
  }
  // O_EXCL: nothing is there (a link put there meanwhile is not followed)
  const fd = openSync(
    p,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    side.mode === 0o100755 ? 0o777 : 0o666,
  );
  try {
    for (let off = 0; off < side.bytes!.length;) off += writeSync(fd, side.bytes!, off);
  } finally {
    closeSync(fd);
  }
}

/** The private permission bits the node recorded for `keys` (a 0600 secret stays 0600). */
function privateModes(
  source: CheckpointStore,
  base: NonNullable<Awaited<ReturnType<typeof codeAt>>['base']>,
  keys: readonly string[],
): Record<string, number> {
  const lines = source.manifest(base.sessionId);
  const candidates = new Set<string>();
  for (const l of lines) if (l.kind !== 'off') for (const k of Object.keys(l.modes ?? {})) candidates.add(k);
  const out: Record<string, number> = {};
  if (!candidates.size) return out;
  const wanted = new Set(keys);
  for (const k of candidates) {
    if (!wanted.has(k)) continue;
    const perm = recordedPerm(lines, base, k);
    if (perm !== undefined) out[k] = perm;
  }
  return out;
}

function freeBytes(dir: string): number | undefined {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}
