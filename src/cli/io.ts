// What a CLI command may touch: two output streams and the environment (so tests run commands in-process).
export interface CliIO {
  out(s: string | Buffer): void;
  err(s: string): void;
  env: NodeJS.ProcessEnv;
}
