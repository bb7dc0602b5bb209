// pi-tree's bridge: a pi extension (pi 1.6.0's extension API) that lets pi-tree drive the pi it runs
// in. Load it with `pi -e dist/pi-bridge.js`, or install it for every session. It registers
// `/tree-bridge` (also for people in pi's TUI) and, per session, a private socket announced in a
// discovery record (see live.ts). Nothing long-lived starts here in the factory: pi may load extensions
// in runs that never start a session.
import type { ExtensionAPI, ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import { BRIDGE_COMMAND, type BridgeRequest } from '../core/piClient/protocol.js';
import { LiveBridge, pendingRuns } from './live.js';
import { mutate } from './ops.js';
import { parseHumanCommand, USAGE } from './human.js';
import { captureFor, wireCheckpoints } from './checkpoints.js';
import { wireVariantGuard } from './variantGuard.js';

export default function piTreeBridge(pi: ExtensionAPI): void {
  let live: LiveBridge | undefined;

  pi.registerCommand(BRIDGE_COMMAND, {
    description: 'pi-tree bridge: goto, fork, clone, label, name, compact (and status)',
    handler: async (args: string, ctx: ExtensionCommandContext) => {
      const [sub, rest] = splitFirst(args.trim());
      if (sub === 'run') {
        // A request from pi-tree's socket, dispatched through this command for its command context.
        const run = pendingRuns().get(rest);
        if (!run) {
          ctx.ui.notify('pi-tree bridge: that request is unknown or expired', 'warning');
          return;
        }
        pendingRuns().delete(rest);
        await run(ctx);
        return;
      }
      if (!sub || sub === 'status') {
        ctx.ui.notify(
          `${
            live
              ? `pi-tree bridge: listening for this session (pid ${process.pid})`
              : 'pi-tree bridge: not listening (no saved session)'
          }; ${checkpointsStatus(ctx)}`,
          'info',
        );
        return;
      }
      if (!live) {
        ctx.ui.notify('pi-tree bridge: not active for this session', 'warning');
        return;
      }
      const parsed = parseHumanCommand(sub, rest);
      if ('error' in parsed) {
        ctx.ui.notify(`${parsed.error}\n${USAGE}`, 'warning');
        return;
      }
      try {
        const data = await mutate(live, { id: 'tui', token: '', ...parsed } as BridgeRequest, ctx);
        ctx.ui.notify(`pi-tree bridge: ${sub} done ${JSON.stringify(data)}`, 'info');
      } catch (e) {
        ctx.ui.notify(`pi-tree bridge: ${sub} failed: ${e instanceof Error ? e.message : String(e)}`, 'error');
      }
    },
  });

  pi.on('session_start', async (_e, ctx) => {
    try {
      live = await LiveBridge.start(pi, ctx);
    } catch (e) {
      live = undefined;
      if (ctx.hasUI)
        ctx.ui.notify(`pi-tree bridge could not start: ${e instanceof Error ? e.message : String(e)}`, 'error');
    }
  });
  pi.on('session_shutdown', async (e) => {
    live?.shutdown(e);
    live = undefined;
  });
  pi.on('session_before_tree', async (e) => live?.beforeTree(e));
  pi.on('session_tree', async (e) => live?.afterTree(e));
  const refresh = async () => live?.refresh();
  pi.on('agent_start', async () => {
    live?.asks.onAgentStart();
    live?.refresh();
  });
  pi.on('agent_settled', async (e) => {
    live?.refresh();
    live?.asks.onSettled(e);
  });
  // An asked turn's progress (askTurn.ts): nothing is pushed for turns pi-tree did not ask.
  pi.on('message_update', async (e) => live?.asks.onMessageUpdate(e));
  pi.on('tool_execution_start', async (e) => live?.asks.onTool(e));
  pi.on('tool_execution_end', async (e) => live?.asks.onTool(e));
  pi.on('message_end', refresh);
  pi.on('turn_end', refresh);
  pi.on('session_before_compact', refresh);
  pi.on('session_compact', refresh);
  pi.on('session_compact_failed', refresh);
  pi.on('session_info_changed', refresh);
  // (before capture: a call the guard blocks takes no snapshot)
  wireVariantGuard(pi);
  wireCheckpoints(pi);
}

/** Whether this session's checkpoints are taken, in words (once pi's one message about it has gone). */
function checkpointsStatus(ctx: ExtensionCommandContext): string {
  const file = ctx.sessionManager.getSessionFile();
  const capture = file ? captureFor(file) : undefined;
  if (!capture) return 'no checkpoints are taken for this session';
  return capture.off ?? 'checkpoints are taken at every turn';
}

function splitFirst(s: string): [string, string] {
  const i = s.search(/\s/);
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i).trim()];
}
