// What the store never holds: pi's own folders under the working folder (its agent dir, with pi-tree's
// store and the restore journals, and its session folders). Snapshots, the folder watcher and restores
// all keep out of them, wherever they lie.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { canonicalCwd } from './storePaths.js';

/** A path's canonical form: its nearest existing ancestor's real path with the rest appended. */
export function canonicalPath(p: string): string {
  let head = resolve(p);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync.native(head), ...rest.reverse());
    } catch {
      const up = dirname(head);
      if (up === head) return resolve(p);
      rest.push(basename(head));
      head = up;
    }
  }
}

/** `inner` relative to `outer` with '/' separators, '' when the same, undefined when not inside. */
export function inside(outer: string, inner: string): string | undefined {
  const rel = relative(outer, inner);
  if (rel === '') return '';
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

/**
 * The folders under `cwd` (relative, '/'-separated, no trailing slash) that are the agent's own: pi's
 * agent dir `agentDir` (pi-tree's store, the restore journals and pi's default session folders are in
 * it) and `extra` (pi's session folder when set elsewhere, the bridge's records). Nothing under them is
 * captured, watched or restored. Empty when none lies inside `cwd`.
 */
export function privatePrefixes(agentDir: string, cwd: string, extra: readonly string[] = []): string[] {
  const real = canonicalCwd(cwd);
  const out = new Set<string>();
  for (const d of [agentDir, ...extra]) {
    if (!d) continue;
    for (const form of new Set([canonicalPath(d), resolve(d)])) {
      const rel = inside(real, form);
      if (rel) out.add(rel);
    }
  }
  const list = [...out].sort();
  return list.filter((p) => !list.some((q) => q !== p && p.startsWith(`${q}/`)));
}

/** Whether the relative path `rel` is one of `prefixes` or under one. */
export function underPrefix(rel: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => rel === p || rel.startsWith(`${p}/`));
}

/** info/exclude lines that keep `prefixes` out of git's walk: anchored at the folder, special characters escaped. */
export function excludeLines(prefixes: readonly string[]): string[] {
  return prefixes.map((p) => `/${p.replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`)}/`);
}
