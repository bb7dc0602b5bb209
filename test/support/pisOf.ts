// The pis of one test's pi configuration, to tell that none is left behind: processes of this user whose
// environment names `agentDir` as pi's (Linux /proc) and whose command line is pi's.
import { readdirSync, readFileSync } from 'node:fs';
import { isPiCommandLine } from '../../src/core/platform/piProcesses.js';

export function pisOf(agentDir: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      if (
        readFileSync(`/proc/${d}/environ`, 'utf8').split('\0').includes(`PI_CODING_AGENT_DIR=${agentDir}`) &&
        isPiCommandLine(readFileSync(`/proc/${d}/cmdline`, 'latin1'))
      )
        out.push(Number(d));
    } catch {
      // gone, or not ours
    }
  }
  return out;
}
