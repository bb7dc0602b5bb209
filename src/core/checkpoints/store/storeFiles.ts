// Small file helpers of the checkpoint store (store.ts): a file written only when its text changes, an
// index file's stamp, a file's size, a path's lstat, git's line lists.
import { copyFileSync, lstatSync, readFileSync, statSync, utimesSync, writeFileSync, type Stats } from 'node:fs';

export function writeIfChanged(file: string, text: string): void {
  try {
    if (readFileSync(file, 'utf8') === text) return;
  } catch {
    // not there yet
  }
  writeFileSync(file, text, { mode: 0o600 });
}

/** An index file's identity and state: inode, size and change time (a rewrite by git renames a new file in). */
export function stampOf(file: string): string {
  try {
    const st = statSync(file, { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return 'absent';
  }
}

/** A file's size, or undefined when it cannot be read (absent: the object is packed). */
export function sizeOf(file: string): number | undefined {
  try {
    return statSync(file).size;
  } catch {
    return undefined;
  }
}

/**
 * Copies an index file keeping its time (to the second, rounded down). git trusts an entry whose stat
 * matches the file (to the second) unless the entry is as new as the index file itself ("racily
 * clean"): then it reads the content. A copy with a new time would turn a file changed in the second
 * its index was written, with its size kept, into a clean one. (A snapshot taken from the watcher's
 * list leaves the index as it was, so such entries are common.)
 */
export function copyIndex(from: string, to: string): void {
  const st = statSync(from);
  copyFileSync(from, to);
  const sec = Math.floor(st.mtimeMs / 1000);
  utimesSync(to, sec, sec);
}

/** A path's lstat, or undefined when there is nothing there (or it cannot be read). */
export function lstatOrUndefined(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}
