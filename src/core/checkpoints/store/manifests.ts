// The checkpoints a session has, as pi-tree reads them: its own manifest, then those of the sessions it
// was forked from (a fork's copied entries keep their ids, and their snapshots were taken in the
// original session). The latest line for an entry wins. Reading never creates a store.
import { dirname } from 'node:path';
import type { Session } from '../../session/session.js';
import { readHeader } from '../../index/sessionHeader.js';
import type { ExternalFile, ManifestLine, SnapshotLine } from './manifestLines.js';
import { CheckpointStore } from './store.js';
import { projectStore, readCheckpointSettings, safeSessionId, type CheckpointSettings } from './storePaths.js';
import { readManifest } from './manifestLines.js';
import { join } from 'node:path';

export interface EntrySnapshot extends SnapshotLine {
  /** The session whose manifest holds it. */
  sessionId: string;
  /** For a 'before' line: outside files as they were then (from the turn's 'after' line). */
  outsideBefore?: ExternalFile[];
}

export class SessionCheckpoints {
  private constructor(
    readonly store: CheckpointStore | undefined,
    readonly sessionId: string,
    /** Entry id → its snapshot (the latest line naming it), over the session and its ancestors. */
    readonly byEntry: Map<string, EntrySnapshot>,
    /** This session's own lines, in order. */
    readonly lines: ManifestLine[],
    /** Why capture was off, said in a manifest with no store beside it (a folder too large to capture). */
    private readonly offWithoutStore?: string,
  ) {}

  /** The checkpoints of `session` (none when it has no store or no manifest). */
  static load(
    session: Session,
    agentDir: string,
    opts: { settings?: CheckpointSettings; program?: string; env?: NodeJS.ProcessEnv } = {},
  ): SessionCheckpoints {
    const sessionId = String(session.header.id ?? '');
    const cwd = String(session.header.cwd ?? '');
    const settings = opts.settings ?? readCheckpointSettings(agentDir);
    // (the session's own folder is pi's, never the project's, wherever it lies: as the bridge tells its capture)
    const privateDirs = session.path ? [dirname(session.path)] : [];
    const store =
      cwd && sessionId
        ? CheckpointStore.existing(agentDir, cwd, settings, { program: opts.program, env: opts.env, privateDirs })
        : undefined;
    const byEntry = new Map<string, EntrySnapshot>();
    let own: ManifestLine[] = [];
    if (store) {
      // Ancestors first, so the session's own lines win for shared ids.
      const chain: string[] = [sessionId];
      let parent = typeof session.header.parentSession === 'string' ? session.header.parentSession : undefined;
      for (let depth = 0; parent && depth < 16; depth++) {
        const h = readHeader(parent);
        if (!h?.id || chain.includes(h.id) || h.cwd !== cwd) break;
        chain.push(h.id);
        parent = h.parentSession;
      }
      for (const id of chain.reverse()) {
        let lines: ManifestLine[];
        try {
          lines = store.manifest(id);
        } catch {
          continue;
        }
        if (id === sessionId) own = lines;
        indexLines(lines, id, byEntry);
      }
    } else if (cwd && sessionId) {
      let off: ManifestLine | undefined;
      try {
        off = readManifest(join(projectStore(agentDir, cwd).sessionsDir, `${safeSessionId(sessionId)}.jsonl`)).findLast(
          (l) => l.kind === 'off',
        );
      } catch {
        // not a session id pi-tree stores anything for
      }
      return new SessionCheckpoints(undefined, sessionId, byEntry, [], off?.kind === 'off' ? off.reason : undefined);
    }
    return new SessionCheckpoints(store, sessionId, byEntry, own);
  }

  /** The latest snapshot of this session (what the working folder should hold but for the user's edits). */
  latest(): (SnapshotLine & { sessionId: string }) | undefined {
    for (let i = this.lines.length - 1; i >= 0; i--) {
      const l = this.lines[i];
      if (l.kind !== 'off') return { ...l, sessionId: this.sessionId };
    }
    return undefined;
  }

  /** Whether capture is off by a rule of the folder (home, a root, too many files) rather than by a failure. */
  offByRule(): boolean {
    const off = this.lines.findLast((l) => l.kind === 'off');
    return off ? off.kind === 'off' && off.rule === true : this.offWithoutStore !== undefined;
  }

  /** Why capture is off for this session, if it turned itself off (and did not start again since). */
  offReason(): string | undefined {
    const at = this.lines.findLastIndex((l) => l.kind === 'off');
    if (at < 0) return this.offWithoutStore;
    const off = this.lines[at];
    // a later run of the session captured again (a 'restore' line alone does not say so)
    if (this.lines.slice(at + 1).some((l) => l.kind === 'baseline')) return undefined;
    return off.kind === 'off' ? off.reason : undefined;
  }
}

function indexLines(lines: readonly ManifestLine[], sessionId: string, byEntry: Map<string, EntrySnapshot>): void {
  let lastBefore: EntrySnapshot | undefined;
  for (const l of lines) {
    if (l.kind === 'off') continue;
    const snap: EntrySnapshot = { ...l, sessionId };
    if (l.kind === 'before') lastBefore = snap;
    if (l.kind === 'after' && l.external?.length && lastBefore) {
      lastBefore.outsideBefore = l.external.map((x) => ({
        path: x.path,
        sha: x.before?.sha ?? null,
        mode: x.before?.mode ?? -1,
      }));
    }
    for (const id of l.entries) byEntry.set(id, snap);
  }
}
