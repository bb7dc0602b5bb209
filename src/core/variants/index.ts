// Variants: N forks of one node, each a new session run by pi in a folder of its
// own that holds the code at the node, listed here, adopted into the user's folder with restore's
// rules, discarded. The extension, the CLI, the runner and the bridge import only this door.
// - variantRecords.ts  where variants live (`<agentDir>/pi-tree/variants/<project key>/<id>/`), the records;
// - variants.ts        a variant made (record, folder, session) and discarded;
// - variantDeps.ts     dependency folders brought into its folder (the `variants` settings);
// - variantAdopt.ts    its file changes adopted into the user's folder, and undone;
// - variantGuard.ts    the tool calls its pi may not make (writes into the user's folder);
// - variantFiles.ts    a variant's file as it was at its node;
// - variantRun.ts      the shapes of a run of N variants (request, progress, outcomes);
// - runVariants.ts     such a run (at most `jobs` pis at once), and variantCheck.ts the user's check in a folder.
export { discardVariant, sessionDeleted } from './variants.js';
export { listVariants } from './variantRecords.js';
export { variantFileAtNode } from './variantFiles.js';
export { adoptVariant, openVariant, planVariantAdopt, undoVariantAdopt, type AdoptTarget } from './variantAdopt.js';
export { variantGuard, type VariantGuard } from './variantGuard.js';
export type {
  VariantCheck,
  VariantFileChange,
  VariantOutcome,
  VariantPhase,
  VariantProgress,
  VariantsRequest,
  VariantsRun,
} from './variantRun.js';
export { DEFAULT_JOBS, MAX_JOBS, MAX_VARIANTS, runVariants } from './runVariants.js';
export { CHECK_TIMEOUT_MS, MAX_CHECK_TIMEOUT_MS } from './variantCheck.js';
// The steps of a run one at a time, for the tests and the bench that check each of them.
/** @internal */
export { makeVariant } from './variants.js';
/** @internal */
export { readRecord, updateVariant, variantOfSession, type VariantRecord } from './variantRecords.js';
/** @internal */
export { DEFAULT_VARIANT_SETTINGS, readVariantSettings, type VariantSettings } from './variantDeps.js';
/** @internal */
export { VariantsInputError } from './runVariants.js';
