// The newest snapshot line of the other sessions of a project: the working folder is one per project,
// so when another session (a fork, a second pi in the same folder) ran a turn or a restore after this
// session's latest line, the folder holds that line's snapshot, not this session's. Only each
// manifest's last snapshot line is read, from the end of the file, and kept while the file's size and
// time stay the same: a restore plan or Move here's check never reads whole manifests of other sessions.
import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { ManifestLine, SnapshotLine } from './manifestLines.js';

export type ProjectLine = SnapshotLine & { sessionId: string };

/** Bytes read from a manifest's end at a time (a line names at most a capped list of files). */
const CHUNK = 64 * 1024;

const cache = new Map<string, { stamp: string; line: SnapshotLine | undefined }>();

/**
 * The newest snapshot-bearing line ('off' lines carry none) of the manifests in `sessionsDir` other
 * than `ownSessionId`'s, by its time. undefined: no other session has one.
 */
export function othersNewest(sessionsDir: string, ownSessionId: string): ProjectLine | undefined {
  let names: string[];
  try {
    names = readdirSync(sessionsDir);
  } catch {
    return undefined;
  }
  let best: ProjectLine | undefined;
  let bestAt = -Infinity;
  for (const name of names) {
    if (!name.endsWith('.jsonl')) continue;
    const sessionId = name.slice(0, -'.jsonl'.length);
    if (sessionId === ownSessionId) continue;
    const line = lastSnapshot(join(sessionsDir, name));
    const at = line ? Date.parse(line.at) : NaN;
    if (line && at > bestAt) {
      best = { ...line, sessionId };
      bestAt = at;
    }
  }
  return best;
}

/** A manifest's last snapshot line, read backwards from its end (a torn last line is left out). */
export function lastSnapshot(file: string): SnapshotLine | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    const stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    const known = cache.get(file);
    if (known?.stamp === stamp) return known.line;
    let end = st.size;
    let tail = Buffer.alloc(0);
    let found: SnapshotLine | undefined;
    while (end > 0 && !found) {
      const start = Math.max(0, end - CHUNK);
      const chunk = Buffer.alloc(end - start);
      readSync(fd, chunk, 0, chunk.length, start);
      tail = Buffer.concat([chunk, tail]);
      end = start;
      // Whole lines only: what precedes the first newline may be part of a longer line (unless at the start).
      const cut = end === 0 ? 0 : tail.indexOf(10) + 1;
      if (end > 0 && cut === 0) continue;
      const lines = tail.subarray(cut).toString('utf8').split('\n');
      for (let i = lines.length - 1; i >= 0 && !found; i--) found = snapshotLine(lines[i]);
      tail = tail.subarray(0, cut);
    }
    cache.set(file, { stamp, line: found });
    return found;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** One manifest line if it is a snapshot line (as readManifest accepts them) with a time. */
function snapshotLine(text: string): SnapshotLine | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as ManifestLine;
    return v?.v === 1 &&
      v.kind !== 'off' &&
      typeof v.kind === 'string' &&
      Array.isArray(v.entries) &&
      typeof v.commit === 'string' &&
      typeof v.tree === 'string' &&
      typeof v.at === 'string'
      ? v
      : undefined;
  } catch {
    return undefined;
  }
}
