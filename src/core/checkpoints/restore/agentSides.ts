// Whose content a file in the working folder holds, by the session's manifest (its lines are the
// folder's history in time order, whatever branch of the tree each came from): the agent's (a turn or a
// restore wrote it) or the user's (changed between turns, kept at a restore, given back by an undo).
// For the user's, also the agent's version it was made from: the base of a three-way merge, so the
// user's lines survive, and the reason a later restore asks before overwriting the file.
import type { AgentSide, ManifestLine, SnapshotLine } from '../store/manifestLines.js';

export interface UserTouch {
  /** between: changed outside the agent between snapshots; kept: left as the user had it by a restore; undone: given back by an undo. */
  why: 'between' | 'kept' | 'undone';
  /** The agent's version: a side the manifest names, or the path as held in that snapshot's tree. */
  base: AgentSide | { tree: string };
}

const WORDS: Record<UserTouch['why'], string> = {
  between: 'you changed it since the agent last wrote it',
  kept: 'you kept your version at a restore',
  undone: 'an undo gave your version back',
};

export const touchReason = (t: UserTouch): string => WORDS[t.why];

/** Paths the agent wrote in this line (a turn's files, a killed turn's, a restore's). */
function agentWrote(l: SnapshotLine): readonly string[] {
  const turn = l.kind === 'after' || (l.kind === 'baseline' && l.killedTurn) ? (l.changed ?? []) : [];
  return l.restored?.length ? [...turn, ...l.restored] : turn;
}

/**
 * The paths among `keys` whose content now is the user's, as of the session's latest line (changes
 * after it are the caller's to see: the file on disk against that line). One pass from the newest line
 * back, ending once every path is settled.
 */
export function userTouches(lines: readonly ManifestLine[], keys: Iterable<string>): Map<string, UserTouch> {
  const snaps = lines.filter((l): l is SnapshotLine => l.kind !== 'off');
  // 'scan': not settled yet; otherwise the user's, its agent version still to find further back.
  const state = new Map<string, 'scan' | UserTouch['why']>();
  for (const k of keys) state.set(k, 'scan');
  const out = new Map<string, UserTouch>();
  for (let i = snaps.length - 1; i >= 0 && state.size; i--) {
    const l = snaps[i];
    for (const [p, side] of Object.entries(l.user ?? {})) {
      const s = state.get(p);
      if (s === undefined) continue;
      out.set(p, { why: s !== 'scan' ? s : l.step === 'undo' ? 'undone' : 'kept', base: side });
      state.delete(p);
    }
    for (const p of agentWrote(l)) {
      const s = state.get(p);
      if (s === undefined) continue;
      if (s !== 'scan') out.set(p, { why: s, base: { tree: l.tree } });
      state.delete(p);
    }
    // Changed by the user between the line before and this one: the agent's version is further back.
    for (const p of l.between ?? []) if (state.get(p) === 'scan') state.set(p, 'between');
  }
  // Still looking at the first line: its content is the oldest known, the agent's version.
  for (const [p, s] of state) if (s !== 'scan' && snaps.length) out.set(p, { why: s, base: { tree: snaps[0].tree } });
  return out;
}

/** Whether this line looked at `key` (so its `modes` says whether the file was private then). */
function looked(l: SnapshotLine, key: string): boolean {
  return !!(
    l.changed?.includes(key) ||
    l.between?.includes(key) ||
    l.restored?.includes(key) ||
    (l.user && key in l.user)
  );
}

/**
 * The private permission bits recorded for `key` at the snapshot `at` (git keeps only 644/755): in that
 * line, or in the line before it that last looked at the file.
 */
export function recordedPerm(lines: readonly ManifestLine[], at: SnapshotLine, key: string): number | undefined {
  const own = at.modes?.[key];
  if (own !== undefined || looked(at, key)) return own;
  const snaps = lines.filter((l): l is SnapshotLine => l.kind !== 'off');
  for (let i = snaps.findIndex((l) => l.commit === at.commit && l.kind === at.kind) - 1; i >= 0; i--) {
    const m = snaps[i].modes?.[key];
    if (m !== undefined || looked(snaps[i], key) || snaps[i].kind === 'baseline') return m;
  }
  return undefined;
}
