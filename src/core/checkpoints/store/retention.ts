// Keeping the checkpoint store within its caps: each snapshot line records how much the store
// grew with it; a session over its cap loses its oldest snapshots first, and a store over the total cap
// loses the oldest snapshots of any session. A session's latest snapshot (where its code is) is never
// dropped. Dropped snapshots lose their refs; git's gc then frees what nothing else keeps (storeGc.ts).
// Capture prunes at session start and again as its session grows (capture.ts), so the caps hold during
// a session. Another pi may be appending to a manifest pruned here: one appended to in the last few
// minutes is left alone, and one that grew between its reading and the rename is not rewritten (the
// rename would lose the new line); its refs then stay too.
import { readdirSync, statSync } from 'node:fs';
import type { ManifestLine, SnapshotLine } from './manifestLines.js';
import { CheckpointStore } from './store.js';
import type { CheckpointSettings } from './storePaths.js';

export interface PruneResult {
  dropped: number;
  sessions: number;
  /** Bytes counted before and after (the lines' own accounting). */
  before: number;
  after: number;
  /** Each session's bytes after (the lines' own accounting). */
  bySession: Map<string, number>;
}

export interface PruneOptions {
  /** The session of the capture pruning: its manifest is rewritten whatever its age (it is the writer). */
  own?: string;
  /** Only this session is read and pruned (its own cap; the total needs them all). */
  onlyOwn?: boolean;
  /** Another session's manifest written to within this long is not rewritten (default 5 minutes). */
  quietMs?: number;
  /** Collect the objects dropped (default true; a capture collects in the background instead). */
  collect?: boolean;
}

const QUIET_MS = 5 * 60_000;

/** The ref a capture keeps a snapshot under (the capture and the restore's records name them so). */
export function refName(line: SnapshotLine): string {
  return line.kind === 'restore'
    ? `restore-${line.commit.slice(0, 12)}`
    : `${line.kind}-${line.entries[0] ?? line.commit.slice(0, 12)}`;
}

const bytesOf = (l: ManifestLine) => (l.kind === 'off' ? 0 : (l.bytes ?? 0));

interface Read {
  lines: ManifestLine[];
  size: number;
  /** Its lines may be dropped (the capture's own, or not written to lately). */
  mine: boolean;
}

/** Drops the oldest snapshots until every session and the store are within the caps (0: no cap). */
export async function pruneStore(
  store: CheckpointStore,
  settings: CheckpointSettings,
  o: PruneOptions = {},
): Promise<PruneResult> {
  const sessions = new Map<string, Read>();
  const quiet = Date.now() - (o.quietMs ?? QUIET_MS);
  const ids =
    o.onlyOwn && o.own
      ? [o.own]
      : readdirSync(store.where.sessionsDir).flatMap((n) => (n.endsWith('.jsonl') ? [n.slice(0, -6)] : []));
  for (const id of ids) {
    let st;
    try {
      st = statSync(store.manifestFile(id));
    } catch {
      continue;
    }
    // (its size before its lines are read: a line appended in between makes the rewrite give way)
    sessions.set(id, { size: st.size, lines: store.manifest(id), mine: id === o.own || st.mtimeMs < quiet });
  }
  const dropped = new Map<string, Set<ManifestLine>>();
  const sumOf = (id: string) =>
    sessions
      .get(id)!
      .lines.filter((l) => !dropped.get(id)?.has(l))
      .reduce((a, l) => a + bytesOf(l), 0);
  const total = () => [...sessions.keys()].reduce((s, id) => s + sumOf(id), 0);
  const before = total();
  const droppable = (id: string) => {
    const { lines, mine } = sessions.get(id)!;
    if (!mine) return [];
    const last = lines.findLast((l) => l.kind !== 'off');
    return lines.filter((l) => l.kind !== 'off' && l !== last && !dropped.get(id)?.has(l));
  };
  const drop = (id: string, l: ManifestLine) => {
    if (!dropped.has(id)) dropped.set(id, new Set());
    dropped.get(id)!.add(l);
  };
  if (settings.maxSessionBytes > 0) {
    for (const id of sessions.keys()) {
      let size = sumOf(id);
      for (const l of droppable(id)) {
        if (size <= settings.maxSessionBytes) break;
        size -= bytesOf(l);
        drop(id, l);
      }
    }
  }
  if (settings.maxTotalBytes > 0 && !o.onlyOwn) {
    let size = total();
    const oldest = [...sessions.keys()]
      .flatMap((id) => droppable(id).map((l) => ({ id, l })))
      .sort((a, b) => (a.l as SnapshotLine).at.localeCompare((b.l as SnapshotLine).at));
    for (const { id, l } of oldest) {
      if (size <= settings.maxTotalBytes) break;
      size -= bytesOf(l);
      drop(id, l);
    }
  }
  let count = 0;
  for (const [id, set] of dropped) {
    const { lines, size } = sessions.get(id)!;
    const keep = lines.filter((l) => !set.has(l));
    const refsKept = new Set(keep.filter((l): l is SnapshotLine => l.kind !== 'off').map(refName));
    const gone = [...set]
      .filter((l): l is SnapshotLine => l.kind !== 'off')
      .map(refName)
      .filter((r) => !refsKept.has(r));
    if (!store.rewriteManifest(id, keep, { size })) {
      dropped.delete(id); // appended to meanwhile: left as it is, refs and all
      continue;
    }
    if (gone.length)
      await store.run(['update-ref', '--stdin'], {
        input: gone.map((r) => `delete refs/pi-tree/${id}/${r}\n`).join(''),
      });
    count += set.size;
  }
  if (count && o.collect !== false) await store.collect();
  return {
    dropped: count,
    sessions: dropped.size,
    before,
    after: total(),
    bySession: new Map([...sessions.keys()].map((id) => [id, sumOf(id)])),
  };
}
