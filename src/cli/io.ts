// What a CLI command may touch: two output streams and the environment (so tests run commands in-process).
export interface CliIO {
  out(s: string | Buffer): void;
  /** Whether `out` is done with a Buffer when it returns (written, not kept): the caller may reuse it. */
  outWritten?: boolean;
  err(s: string): void;
  env: NodeJS.ProcessEnv;
}
