// Checkpoint capture wired to pi's events (ARCHITECTURE.md, Checkpoints): `tool_call` before a call that may
// change files, `turn_end` after the turn's entries are written. One Capture per session (a session
// switch starts another); a second loaded copy of the bridge stays out. Nothing here may throw into pi:
// a `tool_call` handler that throws makes pi skip the call.
import type { ExtensionAPI, ExtensionContext } from '@earendil-works/pi-coding-agent';
import { Capture } from '../core/checkpoints/index.js';
import { readCheckpointSettings } from '../core/checkpoints/index.js';
import { dirname } from 'node:path';
import { agentDirOf, recordDirOf } from '../core/piClient/paths.js';

const CAPTURING = Symbol.for('pi-tree.checkpoints.capturing');
/** Session files whose capture runs in this process (shared by every loaded copy of the bridge). */
function capturing(): Set<string> {
  const g = globalThis as unknown as Record<symbol, Set<string> | undefined>;
  return (g[CAPTURING] ??= new Set());
}

const BY_FILE = Symbol.for('pi-tree.checkpoints.byFile');
/** The running capture of a session file (a restore through pi runs in its queue). */
export function captureFor(file: string): Capture | undefined {
  const g = globalThis as unknown as Record<symbol, Map<string, Capture> | undefined>;
  return g[BY_FILE]?.get(file);
}
function captures(): Map<string, Capture> {
  const g = globalThis as unknown as Record<symbol, Map<string, Capture> | undefined>;
  return (g[BY_FILE] ??= new Map());
}

export function wireCheckpoints(pi: ExtensionAPI): void {
  let capture: Capture | undefined;
  let file: string | undefined;

  const stop = async () => {
    const c = capture;
    capture = undefined;
    if (file) {
      capturing().delete(file);
      captures().delete(file);
    }
    file = undefined;
    await c?.close();
  };

  pi.on('session_start', async (_e, ctx) => {
    await stop();
    try {
      const sessionFile = ctx.sessionManager.getSessionFile();
      if (!sessionFile || capturing().has(sessionFile)) return;
      const agentDir = agentDirOf(process.env);
      capture = new Capture({
        agentDir,
        cwd: ctx.sessionManager.getCwd(),
        sessionId: ctx.sessionManager.getSessionId(),
        settings: readCheckpointSettings(agentDir),
        notify: (m) => notify(ctx, m),
        // pi's own files besides its agent dir, never captured even inside the working folder
        privateDirs: [sessionDirOf(ctx), dirname(sessionFile), recordDirOf(process.env)].filter(
          (d): d is string => !!d,
        ),
      });
      file = sessionFile;
      capturing().add(sessionFile);
      captures().set(sessionFile, capture);
      capture.start(ctx.sessionManager.getLeafId() ?? null);
    } catch (e) {
      capture = undefined;
      notify(ctx, `pi-tree: checkpoints could not start: ${e instanceof Error ? e.message : String(e)}`);
    }
  });

  pi.on('tool_call', async (e, ctx) => {
    const c = capture;
    if (!c) return;
    let assistant: { id: string; parentId: string | null } | undefined;
    try {
      const leaf = ctx.sessionManager.getLeafEntry();
      if (leaf) assistant = { id: leaf.id, parentId: leaf.parentId };
    } catch {
      // no leaf: the snapshot is keyed by nothing
    }
    await c.beforeTool(e.toolName, e.input, assistant);
  });

  pi.on('turn_end', async (e) => {
    void capture?.turnEnd(e.messageEntryId, e.toolResultEntryIds ?? []);
  });

  // A turn that ended without turn_end (aborted mid-call): its state is taken under the current leaf.
  const settle = async (_e: unknown, ctx: ExtensionContext) => {
    if (!capture) return;
    let leaf: string | undefined;
    try {
      leaf = ctx.sessionManager.getLeafId() ?? undefined;
    } catch {
      leaf = undefined;
    }
    void capture.turnEnd(leaf, []);
  };
  pi.on('turn_start', settle);
  pi.on('agent_end', async (e, ctx) => {
    await settle(e, ctx);
    // pi waits for the user now: the watcher's lists are checked against a whole walk
    capture?.idle();
  });

  pi.on('session_shutdown', async () => {
    await stop();
  });
}

/** pi's session folder (its `sessionDir` setting, or the default one under the agent dir). */
function sessionDirOf(ctx: ExtensionContext): string | undefined {
  try {
    return ctx.sessionManager.getSessionDir() || undefined;
  } catch {
    return undefined;
  }
}

export function notify(ctx: ExtensionContext, message: string): void {
  try {
    if (ctx.hasUI) ctx.ui.notify(message, 'warning');
    else process.stderr.write(`${message}\n`);
  } catch {
    // nowhere to say it: the manifest's 'off' line does
  }
}
