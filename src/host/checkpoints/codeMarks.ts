// Which entries of an open tree have a checkpoint (a mark on their node), and whether capture turned
// itself off for the session or stays off in its folder (the home folder, a drive's root, pi's own
// folder: captureScope.ts), said once, in a notification. Recomputed a moment after the session
// changes (pi's capture writes its line just after the turn's entries) and when the manifest changes.
import { watch, type FSWatcher } from 'node:fs';
import * as vscode from 'vscode';
import { SessionCheckpoints } from '../../core/checkpoints/index.js';
import { captureBlocked } from '../../core/checkpoints/index.js';
import { captureEnabled, projectStore, readCheckpointSettings } from '../../core/checkpoints/index.js';
import type { Session } from '../../core/session/session.js';

export interface CodeMarksOptions {
  agentDir(): string;
  send(ids: string[], off: string | undefined): void;
}

/** Sessions whose "capture is off" was already said (once per session per window). */
const toldOff = new Set<string>();

export class CodeMarks implements vscode.Disposable {
  private timer: NodeJS.Timeout | undefined;
  private watcher: FSWatcher | undefined;
  private last = '';

  constructor(
    private readonly session: Session,
    private readonly o: CodeMarksOptions,
  ) {
    this.watchDir();
  }

  /** Recompute soon (debounced); `force` sends even when nothing changed (a fresh snapshot in the webview). */
  schedule(delayMs = 400, force = false): void {
    if (force) this.last = '';
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.compute(), delayMs);
    this.timer.unref?.();
  }

  private compute(): void {
    let cps: SessionCheckpoints;
    try {
      cps = SessionCheckpoints.load(this.session, this.o.agentDir());
    } catch {
      return;
    }
    if (!this.watcher) this.watchDir();
    const ids = [...cps.byEntry.keys()].filter((id) => this.session.index.get(id));
    const turnedOff = cps.offReason();
    const blocked = turnedOff ? undefined : this.blocked();
    const off = turnedOff ?? blocked;
    const key = `${ids.length}:${ids[ids.length - 1] ?? ''}:${off ?? ''}`;
    if (key === this.last) return;
    this.last = key;
    this.o.send(ids, off);
    // (a folder's reason is said once for all its sessions)
    const told = blocked ? `cwd:${String(this.session.header.cwd ?? '')}` : String(this.session.header.id ?? '');
    if (off && !toldOff.has(told)) {
      toldOff.add(told);
      const what =
        blocked || cps.offByRule()
          ? `checkpoints are off in this session's folder: ${off}`
          : `checkpoints turned themselves off for this session: ${off}`;
      void vscode.window.showWarningMessage(
        `pi-tree: ${what}. Moves still work; the code of later turns is known only from the session's record.`,
      );
    }
  }

  /** Why the bridge will not capture the session's folder though capture is on (captureScope.ts). */
  private blocked(): string | undefined {
    const cwd = String(this.session.header.cwd ?? '');
    if (!cwd) return undefined;
    try {
      const settings = readCheckpointSettings(this.o.agentDir());
      return captureEnabled(settings, cwd) ? captureBlocked(settings, cwd, { agentDir: this.o.agentDir() }) : undefined;
    } catch {
      return undefined;
    }
  }

  private watchDir(): void {
    const cwd = String(this.session.header.cwd ?? '');
    if (!cwd) return;
    try {
      this.watcher = watch(projectStore(this.o.agentDir(), cwd).sessionsDir, () => this.schedule());
      this.watcher.on('error', () => undefined);
    } catch {
      // no store yet: the next compute tries again
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
  }
}
