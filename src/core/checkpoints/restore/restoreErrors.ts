// The errors a restore, undo or redo throws before or while it writes, each saying in words what was
// left: the callers (the extension, the CLI, the bridge) tell them apart to answer the user.
/** Thrown when the working folder changed since the preview: nothing was written. */
export class PlanChangedError extends Error {
  override name = 'PlanChangedError';
}

/** Thrown before the first write when a restore could not finish (a name too long, no room…): nothing was written. */
export class RestoreRefusedError extends Error {
  override name = 'RestoreRefusedError';
}

/** Thrown when files outside the working folder (or a folder no one vouched for) would be written unconfirmed. */
export class OutsideWriteError extends Error {
  override name = 'OutsideWriteError';
  constructor(readonly paths: string[]) {
    super(
      `${paths.length} file${paths.length === 1 ? '' : 's'} outside the session\u2019s working folder would be written: ${paths.join(', ')}; nothing was written. Confirm each to restore them.`,
    );
  }
}
