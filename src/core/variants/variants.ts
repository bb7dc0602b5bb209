// A variant: a new session forked from a node, run in a folder of its own that holds the code at the
// node. Made here in three steps, each undone if a later one fails: the record
// (state `preparing`, so a process killed half way leaves a listed variant to discard), the folder (the
// code from the checkpoint store, restore/codeCheckout.ts, then the dependency folders, variantDeps.ts),
// the session (pi's createBranchedSession as SessionRepository.clone writes it: the path root → node,
// header `parentSession` = the source, `cwd` = the variant's folder, placed beside the source so family
// links find it). Discarding removes the folder and its store, never through a link and only inside the
// variants root; the session file stays unless asked.
import { lstatSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  canonicalCwd,
  checkoutCode,
  dropCheckout,
  NoRoomError,
  readCheckpointSettings,
  sessionCode,
  variantsRoot,
  type CheckpointSettings,
} from '../checkpoints/index.js';
import { newSessionId } from '../format/ids.js';
import { ensurePrivateDir } from '../platform/privateDir.js';
import { SessionRepository } from '../session/repository.js';
import type { Session } from '../session/session.js';
import { bringDeps, readVariantSettings, type VariantSettings } from './variantDeps.js';
import {
  alive,
  folderName,
  isRealFolder,
  projectVariants,
  variantAt,
  variantDir,
  writeRecord,
  type VariantRecord,
} from './variantRecords.js';

export interface MakeVariantOptions {
  agentDir: string;
  /** The session the variant forks from (open) and the entry it forks at. */
  source: Session;
  entryId: string;
  prompt?: string;
  model?: string;
  /** Dependency folders (default: pi-tree's settings.json `variants`). */
  settings?: VariantSettings;
  checkpointSettings?: CheckpointSettings;
  /** Writes the session (its onCreated hears of it); default one for `agentDir`. */
  repo?: SessionRepository;
  program?: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Bytes free where the folder goes (tests). */
  freeBytes?: (dir: string) => number | undefined;
  /** Tests stop the dependency copy at a file with this. */
  onDepsFile?: (rel: string) => void;
}

/**
 * Makes a variant of `o.source` at `o.entryId`: its folder ready and its session written; the record
 * says `ready`. Throws (and keeps nothing) when the code at the node is not known (CodeUnknownError),
 * the disk has no room (NoRoomError, one message), or anything else fails.
 */
export async function makeVariant(o: MakeVariantOptions): Promise<VariantRecord> {
  const source = o.source;
  if (!source.path) throw new Error('a variant is made from a session file, not one held in memory');
  if (!source.index.get(o.entryId)) throw new Error(`no entry ${o.entryId} in ${source.path}`);
  const cwd = source.header.cwd;
  if (typeof cwd !== 'string' || !cwd || !isRealFolder(cwd))
    throw new Error(`the session's working folder ${JSON.stringify(cwd)} is not there`);
  const project = canonicalCwd(cwd);
  const settings = o.settings ?? readVariantSettings(o.agentDir);
  const sc = sessionCode(source, {
    agentDir: o.agentDir,
    settings: o.checkpointSettings ?? readCheckpointSettings(o.agentDir),
    program: o.program,
    env: o.env,
  });
  const id = newSessionId();
  ensurePrivateDir(projectVariants(o.agentDir, project));
  const dir = variantDir(o.agentDir, project, id);
  mkdirSync(dir, { mode: 0o700 });
  mkdirSync(join(dir, folderName(project)));
  const folder = realpathSync.native(join(dir, folderName(project)));
  const now = new Date().toISOString();
  let rec: VariantRecord = {
    v: 1,
    id,
    project,
    folder,
    source: { sessionFile: source.path, sessionId: String(source.header.id ?? ''), entryId: o.entryId },
    ...(o.prompt !== undefined ? { prompt: o.prompt } : {}),
    ...(o.model !== undefined ? { model: o.model } : {}),
    state: 'preparing',
    pid: process.pid,
    created: now,
    updated: now,
  };
  writeRecord(o.agentDir, rec);
  let sessionFile: string | undefined;
  let storeRoot: string | undefined;
  try {
    const started = performance.now();
    const code = await checkoutCode(sc, o.entryId, folder, { sessionId: id, freeBytes: o.freeBytes });
    storeRoot = code.storeRoot;
    o.signal?.throwIfAborted();
    const deps = await bringDeps(project, folder, {
      settings,
      folders: code.folders,
      env: o.env,
      signal: o.signal,
      freeBytes: o.freeBytes,
      onFile: o.onDepsFile,
    });
    const readyMs = performance.now() - started;
    o.signal?.throwIfAborted();
    sessionFile = await (o.repo ?? new SessionRepository({ agentDir: o.agentDir })).clone(source, o.entryId, {
      cwd: folder,
      id,
    });
    const { folders: _, ...kept } = code;
    rec = { ...rec, state: 'ready', sessionFile, code: kept, deps, readyMs };
    delete rec.pid;
    writeRecord(o.agentDir, rec);
    return rec;
  } catch (e) {
    if (sessionFile) rmSync(sessionFile, { force: true });
    await dropCheckout(o.agentDir, { folder, sessionId: id, project, storeRoot, program: o.program, env: o.env }).catch(
      () => undefined,
    );
    removeVariantDir(o.agentDir, project, id);
    if (isNoSpace(e) && !(e instanceof NoRoomError))
      throw new NoRoomError(
        `the disk filled up while the variant's folder was made (${(e as Error).message}); nothing was kept`,
        { cause: e },
      );
    throw e;
  }
}

const exists = (p: string) => {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

const isNoSpace = (e: unknown) => ['ENOSPC', 'EDQUOT'].includes((e as NodeJS.ErrnoException)?.code ?? '');

export interface DiscardOptions {
  /** Move the variant's session file to the trash too (default: it stays). */
  deleteSession?: boolean;
  repo?: SessionRepository;
  /** Discard a variant whose run still goes on (its process keeps writing into a folder that is gone). */
  force?: boolean;
  program?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Removes a variant's folder, its checkpoint store and its record (the session file stays unless
 * `deleteSession`). Only inside the variants root and never through a link: the variant's own folder
 * must be a real folder there, and removing it unlinks links without following them.
 */
export async function discardVariant(
  agentDir: string,
  rec: VariantRecord,
  o: DiscardOptions = {},
): Promise<{ sessionTrashed?: string }> {
  if (rec.state === 'running' && alive(rec.pid) && !o.force)
    throw new Error(`the variant is running (pid ${rec.pid}); stop it first`);
  const dir = variantDir(agentDir, rec.project, rec.id);
  const bad = [variantsRoot(agentDir), projectVariants(agentDir, rec.project), dir].find(
    (d) => exists(d) && !isRealFolder(d),
  );
  if (bad) throw new Error(`${bad} is not a folder pi-tree made (a link?); nothing was removed`);
  // (the record's folder is data: only one directly in the variant's own folder is the store's key)
  const folder = join(dir, folderName(rec.project));
  await dropCheckout(agentDir, {
    folder: isRealFolder(folder) ? realpathSync.native(folder) : folder,
    sessionId: rec.id,
    project: rec.project,
    storeRoot: rec.code?.storeRoot,
    program: o.program,
    env: o.env,
  });
  removeVariantDir(agentDir, rec.project, rec.id);
  if (o.deleteSession && rec.sessionFile)
    return {
      sessionTrashed: await (o.repo ?? new SessionRepository({ agentDir }))
        .delete(rec.sessionFile)
        .catch(() => undefined),
    };
  return {};
}

/**
 * A session was deleted (moved to the trash): if it was a variant's (its header's cwd is a variant's
 * folder and its id the variant's), the variant's folder goes too. Call with the header's cwd and id,
 * read before the file went. Returns whether a variant was removed.
 */
export async function sessionDeleted(
  agentDir: string,
  header: { cwd?: unknown; id?: unknown },
  o: Pick<DiscardOptions, 'program' | 'env'> = {},
): Promise<boolean> {
  if (typeof header.cwd !== 'string' || typeof header.id !== 'string') return false;
  const rec = variantAt(agentDir, header.cwd);
  if (!rec || rec.id !== header.id) return false;
  await discardVariant(agentDir, rec, { ...o, force: true });
  return true;
}

/** Removes `<variants>/<key>/<id>/` when it is a real folder inside the variants root (links unlinked, never followed). */
function removeVariantDir(agentDir: string, project: string, id: string): void {
  const home = projectVariants(agentDir, project);
  const dir = variantDir(agentDir, project, id);
  if (!isRealFolder(variantsRoot(agentDir)) || !isRealFolder(home) || !isRealFolder(dir)) return;
  rmSync(dir, { recursive: true, force: true });
}
