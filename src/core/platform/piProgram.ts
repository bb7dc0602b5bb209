// Finding the pi program to start, as an absolute program plus leading arguments, so that it can be
// started with an argument array (a terminal's shellPath/shellArgs, child_process without a shell).
// Session data never becomes part of a command line, and pi is never looked up in a relative PATH entry
// or in the session's folder, where a planted `pi` (or `pi.cmd`) could run instead.
import { constants, readFileSync } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { expandTilde } from '../session/repository.js';

export const INSTALL_PI = 'npm install -g @earendil-works/pi-coding-agent';
const PI_PACKAGE = '@earendil-works/pi-coding-agent';

export interface PiProgram {
  /** Absolute path of the program to start (pi itself, or node for an npm shim on Windows). */
  program: string;
  /** Arguments before pi's own (the pi script when the program is node). */
  args: string[];
}

export interface FindPiOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** Folders pi must not be found in (the session's folder, its header's cwd), compared exactly. */
  avoid?: string[];
}

export class PiNotFoundError extends Error {}

async function isExecutableFile(p: string, platform: NodeJS.Platform): Promise<boolean> {
  try {
    if (!(await stat(p)).isFile()) return false;
    if (platform !== 'win32') await access(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Absolute PATH entries only: "" and "." (and any relative entry) mean "the current folder". */
function pathDirs(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string[] {
  const raw = env.PATH ?? env.Path ?? '';
  return raw.split(platform === 'win32' ? ';' : delimiter).filter((d) => d && isAbsolute(d));
}

/**
 * Resolves `command` (the `piTree.piCommand` setting: a name looked up on PATH, or an absolute path)
 * to a program that can be started without a shell.
 */
export async function findPi(command: string, opts: FindPiOptions = {}): Promise<PiProgram> {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const avoid = (opts.avoid ?? []).filter(Boolean).map((d) => resolve(d));
  // The folder itself, not its subtree: pi may well live under a session's cwd (~/.local/bin under ~).
  const avoided = (p: string) => avoid.some((d) => resolve(dirname(p)) === d);
  const cmd = expandTilde(command.trim());
  let found: string | undefined;
  if (cmd.includes('/') || cmd.includes('\\')) {
    if (!isAbsolute(cmd))
      throw new PiNotFoundError(`piTree.piCommand must be a name on PATH or an absolute path, not "${command}".`);
    if (await isExecutableFile(cmd, platform)) found = cmd;
  } else {
    const exts = platform === 'win32' ? ['.exe', '.cmd', '.bat', ''] : [''];
    search: for (const dir of pathDirs(env, platform)) {
      for (const ext of exts) {
        const p = join(dir, cmd + ext);
        if (avoided(p)) continue;
        if (await isExecutableFile(p, platform)) {
          found = p;
          break search;
        }
      }
    }
  }
  if (!found) {
    throw new PiNotFoundError(
      cmd.includes('/') || cmd.includes('\\')
        ? `pi is not installed at ${cmd} (no program there).`
        : `pi is not installed (no "${command}" on PATH). Install it with: ${INSTALL_PI}.`,
    );
  }
  if (avoided(found)) throw new PiNotFoundError(`Refusing to start ${found}: it is inside the session's folder.`);
  if (platform === 'win32' && /\.(cmd|bat)$/i.test(found)) return viaNode(found, env, platform);
  return { program: found, args: [] };
}

/**
 * A batch file cannot take arbitrary arguments safely (cmd.exe re-parses them), so npm's `pi.cmd` shim
 * is replaced by what it runs: node with pi's script from the package beside the shim.
 */
async function viaNode(shim: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): Promise<PiProgram> {
  const pkgDir = join(dirname(shim), 'node_modules', ...PI_PACKAGE.split('/'));
  let script: string | undefined;
  try {
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
      bin?: string | Record<string, string>;
    };
    const bin = typeof pkg.bin === 'string' ? pkg.bin : (pkg.bin?.pi ?? Object.values(pkg.bin ?? {})[0]);
    if (bin) script = join(pkgDir, bin);
  } catch {
    // not npm's layout
  }
  const local = join(dirname(shim), 'node.exe');
  const node = (await isExecutableFile(local, platform))
    ? local
    : await findPi('node', { env, platform }).then(
        (p) => p.program,
        () => undefined,
      );
  if (!script || !node)
    throw new PiNotFoundError(
      `${shim} is a batch file, which cannot be started safely with a session path; set piTree.piCommand to pi's program (an .exe) instead.`,
    );
  return { program: node, args: [script] };
}
