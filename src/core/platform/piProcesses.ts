// Whether a pi may be running at all, from the process table (Linux's /proc): a pi that is not running
// cannot be writing a session, so pi-tree does not ask "pi is writing this session" then. pi names its
// process `pi` (`pi-rpc` in RPC mode: process.title, which Linux shows as the command line); a pi started
// as `node …/pi-coding-agent/…` is found by its script. Elsewhere (no /proc) the answer is "unknown".
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** Whether a process's command line (NUL-separated, as /proc shows it) is a pi's. */
export function isPiCommandLine(cmdline: string): boolean {
  const args = cmdline.split('\0').filter(Boolean);
  const first = basename((args[0] ?? '').split(' ')[0]);
  if (first === 'pi' || first === 'pi-rpc') return true;
  return args.slice(0, 3).some((a) => /[/\\]pi-coding-agent[/\\]/.test(a) || basename(a) === 'pi');
}

/** True when a process of this user looks like a pi, false when none does, undefined when it cannot be told. */
export function piMayRun(proc = '/proc'): boolean | undefined {
  let pids: string[];
  try {
    pids = readdirSync(proc).filter((n) => /^\d+$/.test(n));
  } catch {
    return undefined;
  }
  if (!pids.length) return undefined;
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    try {
      if (isPiCommandLine(readFileSync(`${proc}/${pid}/cmdline`, 'latin1'))) return true;
    } catch {
      // gone meanwhile, or another user's: not ours to count
    }
  }
  return false;
}
