// Is the process behind a discovery record the pi it claims to be? Any process of the same user can
// write a record into the private directory and answer the token it chose itself, so before pi-tree
// reports an action "via pi PID" it checks, besides the record's shape (discovery.ts): the endpoint is
// a socket at a place the record's bridge would choose (lstat: not a symlink to another one), the pid
// answering is the record's and runs the session asked for, and on Linux that the pid is a process of
// ours whose command line is pi's and that it holds the listening socket at that endpoint. What an
// action did is confirmed separately, by its effect (cli/piEffects.ts).
import { lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { canonicalPath, type LiveBridgeInfo } from './discovery.js';
import { allowedEndpoints } from './paths.js';

/** The record does not check out: nothing is sent to its peer. */
export class UntrustedBridgeError extends Error {
  override name = 'UntrustedBridgeError';
  readonly code = 'untrusted';
}

/** pi sets its process title to its app name ("pi", "pi-rpc"); run from its package, the path names it. */
function looksLikePi(argv: string[]): boolean {
  const name = (a: string) => basename(a).replace(/\.(c|m)?js$|\.exe$/i, '');
  if (argv.length && /^pi(-rpc)?$/.test(name(argv[0]))) return true;
  return argv.slice(0, 3).some((a) => name(a) === 'pi' || /[\\/]pi-coding-agent[\\/]/.test(a));
}

/** The inodes of the listening Unix sockets bound at `path`, in the network namespace of `pid`. */
function listeningInodes(pid: number, path: string): Set<string> {
  const out = new Set<string>();
  for (const line of readFileSync(`/proc/${pid}/net/unix`, 'utf8').split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path (the path may hold spaces)
    const m = /^\s*\S+:\s+\S+\s+\S+\s+([0-9A-Fa-f]+)\s+\S+\s+\S+\s+(\d+)\s(.*)$/.exec(line);
    if (m && m[3] === path && (parseInt(m[1], 16) & 0x10000) !== 0) out.add(m[2]);
  }
  return out;
}

function holdsSocket(pid: number, inodes: Set<string>): boolean {
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    const m = /^socket:\[(\d+)\]$/.exec(target);
    if (m && inodes.has(m[1])) return true;
  }
  return false;
}

/**
 * Throws UntrustedBridgeError unless `info` (a live bridge as findBridge returned it) is the pi running
 * `sessionFile` that its record names. Cheap: a few small reads of /proc, no request.
 */
export function verifyBridge(info: LiveBridgeInfo, sessionFile: string, env: NodeJS.ProcessEnv = process.env): void {
  const { record, state } = info;
  const pid = record.pid;
  const fail = (why: string): never => {
    throw new UntrustedBridgeError(
      `the pi-tree bridge record ${info.recordFile} does not check out: ${why}; nothing was sent to it`,
    );
  };
  if (!allowedEndpoints(info.dir, info.stem, env).includes(record.endpoint))
    fail(`its socket ${record.endpoint} is not where a bridge puts one`);
  if (state.pid !== pid) fail(`the socket answers for pid ${state.pid}, not ${pid}`);
  if (canonicalPath(state.sessionFile) !== canonicalPath(sessionFile))
    fail(`pid ${pid} runs ${state.sessionFile}, not this session`);
  if (process.platform === 'win32') return;
  let isSocket = false;
  try {
    const st = lstatSync(record.endpoint);
    isSocket = st.isSocket() && (typeof process.getuid !== 'function' || st.uid === process.getuid());
  } catch {
    // gone: not a socket
  }
  if (!isSocket) fail(`${record.endpoint} is not a socket of ours (a symlink, or another file)`);
  if (process.platform !== 'linux') return;
  try {
    if (typeof process.getuid === 'function' && statSync(`/proc/${pid}`).uid !== process.getuid())
      fail(`pid ${pid} belongs to another user`);
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    if (!looksLikePi(argv))
      fail(`pid ${pid} is not a pi (its command line reads "${argv.join(' ').replace(/\s+/g, ' ').slice(0, 80)}")`);
    if (!holdsSocket(pid, listeningInodes(pid, record.endpoint)))
      fail(`pid ${pid} does not hold the listening socket at ${record.endpoint}`);
  } catch (e) {
    if (e instanceof UntrustedBridgeError) throw e;
    fail(`pid ${pid} cannot be looked at in /proc (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
}
