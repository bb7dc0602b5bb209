// CPU time (user + system, from /proc) of the processes that show a session, by role: where the work
// of an open goes, in a figure that the machine's load changes less than wall time. The server's
// processes are its process group; Chromium's are those started with the run's profile folder.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ = 100 on Linux

function role(cmd: string): string {
  if (/--type=extensionHost/i.test(cmd)) return 'extension host';
  if (!/chrom/.test(cmd)) return 'code-server other';
  if (/--type=renderer/.test(cmd)) return 'chromium renderer';
  if (/--type=gpu-process/.test(cmd)) return 'chromium gpu';
  if (/--type=/.test(cmd)) return 'chromium other';
  return 'chromium browser';
}

/** CPU ms so far, by role, of the server's process group and the Chromium processes of `runDir`. */
export function cpuByRole(serverPgid: number, runDir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (Number(f[2]) !== serverPgid && !cmd.includes(runDir)) continue;
      const r = role(cmd);
      out[r] = (out[r] ?? 0) + (Number(f[11]) + Number(f[12])) * TICK_MS; // utime + stime
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

export function cpuSince(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - (before[k] ?? 0)]));
}
