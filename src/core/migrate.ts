// v1 → v2 → v3 migration, in memory, with pi 1.6.0's rules (session-manager.js migrateToCurrentVersion).
// One refinement: v1 ids are derived from the header id and line position instead of random, so that
// the ids a user sees stay the same every time an unmigrated file is opened.
import { stableEntryId } from './ids.js';
import { CURRENT_VERSION, type SessionHeader } from './types.js';

type Obj = Record<string, unknown>;

/** Mutates `entries` (header first) like pi; returns the version the file had. */
export function migrateEntries(header: SessionHeader, entries: Obj[]): number {
  // Same test as pi: `header.version ?? 1`, compared loosely.
  const version = (header.version ?? 1) as number;
  if (version >= CURRENT_VERSION) return version;
  if (version < 2) {
    header.version = 2;
    const taken = new Set<string>();
    const all: Obj[] = [header, ...entries];
    let prev: string | null = null;
    entries.forEach((e, i) => {
      const id = stableEntryId(String(header.id), i, taken);
      taken.add(id);
      e.id = id;
      e.parentId = prev;
      prev = id;
      if (e.type === 'compaction' && typeof e.firstKeptEntryIndex === 'number') {
        // The index counts the header as 0, and (as in pi) a target later in the file has no id yet.
        const target = all[e.firstKeptEntryIndex];
        if (target && target.type !== 'session') e.firstKeptEntryId = target.id;
        delete e.firstKeptEntryIndex;
      }
    });
  }
  header.version = 3;
  for (const e of entries) {
    const m = e.type === 'message' ? (e.message as Obj | undefined) : undefined;
    if (m && m.role === 'hookMessage') m.role = 'custom';
  }
  return version;
}
