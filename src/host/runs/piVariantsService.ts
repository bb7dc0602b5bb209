// VariantsService over pi-tree's core (core/variants/): runVariants comes in as `VariantsCore`
// (activate.ts hands the real one, tests a fake), so this file only finds the user's pi and pi's agent
// dir, and opens a variant for adopting or discarding by its session file or id, as the core's records
// say (never a path the view named: the view names a variant by its place in the run).
import { dirname } from 'node:path';
import { findPi, type PiProgram } from '../../core/platform/piProgram.js';
import type { CheckpointSettings } from '../../core/checkpoints/index.js';
import {
  adoptVariant,
  discardVariant,
  listVariants,
  variantFileAtNode,
  openVariant,
  planVariantAdopt,
  undoVariantAdopt,
  type VariantsRequest,
  type VariantsRun,
} from '../../core/variants/index.js';
import type { AdoptSession, VariantsQuestion, VariantsService } from './variantsService.js';

/** The core function this service calls, by its name in core/variants/. */
export interface VariantsCore {
  runVariants(req: VariantsRequest): VariantsRun;
}

export interface PiVariantsDeps {
  core: VariantsCore;
  /** The `piTree.piCommand` setting. */
  piCommand(): string;
  agentDir(): string;
  /** Whether the user runs pi-tree for a folder (the workspace's folders). */
  vouched?: (cwd: string) => boolean;
  settings?: () => CheckpointSettings | undefined;
  env?: NodeJS.ProcessEnv;
  /** How many pis run at once. */
  jobs?: () => number;
  /** How long each variant's check may run, in ms (the setting). */
  checkTimeoutMs?: () => number;
  /** pi-tree's bridge (dist/pi-bridge.js) for each variant's pi, unless pi loads it already (connected). */
  bridgeFile?: () => string | undefined;
}

export function createVariantsService(deps: PiVariantsDeps): VariantsService {
  const env = () => deps.env ?? process.env;
  const adoptOptions = () => ({
    agentDir: deps.agentDir(),
    vouched: deps.vouched,
    settings: deps.settings?.(),
    env: env(),
  });

  return {
    async start(q: VariantsQuestion): Promise<VariantsRun> {
      // The user's pi, never one planted in the session's folder or its working folder (findPi's rule).
      const pi: PiProgram = await findPi(deps.piCommand(), {
        env: env(),
        avoid: [dirname(q.file), String(q.session.header.cwd ?? '')].filter(Boolean),
      }).catch((e: Error) => {
        throw new Error(`pi-tree cannot start pi for the variants: ${e.message} Set piTree.piCommand.`, { cause: e });
      });
      return deps.core.runVariants({
        agentDir: deps.agentDir(),
        sessionFile: q.file,
        entryId: q.entryId,
        prompt: q.prompt,
        ...(q.models?.length ? { models: q.models } : { count: q.count ?? 2 }),
        ...(q.check ? { check: q.check } : {}),
        ...(q.check && deps.checkTimeoutMs ? { checkTimeoutMs: deps.checkTimeoutMs() } : {}),
        ...(deps.jobs ? { jobs: deps.jobs() } : {}),
        pi,
        ...(deps.bridgeFile?.() ? { bridge: deps.bridgeFile()! } : {}),
        env: env(),
        onProgress: q.onProgress,
      });
    },

    async openAdopt(variantFile: string): Promise<AdoptSession> {
      const t = await openVariant(variantFile, adoptOptions());
      const plan = await planVariantAdopt(t);
      return {
        plan,
        folder: t.record.folder,
        project: t.record.project,
        async write(resolutions, confirmed) {
          const r = await adoptVariant(t, plan, { resolutions, confirmed: new Set(confirmed) });
          return { written: r.written, skipped: r.skipped, merged: r.merged, warnings: r.warnings };
        },
        async undo(force) {
          const r = await undoVariantAdopt(t, { force });
          return { written: r.written, conflicts: r.conflicts };
        },
      };
    },

    fileAtNode(folder, path) {
      return variantFileAtNode(deps.agentDir(), folder, path, env());
    },

    async discard(o) {
      const agentDir = deps.agentDir();
      const rec = listVariants(agentDir).find(
        (r) => r.id === o.variantId && (!o.session || r.sessionFile === o.session),
      );
      if (!rec) throw new Error('pi-tree has no record of this variant any more (discarded already?)');
      await discardVariant(agentDir, rec, { env: env() });
    },
  };
}
