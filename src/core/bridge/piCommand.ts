// Which pi to start: the configured command (default "pi") resolved to an absolute executable through
// PATH, never through a relative PATH entry ("." or "") and never from the session's own folder or a
// workspace folder (a session directory must not be able to supply the program that reads it).
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path';

export interface PiProgram {
  /** Absolute path of the executable. */
  command: string;
  /** Arguments before pi's own (e.g. the CLI script when `command` is a node binary). */
  args: string[];
}

export class PiNotFoundError extends Error {
  override name = 'PiNotFoundError';
}

function executable(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    if (process.platform !== 'win32') accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const inside = (dir: string, p: string) => {
  const d = resolve(dir);
  const r = resolve(p);
  return r === d || r.startsWith(d.endsWith(sep) ? d : d + sep);
};

/**
 * Resolves `command` (a name looked up in PATH, or an absolute path) to an absolute executable.
 * `exclude`: folders the program may not come from (the session's folder, the workspace folders).
 */
export function resolvePiCommand(command: string, opts: { env?: NodeJS.ProcessEnv; exclude?: string[]; args?: string[] } = {}): PiProgram {
  const env = opts.env ?? process.env;
  const exclude = opts.exclude ?? [];
  const name = command.trim();
  if (!name) throw new PiNotFoundError('no pi command is configured');
  const allowed = (p: string) => !exclude.some((d) => inside(d, p));
  if (isAbsolute(name)) {
    if (!executable(name)) throw new PiNotFoundError(`${name} is not an executable file`);
    if (!allowed(name)) throw new PiNotFoundError(`${name} lies inside the session's or workspace's folder; pi-tree does not start programs from there`);
    return { command: name, args: opts.args ?? [] };
  }
  if (name.includes('/') || name.includes('\\')) throw new PiNotFoundError(`"${name}" is a relative path; configure pi's command as a name found in PATH or an absolute path`);
  const exts =
    process.platform === 'win32'
      ? [
          '.exe',
          ...(env.PATHEXT ?? '')
            .split(';')
            .filter((e) => e && e.toLowerCase() !== '.exe')
            .map((e) => e.toLowerCase()),
        ]
      : [''];
  for (const dir of (env.PATH ?? env.Path ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue; // "." or "" would make the current folder supply pi
    for (const ext of exts) {
      const p = join(dir, name + ext);
      if (!executable(p) || !allowed(p)) continue;
      if (process.platform === 'win32' && /\.(cmd|bat)$/i.test(p)) {
        throw new PiNotFoundError(`${p} is a batch file, which cannot be started without a shell; configure the node executable and pi's cli.js instead`);
      }
      return { command: p, args: opts.args ?? [] };
    }
  }
  throw new PiNotFoundError(`"${name}" was not found in PATH (install pi with \`npm install -g @earendil-works/pi-coding-agent\`, or configure its absolute path)`);
}
