// The "hidden" mark for dead-end branches: pi-tree's own note, per session (by its header id), kept in
// the workspace state. It hides a branch from the tree's default view and changes nothing in pi's file.
import type { WorkspaceState } from '../platform/workspaceState.js';

/** Marks kept per session, and sessions with marks (the least recently changed go first). */
const MAX_IDS = 5000;
const MAX_SESSIONS = 500;

type Stored = [sessionId: string, entryIds: string[]][];

export class HiddenMarks {
  constructor(private readonly state: WorkspaceState) {}

  /** Pairs in the order they were last changed (a list, not an object: a session id is any string). */
  private all(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const pair of this.state.get('hiddenBranches', [])) {
      if (Array.isArray(pair) && typeof pair[0] === 'string' && Array.isArray(pair[1]))
        out.set(
          pair[0],
          pair[1].filter((x: unknown): x is string => typeof x === 'string'),
        );
    }
    return out;
  }

  get(sessionId: string): string[] {
    return this.all().get(sessionId) ?? [];
  }

  async set(sessionId: string, entryId: string, hidden: boolean): Promise<string[]> {
    const all = this.all();
    const cur = new Set(all.get(sessionId) ?? []);
    if (hidden) cur.add(entryId);
    else cur.delete(entryId);
    all.delete(sessionId);
    if (cur.size) all.set(sessionId, [...cur].slice(-MAX_IDS));
    const stored: Stored = [...all].slice(-MAX_SESSIONS);
    await this.state.update('hiddenBranches', stored);
    return this.get(sessionId);
  }
}
