// "Try Variants from Here" made once at activation: the VariantsService over the core, the variants
// views, and the one entry the tree's request, the node menu and the palette all call.
import * as vscode from 'vscode';
import { connectStatus } from '../../core/piClient/piConnect.js';
import { canonicalCwd, within } from '../../core/checkpoints/index.js';
import { CHECK_TIMEOUT_MS, DEFAULT_JOBS, MAX_CHECK_TIMEOUT_MS, MAX_JOBS } from '../../core/variants/index.js';
import type { Session } from '../../core/session/session.js';
import type { CodeRestore } from '../checkpoints/codeRestore.js';
import type { SessionActions } from '../panels/sessionActions.js';
import { showError } from '../platform/log.js';
import { WorkspaceState } from '../platform/workspaceState.js';
import type { AskService } from './askService.js';
import { createVariantsService, type VariantsCore } from './piVariantsService.js';
import { tryVariantsFrom } from './variantsFlow.js';
import { VariantsPanels } from './variantsPanel.js';

export interface VariantsHostDeps {
  core: VariantsCore;
  piCommand(): string;
  agentDir(): string;
  ask: AskService;
  code: CodeRestore;
  /** pi-tree's bridge, loaded into each variant's pi (its checkpoints, its writes kept in its folder). */
  bridgeFile: string;
  openTree(file: string): Promise<void>;
}

/** Starts a variants run from a node of a tree; false when the user cancelled a question. */
export type TryVariants = (
  t: { session: Session; file: string; actions: Pick<SessionActions, 'need' | 'checkWritable'> },
  id: string,
  prompt?: string,
) => Promise<boolean>;

export function createVariants(context: vscode.ExtensionContext, deps: VariantsHostDeps): TryVariants {
  const folders = () => (vscode.workspace.workspaceFolders ?? []).map((f) => canonicalCwd(f.uri.fsPath));
  const variants = createVariantsService({
    core: deps.core,
    piCommand: deps.piCommand,
    agentDir: deps.agentDir,
    vouched: (cwd) => folders().some((f) => within(cwd, f)),
    jobs: () => {
      const n = vscode.workspace.getConfiguration('piTree').get<number>('variants.jobs', DEFAULT_JOBS);
      return Number.isInteger(n) ? Math.min(Math.max(n, 1), MAX_JOBS) : DEFAULT_JOBS;
    },
    checkTimeoutMs: () => {
      const s = vscode.workspace.getConfiguration('piTree').get<number>('variants.checkTimeoutSeconds');
      return typeof s === 'number' && Number.isFinite(s) && s > 0
        ? Math.min(s * 1000, MAX_CHECK_TIMEOUT_MS)
        : CHECK_TIMEOUT_MS;
    },
    // A pi connected to pi-tree loads the bridge itself; loading it twice would take two of each checkpoint.
    bridgeFile: () => {
      const c = connectStatus(deps.bridgeFile);
      return c.connected && c.listed ? undefined : deps.bridgeFile;
    },
  });
  const panels = new VariantsPanels({
    extensionUri: context.extensionUri,
    variants,
    docs: deps.code.documents,
    openTree: deps.openTree,
  });
  context.subscriptions.push(panels);
  const state = new WorkspaceState(context.workspaceState);
  return async (t, id, prompt) => {
    try {
      const started = await tryVariantsFrom(
        {
          ...t,
          ask: deps.ask,
          variants,
          lastCheck: { get: () => state.get('variantsCheck', ''), set: (v) => state.update('variantsCheck', v) },
          describe: (entryId) => deps.code.describe(t.session, entryId),
          show: (s) => void panels.show(s),
        },
        id,
        prompt,
      );
      return !!started;
    } catch (e) {
      void showError('pi-tree: Try variants failed', e);
      throw e;
    }
  };
}
