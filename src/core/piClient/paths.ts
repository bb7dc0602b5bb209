// Where bridges announce themselves and listen. Shared by the bridge (inside pi) and pi-tree, so both
// compute the same places from the same environment. Only Node built-ins: this module is bundled into
// the pi extension as well.
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Record and socket names: `<pid>-<8 hex>` (the stem), `.json` and `.sock`. */
export const STEM_RE = /^[1-9][0-9]{0,9}-[0-9a-f]{8}$/;
/** Unix socket paths longer than this do not fit sun_path on every platform (104 on macOS). */
export const MAX_SOCKET_PATH = 100;

function expandTilde(p: string): string {
  if (p === '~') return homedir();
  if (p.startsWith('~/') || p.startsWith('~\\')) return join(homedir(), p.slice(2));
  return p;
}

/** pi's agent directory: PI_CODING_AGENT_DIR, else ~/.pi/agent. */
export function agentDirOf(env: NodeJS.ProcessEnv): string {
  return resolve(expandTilde(env.PI_CODING_AGENT_DIR || join(homedir(), '.pi', 'agent')));
}

/**
 * The directory a bridge writes its record into: PI_TREE_BRIDGE_DIR when set, else
 * `<pi's agent dir>/pi-tree-bridges` (so each pi configuration has its own).
 */
export function recordDirOf(env: NodeJS.ProcessEnv): string {
  if (env.PI_TREE_BRIDGE_DIR) return resolve(expandTilde(env.PI_TREE_BRIDGE_DIR));
  return join(agentDirOf(env), 'pi-tree-bridges');
}

/**
 * Every directory pi-tree looks in: the one this environment names, and any the caller adds (say, the
 * default one when the editor's environment differs from the shell's that started pi).
 */
export function recordDirs(env: NodeJS.ProcessEnv, extra: string[] = []): string[] {
  return [...new Set([recordDirOf(env), ...extra.map((d) => resolve(expandTilde(d)))])];
}

/** Fallback socket directories for when `<recordDir>/<stem>.sock` is too long for a Unix socket path. */
export function socketFallbackDirs(env: NodeJS.ProcessEnv): string[] {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const dirs: string[] = [];
  if (env.XDG_RUNTIME_DIR) dirs.push(join(env.XDG_RUNTIME_DIR, 'pi-tree'));
  dirs.push(join(tmpdir(), `pi-tree-${uid}`));
  return dirs;
}

/**
 * The endpoints a record with this stem may name. pi-tree connects only to one of these (never to a path
 * a record makes up) and deletes only these when a record is stale.
 */
export function allowedEndpoints(
  recordDir: string,
  stem: string,
  env: NodeJS.ProcessEnv,
  platform = process.platform,
): string[] {
  if (platform === 'win32') return [`\\\\.\\pipe\\pi-tree-${stem}`];
  return [join(recordDir, `${stem}.sock`), ...socketFallbackDirs(env).map((d) => join(d, `${stem}.sock`))];
}
