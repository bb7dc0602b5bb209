// Paths a restore refuses or asks about, named in words before anything is written:
// - beyond a symbolic link: a folder on the way is a link now, so writing would land wherever it points
//   (git refuses such paths the same way);
// - never captured: `.git` and everything in it, files of a nested repository: snapshots never hold
//   them, so "absent at the node" would be a guess (deleting `.git/config`);
// - outside: a file outside the session's working folder, or any file when the working folder is not
//   one the user vouched for (a header `cwd` that pi's folder layout does not back): written only once
//   the user confirmed each by name.
import { lstatSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { encodeCwd, samePath } from '../../session/repository.js';
import { isOutside } from '../code/codeState.js';

function lstatOr(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/** The folder above `key` (relative, inside `cwd`) that is a symbolic link now, if one is. */
export function linkAbove(key: string, cwd: string): string | undefined {
  if (isOutside(key)) return undefined;
  const parts = key.split('/');
  for (let i = 1; i < parts.length; i++) {
    const st = lstatOr(join(cwd, ...parts.slice(0, i)));
    if (!st) return undefined; // missing from here down: nothing to follow
    if (st.isSymbolicLink()) return parts.slice(0, i).join('/');
  }
  return undefined;
}

/** Why snapshots never hold `key`, if they never do. */
export function neverCaptured(key: string, cwd: string): string | undefined {
  if (isOutside(key)) return undefined;
  const parts = key.split('/');
  if (parts.includes('.git')) return 'never captured: .git holds a repository of its own';
  for (let i = 1; i < parts.length; i++) {
    if (lstatOr(join(cwd, ...parts.slice(0, i), '.git')))
      return `never captured: ${parts.slice(0, i).join('/')}/ is a repository of its own`;
  }
  return undefined;
}

/** The reason `key` cannot be written now, checked again right before each write. */
export function refusedNow(path: string, cwd: string | undefined): string | undefined {
  if (!cwd) return undefined;
  const rel = path.startsWith(cwd + sep)
    ? path
        .slice(cwd.length + 1)
        .split(sep)
        .join('/')
    : undefined;
  if (!rel) return undefined;
  const link = linkAbove(rel, cwd);
  return link ? `${link} is a symbolic link now; ${rel} lies beyond it` : undefined;
}

/**
 * Whether pi's folder layout backs the session's working folder: the session file sits in the folder
 * pi names after that `cwd` (`<sessions>/--home-me-proj--/`). A header can say any `cwd`; its file's
 * place is where pi put it.
 */
export function layoutBacksCwd(sessionFile: string | undefined, cwd: string): boolean {
  return !!sessionFile && basename(dirname(sessionFile)) === encodeCwd(cwd);
}

/** `inner` is `outer` or inside it. */
export function within(inner: string, outer: string): boolean {
  return samePath(inner, outer) || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}
