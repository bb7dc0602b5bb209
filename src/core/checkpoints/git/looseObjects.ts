// The two small writes of every snapshot done in-process instead of by a git process each: the commit
// object (what `git commit-tree` writes: a loose object, zlib-deflated, named by its SHA-1) and the ref
// that keeps it (what `git update-ref` does in the files backend: `<ref>.lock` created exclusively, then
// renamed over the ref). The store is pi-tree's own repository (SHA-1, files backend, no hooks, no
// reflog: bare), so these are git's formats exactly; a tool call waits for two processes fewer.
import { isObjectId } from './gitOutput.js';
import { createHash } from 'node:crypto';
import { linkSync, mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { deflateSync } from 'node:zlib';

/** pi-tree's author and committer line (gitRun.ts gives git processes the same). */
const IDENT = 'pi-tree <pi-tree@localhost>';

/** The text of a commit of `tree` (no parent) at `when`, as `git commit-tree tree -m message` writes it. */
export function commitText(tree: string, message: string, when: Date): string {
  const stamp = `${Math.floor(when.getTime() / 1000)} +0000`;
  message = message.replace(/\0/g, ' ');
  return `tree ${tree}\nauthor ${IDENT} ${stamp}\ncommitter ${IDENT} ${stamp}\n\n${message.endsWith('\n') ? message : `${message}\n`}`;
}

/** Where the loose object `sha` lives (or would) in `gitDir`; undefined when `sha` is not an object id. */
export function looseObjectPath(gitDir: string, sha: string): string | undefined {
  return isObjectId(sha) ? join(gitDir, 'objects', sha.slice(0, 2), sha.slice(2)) : undefined;
}

/**
 * Writes a loose object of `type` into `gitDir` and gives its id. One already there is freshened
 * instead (its time set to now, as git does), so that a collect running meanwhile, which prunes only
 * what is older than a grace, keeps it for the snapshot that uses it.
 */
export function writeLooseObject(
  gitDir: string,
  type: 'commit' | 'tree' | 'blob',
  body: Buffer,
  level?: number,
): string {
  const raw = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
  const sha = createHash('sha1').update(raw).digest('hex');
  const file = looseObjectPath(gitDir, sha)!;
  if (freshen(file)) return sha;
  mkdirSync(dirname(file), { recursive: true });
  // As git does: a temp file beside it, then a hard link to the name (never replacing one that another
  // writer put there meanwhile: same name, same bytes), then the temp goes.
  const tmp = join(dirname(file), `tmp_obj_${process.pid}_${Math.random().toString(36).slice(2)}`);
  writeFileSync(tmp, deflateSync(raw, level === undefined ? {} : { level }), { mode: 0o444, flag: 'wx' });
  try {
    linkSync(tmp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
  return sha;
}

/** True when `file` exists (its times set to now); false when it is not there (gone meanwhile, say). */
function freshen(file: string): boolean {
  try {
    const now = new Date();
    utimesSync(file, now, now);
    return true;
  } catch {
    return false;
  }
}

/** A ref name this module writes itself; anything else goes through `git update-ref`, which checks it. */
export function plainRefName(ref: string): boolean {
  return (
    /^refs\/(?:[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}\/)*[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/.test(ref) &&
    !/\.\.|\.lock(?:\/|$)|\.\/|\.$/.test(ref)
  );
}

/**
 * Points `ref` at `sha` as `git update-ref` does in the files backend. Returns false (nothing written)
 * when it cannot take the lock or the name is not a plain one: the caller runs git then.
 */
export function writeLooseRef(gitDir: string, ref: string, sha: string): boolean {
  if (!plainRefName(ref) || !looseObjectPath(gitDir, sha)) return false;
  const file = join(gitDir, ref);
  const lock = `${file}.lock`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(lock, `${sha}\n`, { flag: 'wx' });
  } catch {
    return false; // another writer holds it, or a folder/file clash: git says what is wrong
  }
  try {
    renameSync(lock, file);
    return true;
  } catch {
    rmSync(lock, { force: true });
    return false;
  }
}
