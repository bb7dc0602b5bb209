// How CLI commands talk to the world, so tests can run them in-process. `out`/`err` write the text
// as given (callers end lines with "\n").
export interface CliIO {
  out(s: string): void;
  err(s: string): void;
  env: NodeJS.ProcessEnv;
}

export const processIO: CliIO = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  env: process.env,
};
