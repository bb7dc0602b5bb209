// The seam between the editor's "Try Variants from Here" and the core that runs them (core/variants/:
// runVariants, and a variant's adopt, undo and discard). The host's flow (variantsFlow.ts) and the
// variants view (variantsPanel.ts, variantAdopt.ts) talk only to this interface; piVariantsService.ts
// implements it over the core, and the tests use a fake.
import type { Session } from '../../core/session/session.js';
import type { RestorePlan, Resolution } from '../../core/checkpoints/index.js';
import type { VariantOutcome, VariantProgress, VariantsRun } from '../../core/variants/index.js';
import type { ModelRef } from '../../protocol.js';

/** One run: `prompt` tried from `entryId` of `session` (its file `file`), one try per model or `count` tries. */
export interface VariantsQuestion {
  session: Session;
  file: string;
  entryId: string;
  prompt: string;
  models?: ModelRef[];
  count?: number;
  /** The user's check command line, run in each variant's folder after its turn. */
  check?: string;
  onProgress?: (p: VariantProgress) => void;
}

/** What an adopt writes and what an undo puts back, in the words the notifications need. */
export interface AdoptWritten {
  written: string[];
  skipped: { path: string; why: string }[];
  merged: { path: string; conflicts: number }[];
  warnings: string[];
}

export interface UndoneAdopt {
  written: string[];
  conflicts: string[];
}

/** A variant opened for adopting: the preview's plan, the write, and the undo of the write. */
export interface AdoptSession {
  plan: RestorePlan;
  /** The variant's folder (the right side of the preview). */
  folder: string;
  /** The user's working folder (where the files go). */
  project: string;
  /** Writes the plan; `confirmed`: the files outside the working folder the user confirmed by name. */
  write(resolutions: Map<string, Resolution>, confirmed: string[]): Promise<AdoptWritten>;
  undo(force: boolean): Promise<UndoneAdopt>;
}

export interface VariantsService {
  /**
   * Starts the run: resolves once it is under way (its outcomes then change as `onProgress` says).
   * Rejects, starting nothing, when pi cannot be found or the question is wrong (words for the user).
   */
  start(q: VariantsQuestion): Promise<VariantsRun>;
  /** Opens the variant whose session is `variantFile` for adopting (the run must have ended). */
  openAdopt(variantFile: string): Promise<AdoptSession>;
  /** The bytes of `path` (relative) at the node the variant in `folder` was made from; undefined when the node had no such file. */
  fileAtNode(folder: string, path: string): Promise<Buffer | undefined>;
  /** Removes a variant's folder, its store and its record (its session file stays). */
  discard(o: Pick<VariantOutcome, 'variantId' | 'session'>): Promise<void>;
}
