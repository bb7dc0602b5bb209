// A variant's pi never writes into the user's folder (core/variants/variantGuard.ts): when the session's
// working folder is a variant's, each tool call is asked about first and one that would write into the
// project's folder is blocked, with the reason pi hands the model. Registered before capture, so a
// blocked call takes no snapshot. Nothing here throws into pi (a throwing handler makes pi skip the call).
import type { ExtensionAPI } from '@earendil-works/pi-coding-agent';
import { agentDirOf } from '../core/piClient/paths.js';
import { variantGuard, type VariantGuard } from '../core/variants/index.js';

export function wireVariantGuard(pi: ExtensionAPI): void {
  let guard: VariantGuard | undefined;
  pi.on('session_start', async (_e, ctx) => {
    try {
      guard = variantGuard(agentDirOf(process.env), ctx.sessionManager.getCwd());
    } catch {
      guard = undefined;
    }
  });
  pi.on('tool_call', async (e) => {
    let why: string | undefined;
    try {
      why = guard?.(e.toolName, e.input);
    } catch {
      why = undefined;
    }
    return why ? { block: true, reason: `pi-tree: ${why}` } : undefined;
  });
  pi.on('session_shutdown', async () => {
    guard = undefined;
  });
}
