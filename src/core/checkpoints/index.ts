// The door to checkpoints: everything the extension, the CLI and the pi extension use, and nothing else
// (a lint rule keeps them out of the rooms). Inside, by concern:
// - git/      every git process (gitRun.ts) and the objects written in-process (looseObjects.ts);
// - store/    pi-tree's private store per project: snapshots, manifests, retention, what it never holds;
// - capture/  snapshots as the bridge takes them inside pi, from the folder watcher's list or git's walk;
// - code/     the code at an entry (a snapshot and the recorded calls after it), and compared;
// - restore/  a restore planned, written with its journal, undone, redone, and finished after a kill;
//             the conversation's move is the caller's (the journal says when it is due); the code at an
//             entry checked out into a new folder, and that folder's changes adopted.
export { Capture } from './capture/capture.js';
export { captureBlocked } from './capture/captureScope.js';
export type { Side } from './code/codeState.js';
export { codeAt } from './code/codeState.js';
export { folderChanges, folderFileAtBase } from './code/folderChanges.js';
export {
  codeEntries,
  deleteCheckpoints,
  diffCode,
  diffCodeNoted,
  diffStates,
  sessionCode,
  type CodeChange,
  type SessionCode,
} from './code/sessionCode.js';
export { needsConfirming, type Resolution } from './restore/restoreApply.js';
export { OutsideWriteError, PlanChangedError, RestoreRefusedError } from './restore/restoreErrors.js';
export {
  codeBetween,
  finishPending,
  pendingJournals,
  planCode,
  putCodeBack,
  recordLeafMoved,
  redoCode,
  undoAdopt,
  undoCode,
  writeAdopt,
  writeCode,
  writeCodeEarly,
} from './restore/restoreCode.js';
export { checkoutCode, dropCheckout, NoRoomError, type CheckoutResult } from './restore/codeCheckout.js';
/** @public What checkoutCode throws for a node whose code no checkpoint holds; a variant's caller tells it apart. */
export { codeUnknownAt, CodeUnknownError } from './restore/codeCheckout.js';
export { planAdopt } from './restore/adoptPlan.js';
export { within } from './restore/restoreGuards.js';
export { planCounts, sameStillHolds, type PlanItem, type RestorePlan } from './restore/restorePlan.js';
export { fileCount, flipConflictWords, planTally, planWords, takeNodeWords } from './restore/planWords.js';
export { SessionCheckpoints } from './store/manifests.js';
export {
  canonicalCwd,
  captureEnabled,
  DEFAULT_EXCLUDES,
  projectKey,
  projectStore,
  readCheckpointSettings,
  settingsFile,
  variantsRoot,
  type CheckpointSettings,
} from './store/storePaths.js';
