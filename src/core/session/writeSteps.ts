// The named steps of a write that creates or replaces a whole file (writeFileAtomic: migration, fork,
// clone, new session), so crash tests can stop a writer at each one and check that what is on disk at
// that moment is whole. Costs one call to nothing unless a test process installs a hook.
export type WriteStep =
  /** The temp file holds the whole new text (not yet synced). */
  | 'temp-written'
  /** The temp file is on disk (fsync). */
  | 'temp-synced'
  /** The backup of the old file exists (migrations). */
  | 'backup-made'
  /** The new file is in place under its real name. */
  | 'in-place'
  /** The directory entry is on disk too. */
  | 'dir-synced';

let hook: ((step: WriteStep, target: string) => void) | undefined;

/** @internal Installs (or removes) the hook called at each step; only test processes do this. */
export function onWriteStep(h: ((step: WriteStep, target: string) => void) | undefined): void {
  hook = h;
}

export function writeStep(step: WriteStep, target: string): void {
  hook?.(step, target);
}
