// What a CLI command may touch: two output streams and the environment (so tests run commands in-process).
// `main` (src/cli.ts) hands every command the terminal-safe writer of terminalIO (safeText.ts): human-readable
// text goes through `out` and `err`, which show terminal controls as visible escapes; JSON goes through `json`,
// written exactly.
export interface CliIO {
  /** Human-readable text. */
  out(s: string | Buffer): void;
  /** JSON text, written as it is (JSON.stringify escapes the C0 controls; the values stay exact). */
  json(s: string | Buffer): void;
  /** Whether `out` and `json` are done with a Buffer when they return (written, not kept): the caller may reuse it. */
  outWritten?: boolean;
  /** Human-readable text (warnings, errors). */
  err(s: string): void;
  env: NodeJS.ProcessEnv;
}

/** The process's streams as `main` gets them, before terminalIO. */
export type Streams = Pick<CliIO, 'out' | 'err' | 'env' | 'outWritten'>;
