// Where a symbolic link inside a folder leads, followed as the kernel follows it: every link on the way,
// a dangling last one too (a write through it creates its target), `..` after a link taken from the
// link's target, not from its name. A folder pi-tree makes for a variant keeps no link that leads out
// of it (src/core/variants): one would let a write in the variant land in the user's files.
import { lstatSync, readlinkSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/** Links followed before giving up (the kernel's own limit is 40). */
const MAX_HOPS = 40;

const parts = (p: string) => p.split(/[\\/]+/).filter((c) => c !== '' && c !== '.');

/**
 * Where the link at `rel` (relative to `root`, '/'-separated; the folders above it real folders inside
 * `root`) leads when that is outside `root`, in words; undefined when it stays inside.
 */
export function linkLeadsOut(root: string, rel: string): string | undefined {
  const stack = parts(rel);
  const name = stack.pop();
  if (name === undefined) return undefined;
  let pending: string[] = [name];
  let hops = 0;
  while (pending.length) {
    const c = pending.shift()!;
    if (c === '..') {
      if (!stack.length) return `it leads above the folder (${rel})`;
      stack.pop();
      continue;
    }
    const at = join(root, ...stack, c);
    let target: string | undefined;
    try {
      if (lstatSync(at).isSymbolicLink()) target = readlinkSync(at);
    } catch {
      // nothing there (yet): the rest of the way is names only
    }
    if (target === undefined) {
      stack.push(c);
      continue;
    }
    if (++hops > MAX_HOPS) return `too many links on the way (${rel})`;
    if (isAbsolute(target)) {
      const inside = relative(root, target);
      if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return `it points to ${target}`;
      stack.length = 0;
      pending = [...parts(inside), ...pending];
    } else pending = [...parts(target), ...pending];
  }
  return undefined;
}
