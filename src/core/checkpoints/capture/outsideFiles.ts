// Files a turn's calls name, as capture sees them apart from the snapshot: a file outside the working
// folder read as a side (its bytes and git's mode, held until the turn ends), and whether a path inside
// the folder by its name leads outside it through a link (then no snapshot holds what the call wrote).
import { lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { gitModeOf } from '../fileMode.js';
import { canonicalCwd } from '../store/storePaths.js';

export interface OutsideBefore {
  mode: number;
  bytes?: Buffer;
}

/**
 * An outside file's content now (bytes held until the turn ends). Mode 0: absent; -1: not captured
 * (too large, not a file, unreadable).
 */
export function readSide(abs: string, maxBytes: number): OutsideBefore {
  try {
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) return { mode: 0o120000, bytes: Buffer.from(readlinkSync(abs)) };
    if (!st.isFile() || st.size > maxBytes) return { mode: -1 };
    return { mode: gitModeOf(st), bytes: readFileSync(abs) };
  } catch (e) {
    return { mode: (e as NodeJS.ErrnoException).code === 'ENOENT' ? 0 : -1 };
  }
}

/** Whether `abs` (inside `cwd` by its name) is outside it once links are followed (itself or a folder above). */
export function leadsOutside(abs: string, cwd: string): boolean {
  let head = abs;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = join(realpathSync.native(head), ...rest.reverse());
      const rel = relative(canonicalCwd(cwd), real);
      return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
    } catch {
      const up = dirname(head);
      if (up === head) return false;
      rest.push(basename(head));
      head = up;
    }
  }
}
