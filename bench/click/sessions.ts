// The sessions the click benchmark opens: generated once (seeded, pi 1.6.0's shape, the same options
// as bench/run.ts's 100k session) into .bench/click/, named with a session_info entry (what pi's /name
// appends) so that the sidebar row can be found, and copied per run into pi's layout for the
// workspace, with the workspace as the header's cwd and an mtime an hour back (not "live").
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sessionDirFor, sessionFileName } from '../../scripts/lib/demoSessions';
import { generateSession } from '../../test/support/generate';

export interface BenchSession {
  entries: number;
  name: string;
  /** The generated file (cwd rewritten per run). */
  source: string;
  bytes: number;
}

export function benchSession(cacheDir: string, entries: number): BenchSession {
  mkdirSync(cacheDir, { recursive: true });
  const name = `Click bench ${entries.toLocaleString('en-US')} entries`;
  const source = join(cacheDir, `generated-${entries}.jsonl`);
  if (!existsSync(source)) {
    const g = generateSession({
      seed: entries === 100_000 ? 100 : entries,
      entries,
      branchRate: 0.03,
      compactions: 4,
      labels: 40,
      largeOutputRate: 0.02,
      systemMessage: true,
    });
    const last = g.entries[g.entries.length - 1].id as string;
    if (g.entries.some((e) => e.id === 'c11cbe5c')) throw new Error('generated id clash: change the name entry id');
    const info = {
      type: 'session_info',
      id: 'c11cbe5c',
      parentId: last,
      timestamp: new Date(Date.parse(g.entries[g.entries.length - 1].timestamp as string) + 1000).toISOString(),
      name,
    };
    writeFileSync(source, `${g.text}${JSON.stringify(info)}\n`);
  }
  return { entries, name, source, bytes: statSync(source).size };
}

/** Writes `s` into pi's session folder for `workspace`; returns the file. */
export function placeSession(s: BenchSession, agentDir: string, workspace: string): string {
  const dir = sessionDirFor(agentDir, workspace);
  mkdirSync(dir, { recursive: true });
  const text = readFileSync(s.source, 'utf8');
  const nl = text.indexOf('\n');
  const header = { ...JSON.parse(text.slice(0, nl)), cwd: workspace };
  const file = join(dir, sessionFileName(header.timestamp, header.id));
  writeFileSync(file, JSON.stringify(header) + text.slice(nl));
  const old = new Date(Date.now() - 3600_000);
  utimesSync(file, old, old);
  return file;
}
