// git's rules for a file's mode, in one place: a regular file is executable (100755) when its owner may
// execute it (`st_mode & S_IXUSR`, git's ce_permissions), else 100644; a symbolic link is 120000.
import type { Stats } from 'node:fs';

export const LINK_MODE = 0o120000;
export const EXEC_MODE = 0o100755;
export const FILE_MODE = 0o100644;

/** git's mode of a regular file or link from its lstat. */
export function gitModeOf(st: Pick<Stats, 'mode' | 'isSymbolicLink'>): number {
  if (st.isSymbolicLink()) return LINK_MODE;
  return st.mode & 0o100 ? EXEC_MODE : FILE_MODE;
}

/** Permission bits worth keeping beside git's mode: a file no one but its owner may read (0600, 0700). */
export function privateBits(st: Pick<Stats, 'mode'>): number | undefined {
  const perm = st.mode & 0o777;
  return perm & 0o044 ? undefined : perm;
}
