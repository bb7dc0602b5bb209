// v1 → v2 → v3 migration, in memory, with pi 1.6.0's rules (session-manager.js migrateToCurrentVersion).
// One refinement: v1 ids are derived from the header id and line position instead of random, so that
// the ids a user sees stay the same every time an unmigrated file is opened.
import { stableEntryId } from './ids.js';
import { CURRENT_VERSION, type Diagnostic, type SessionHeader } from './types.js';

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

/** Diagnostics of lines that hold no entry pi-tree read: a rewrite from the entries would lose them. */
const UNREAD_LINES = new Set<Diagnostic['code']>([
  'malformed-json',
  'not-an-object',
  'torn-last-line',
  'line-too-long',
  'invalid-entry',
  'header-not-first',
]);

/** Why a v1/v2 file must not be rewritten as v3 (lines it cannot read would be dropped), or undefined. */
export function migrationRefusal(fileVersion: number, diagnostics: readonly Diagnostic[]): string | undefined {
  const dropped = diagnostics.filter((d) => d.line !== undefined && UNREAD_LINES.has(d.code)).map((d) => d.line!);
  if (!dropped.length) return undefined;
  const lines =
    dropped.length > 5 ? `${dropped.slice(0, 5).join(', ')} and ${dropped.length - 5} more` : dropped.join(', ');
  return `a v${fileVersion} file is rewritten in format v3 on its first change, which would drop the ${dropped.length === 1 ? 'line' : 'lines'} pi-tree cannot read (${lines}); repair ${dropped.length === 1 ? 'it' : 'them'}, or continue the session in pi`;
}
