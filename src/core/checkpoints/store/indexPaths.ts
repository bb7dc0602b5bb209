// What git's walk listed for a snapshot (store.ts writeTree), sorted: the paths update-index takes
// (files, links, and gone ones it removes), those it must drop from the index (too large or special
// now, under a folder of the agent's own, or beyond a folder that is a symbolic link now: update-index
// refuses "beyond a symbolic link" and the link itself is the change), and those skipped and named.
// Every file looked at gives its private permission bits (a 0600 secret) for the line's `modes`.
import { underPrefix } from './storeScope.js';
import { lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { privateBits } from '../fileMode.js';
import type { SkippedFile } from './manifestLines.js';
import { lstatOrUndefined } from './storeFiles.js';

export interface ListedPath {
  path: string;
  tracked: boolean;
}

export interface SortedPaths {
  update: string[];
  drop: string[];
  skipped: SkippedFile[];
  modes: Record<string, number>;
}

const dirOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');

/**
 * Whether a folder above `rel` is a symbolic link or not a folder now (then `lstat(rel)` would follow
 * the link: the path is not in the working folder's own tree). `memo` keeps each folder's answer.
 */
export function beyondLink(cwd: string, rel: string, memo: Map<string, boolean>): boolean {
  for (let d = dirOf(rel); d; d = dirOf(d)) {
    let bad = memo.get(d);
    if (bad === undefined) {
      const st = lstatOrUndefined(join(cwd, d));
      bad = !!st && !st.isDirectory();
      memo.set(d, bad);
    }
    if (bad) return true;
  }
  return false;
}

export function sortListed(
  cwd: string,
  listed: readonly ListedPath[],
  o: { maxFileBytes: number; prefixes: readonly string[] },
): SortedPaths {
  const out: SortedPaths = { update: [], drop: [], skipped: [], modes: {} };
  const seen = new Set<string>();
  const links = new Map<string, boolean>();
  for (const { path, tracked } of listed) {
    if (seen.has(path)) continue;
    seen.add(path);
    if (path.endsWith('/')) {
      out.skipped.push({ path, why: 'nested-repository' });
      continue;
    }
    if ((o.prefixes.length && underPrefix(path, o.prefixes)) || beyondLink(cwd, path, links)) {
      if (tracked) out.drop.push(path);
      continue;
    }
    let st: Stats;
    try {
      st = lstatSync(join(cwd, path));
    } catch {
      out.update.push(path); // gone: --remove takes it out
      continue;
    }
    if (st.isDirectory()) {
      if (tracked) out.drop.push(path); // a file or link that is a folder now: its files are listed on their own
      continue;
    }
    if (st.isSymbolicLink() || (st.isFile() && st.size <= o.maxFileBytes)) {
      out.update.push(path);
      const bits = st.isFile() ? privateBits(st) : undefined;
      if (bits !== undefined) out.modes[path] = bits;
    } else {
      out.skipped.push({ path, why: st.isFile() ? 'size' : 'special' });
      if (tracked) out.drop.push(path);
    }
  }
  return out;
}

/** The FIFOs, sockets and devices among `paths` (git's walk never lists them: named here). */
export function specialsAmong(cwd: string, paths: readonly string[], seen: ReadonlySet<string>): SkippedFile[] {
  const out: SkippedFile[] = [];
  for (const p of paths) {
    if (seen.has(p)) continue;
    const st = lstatOrUndefined(join(cwd, p));
    if (st && !st.isFile() && !st.isDirectory() && !st.isSymbolicLink()) out.push({ path: p, why: 'special' });
  }
  return out;
}
