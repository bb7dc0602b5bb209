// The lines of a session's checkpoint manifest (`<store>/manifests/<session>.jsonl`): which entries a
// snapshot covers, what it skipped, the files outside the folder it saw, and where capture turned off.
// Appended one line at a time; a torn last line (a pi killed mid-append) is left out when read.
import { readFileSync } from 'node:fs';

export type SnapshotKind = 'baseline' | 'before' | 'after' | 'restore';

export interface SkippedFile {
  path: string;
  /**
   * size: larger than the limit; nested-repository: a folder holding its own .git (path ends in '/');
   * special: a FIFO, socket or device; name-not-utf8: a name git would list but pi-tree cannot hold as
   * text; link-outside: an edit or write went through a link in the folder to a file outside it;
   * beyond-link: a path under a folder that is a symbolic link now. A folder checked out for a
   * variant (restore/codeCheckout.ts) also leaves out: not-known, a file whose content at the entry is
   * not known; link-leads-out, a link whose target lies outside the folder; bad-name, a name that
   * would lead out of the folder or into a repository's .git.
   */
  why:
    | 'size'
    | 'nested-repository'
    | 'special'
    | 'name-not-utf8'
    | 'link-outside'
    | 'beyond-link'
    | 'not-known'
    | 'link-leads-out'
    | 'bad-name';
}

/** A file's side as the agent left it (sha null: absent). */
export interface AgentSide {
  sha: string | null;
  mode: number;
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
  /**
   * 'after': the paths the turn changed (its 'before' snapshot against this one). 'baseline' with
   * `killedTurn`: the paths changed since a turn's 'before' snapshot that never got its 'after' (pi was
   * killed mid-turn): the agent's, not the user's.
   */
  changed?: string[];
  /**
   * The paths changed since the session's previous snapshot by someone other than the agent (the user,
   * between turns): on 'before' lines, on 'baseline' lines (changes made while no pi ran the session),
   * and on 'restore' lines (changes the restore did not write).
   */
  between?: string[];
  /**
   * 'before': paths another session of the project (a fork, a second pi) changed by a turn or a restore
   * since this session's previous line: that agent's, restorable, never the user's.
   */
  elsewhere?: string[];
  /** 'restore': the entry whose code the folder now holds; 'baseline': pi's leaf when the session started. */
  target?: string;
  /** 'baseline': the session's previous snapshot was a 'before' with no 'after' (see `changed`). */
  killedTurn?: true;
  /**
   * Permission bits of files this snapshot looked at that no one but their owner may read (a 0600
   * secret): git keeps only 644/755, and a restore that recreates such a file gives it these bits.
   */
  modes?: Record<string, number>;
  /** 'restore': the paths the restore (or undo, redo) wrote with the agent's content at `target`. */
  restored?: string[];
  /**
   * 'restore': the paths where the folder holds the user's content after it (kept, merged, or changed
   * back by an undo), each with the agent's side at `target`: the base of a later merge, and a conflict
   * the next time a restore would overwrite it.
   */
  user?: Record<string, AgentSide>;
  /**
   * 'restore': the paths in the restore's (or redo's) plan it could not write (their content at `target`
   * not known, or a folder on the way a link now): not at `target` after it, and not the agent's there.
   * A later plan looks at them again, whatever its route.
   */
  unrestored?: string[];
  /** 'restore': the journal this line records (a restore, or its undo / redo: `step`). */
  journal?: string;
  step?: 'restore' | 'undo' | 'redo';
}

/** Capture turned itself off for the session (the reason is shown once in pi and once in pi-tree). */
export interface OffLine {
  v: 1;
  kind: 'off';
  at: string;
  reason: string;
  /** Off by a rule of the folder (home, a root, too many files), not by a failure. */
  rule?: true;
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
        if (
          v.kind === 'off'
            ? typeof v.reason === 'string'
            : Array.isArray(v.entries) && typeof v.commit === 'string' && typeof v.tree === 'string'
        )
          out.push(v);
      }
    } catch {
      // a torn last line (a pi killed mid-append): the lines before it stand
    }
  }
  return out;
}
