// Running the user's `git` program for pi-tree's private checkpoint store (ARCHITECTURE.md, Checkpoints): an
// argument list, never a shell; an environment built so that nothing of the project's own repository or
// of the user's git configuration is read or run. GIT_DIR/GIT_WORK_TREE/GIT_INDEX_FILE name pi-tree's
// store, the work tree and a private index; system and global config are off (no hooks, no fsmonitor
// program, no filters a config defines); every GIT_* variable inherited from the caller is dropped.
import { spawn } from 'node:child_process';
import { devNull } from 'node:os';
import { dirname } from 'node:path';
import { readVersion } from './gitOutput.js';

export class GitError extends Error {
  override name = 'GitError';
  constructor(
    message: string,
    /** `missing` when no git program could be started. */
    readonly code: 'missing' | 'failed' | 'too-large' | 'timeout',
    readonly stderr = '',
  ) {
    super(message);
  }
}

export interface GitOptions {
  gitDir: string;
  /** The working tree (also the process's cwd, so relative paths are the tree's). */
  workTree?: string;
  /** pi-tree's own index file for this work tree. */
  indexFile?: string;
  input?: Buffer | string;
  /** The program (default `git` on PATH). */
  program?: string;
  /** Exit codes that are answers, not failures (e.g. 1 for `diff --quiet`). */
  okCodes?: number[];
  /** Largest output kept (default 256 MiB). */
  maxBytes?: number;
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** The process's cwd when there is no work tree (default: the git dir's parent). */
  cwd?: string;
  /** Pathspecs taken literally (default; check-ignore refuses the setting). */
  literalPathspecs?: boolean;
}

const AUTHOR = {
  GIT_AUTHOR_NAME: 'pi-tree',
  GIT_AUTHOR_EMAIL: 'pi-tree@localhost',
  GIT_COMMITTER_NAME: 'pi-tree',
  GIT_COMMITTER_EMAIL: 'pi-tree@localhost',
};

/** The environment of every git call: the caller's minus GIT_*, plus pi-tree's store and isolation. */
export function gitEnv(
  opts: Pick<GitOptions, 'gitDir' | 'workTree' | 'indexFile' | 'env' | 'literalPathspecs'>,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(opts.env ?? process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  Object.assign(env, AUTHOR, {
    GIT_DIR: opts.gitDir,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: devNull,
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
  });
  if (opts.literalPathspecs !== false) env.GIT_LITERAL_PATHSPECS = '1';
  if (opts.workTree) env.GIT_WORK_TREE = opts.workTree;
  if (opts.indexFile) env.GIT_INDEX_FILE = opts.indexFile;
  return env;
}

/** Runs git with `args`; resolves with its stdout, rejects with a GitError. */
export function git(args: readonly string[], opts: GitOptions): Promise<Buffer> {
  const maxBytes = opts.maxBytes ?? 256 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const child = spawn(opts.program ?? 'git', ['-c', 'core.hooksPath=' + devNull, ...args], {
      cwd: opts.workTree ?? opts.cwd ?? dirname(opts.gitDir),
      env: gitEnv(opts),
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failed: GitError | undefined;
    const timer = opts.timeoutMs
      ? setTimeout(
          () => stop(new GitError(`git ${args[0]} took longer than ${opts.timeoutMs} ms`, 'timeout')),
          opts.timeoutMs,
        )
      : undefined;
    const stop = (e: GitError) => {
      failed ??= e;
      child.kill('SIGKILL');
    };
    child.stdout.on('data', (d: Buffer) => {
      outBytes += d.length;
      if (outBytes > maxBytes) stop(new GitError(`git ${args[0]} wrote more than ${maxBytes} bytes`, 'too-large'));
      else out.push(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < 8192) err += d.toString('utf8');
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (timer) clearTimeout(timer);
      reject(
        e.code === 'ENOENT'
          ? new GitError(`git was not found (${opts.program ?? 'git'} on PATH)`, 'missing')
          : new GitError(`git could not start: ${e.message}`, 'failed'),
      );
    });
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      if (failed) return reject(failed);
      if (code === 0 || (code !== null && opts.okCodes?.includes(code))) return resolve(Buffer.concat(out));
      reject(new GitError(`git ${args[0]} failed (exit ${code}): ${err.trim().split('\n')[0] ?? ''}`, 'failed', err));
    });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

const gitVersions = new Map<string, Promise<number[]>>();

/** Whether the git program is at least `want` ([major, minor]); asked once per program (`run` runs it). */
export async function gitAtLeast(
  want: readonly number[],
  run: (args: string[]) => Promise<Buffer>,
  program = 'git',
): Promise<boolean> {
  let v = gitVersions.get(program);
  if (!v) {
    v = run(['version']).then(readVersion, () => []);
    gitVersions.set(program, v);
  }
  const [major = 0, minor = 0] = await v;
  return major > want[0] || (major === want[0] && minor >= want[1]);
}
