// Folders only this user can enter: where bridges announce themselves, the checkpoint store, restore
// journals. Only Node built-ins: bundled into the pi extension as well.
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';

/**
 * Makes `dir` (and its parents) exist as a directory only this user can enter: created 0700; an
 * existing one must be ours and not a symlink, and loses group/other bits. Throws otherwise.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid())
    throw new Error(`${dir} belongs to another user`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** True when `dir` is a directory of ours that no other user can enter (records elsewhere are ignored). */
export function isPrivateDir(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory()) return false;
    if (process.platform === 'win32') return true;
    return (typeof process.getuid !== 'function' || st.uid === process.getuid()) && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}
