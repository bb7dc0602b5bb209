// The lines of a session's checkpoint manifest (`<store>/manifests/<session>.jsonl`): which entries a
// snapshot covers, what it skipped, the files outside the folder it saw, and where capture turned off.
// Appended one line at a time; a torn last line (a pi killed mid-append) is left out when read.
import { readFileSync } from 'node:fs';

export type SnapshotKind = 'baseline' | 'before' | 'after' | 'restore';

export interface SkippedFile {
  path: string;
  why: 'size' | 'nested-repository' | 'special';
}

/** A file outside the working folder that an `edit` or `write` changed: its content (sha null: absent, mode 0; or not captured, mode -1). */
export interface ExternalFile {
  path: string;
  sha: string | null;
  mode: number;
  /** Its content before the turn's first call that named it. */
  before?: { sha: string | null; mode: number };
}

/** One line of a session's manifest. */
export interface SnapshotLine {
  v: 1;
  kind: SnapshotKind;
  /** The entries whose code this is (a turn's assistant message and its tool results share one). */
  entries: string[];
  commit: string;
  tree: string;
  at: string;
  /** Bytes the store grew by with this snapshot (its share of the retention caps). */
  bytes?: number;
  skipped?: { count: number; files: SkippedFile[] };
  external?: ExternalFile[];
  /** 'after': the paths the turn changed (its 'before' snapshot against this one). */
  changed?: string[];
  /** 'before': the paths changed since the previous snapshot, between turns (by the user, say). */
  between?: string[];
  /** 'restore': the entry whose code was restored; 'baseline': pi's leaf when the session started. */
  target?: string;
}

/** Capture turned itself off for the session (the reason is shown once in pi and once in pi-tree). */
export interface OffLine {
  v: 1;
  kind: 'off';
  at: string;
  reason: string;
}

export type ManifestLine = SnapshotLine | OffLine;

export function readManifest(file: string): ManifestLine[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: ManifestLine[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const v = JSON.parse(line) as ManifestLine;
      if (v && v.v === 1 && typeof v.kind === 'string') {
        if (v.kind === 'off' ? typeof v.reason === 'string' : Array.isArray(v.entries) && typeof v.commit === 'string' && typeof v.tree === 'string') out.push(v);
      }
    } catch {
      // a torn last line (a pi killed mid-append): the lines before it stand
    }
  }
  return out;
}
