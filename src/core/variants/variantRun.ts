// The shapes of a variants run: one prompt tried N times from one node, each try a variant (its own
// folder and forked session, variants.ts) whose turn a headless pi runs (runs/runTurn.ts), at most
// `jobs` at once, each optionally followed by the user's check command in its folder. The CLI's
// `pi-tree variants` and the editor's variants view both read these.
import type { PiProgram } from '../platform/piProgram.js';
import type { RunModel } from '../runs/runTurn.js';

export interface VariantsRequest {
  /** pi's agent dir (where variants and their records live). */
  agentDir: string;
  /** The session the variants fork from, and the node. */
  sessionFile: string;
  entryId: string;
  prompt: string;
  /** One try per model, in this order; without it, `count` tries of pi's default model. */
  models?: RunModel[];
  /** How many tries of one model (ignored when `models` is given). */
  count?: number;
  /** The user's own command line (e.g. `npm test`), run by the user's shell in each variant's folder after its turn. */
  check?: string;
  /** How long the check may run in each folder before it is stopped (default 10 minutes). */
  checkTimeoutMs?: number;
  /** At most this many pis at once (default 2). */
  jobs?: number;
  /** The user's pi (findPi). */
  pi: PiProgram;
  /**
   * pi-tree's bridge (dist/pi-bridge.js), loaded into each variant's pi (`-e`): it takes the variant's
   * checkpoints and blocks its writes into the user's folder. Leave it out only when pi loads the
   * bridge already (installed into pi's settings: connected).
   */
  bridge?: string;
  env?: NodeJS.ProcessEnv;
  /** Cancels every variant (each pi aborts its turn; what it wrote stays). */
  signal?: AbortSignal;
  /** Every change of a variant's outcome, and its answer's text as it streams. */
  onProgress?: (p: VariantProgress) => void;
}

export type VariantPhase = 'queued' | 'preparing' | 'running' | 'checking' | 'done' | 'failed' | 'cancelled';

/** A file a variant's turn changed, against the code at the node. */
export interface VariantFileChange {
  path: string;
  status: 'created' | 'deleted' | 'changed';
  /** Lines added and removed (0 and 0 for a binary file). */
  added: number;
  removed: number;
}

export interface VariantCheck {
  /** The check's exit code (null when a signal ended it or it could not start). */
  exitCode: number | null;
  signal?: string;
  /** The end of its output (stdout and stderr as they came), capped. */
  output: string;
  ms: number;
}

export interface VariantOutcome {
  /** Its place in the request: the order of `models`, or 0..count-1. */
  index: number;
  /** "provider/id", or undefined for pi's default model. */
  model?: string;
  phase: VariantPhase;
  /** The variant's id, session file and folder, once made. */
  variantId?: string;
  session?: string;
  folder?: string;
  /** The assistant entry holding the answer, and its text. */
  answerId?: string;
  answer?: string;
  leafId?: string | null;
  files?: VariantFileChange[];
  tokens?: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  /** USD as pi priced it. */
  cost?: number;
  /** From the start of the variant (its folder) to the end of its turn and check. */
  ms?: number;
  /** Where that time went, in ms: its folder and session made, pi's turn (start to exit), the files compared, the check. */
  steps?: { prepare?: number; turn?: number; files?: number; check?: number };
  check: VariantCheck | null;
  /** Why it failed or was cancelled, in words. */
  error?: string;
}

export type VariantProgress =
  { kind: 'outcome'; outcome: VariantOutcome } | { kind: 'delta'; index: number; delta: string };

/** A run under way: its outcomes as they are now, cancel one or all, and the end. */
export interface VariantsRun {
  readonly outcomes: readonly VariantOutcome[];
  /** Cancels one variant (by index), or all of them. */
  cancel(index?: number): void;
  /** Resolves with every outcome once each variant has ended (done, failed or cancelled). */
  readonly done: Promise<VariantOutcome[]>;
}
