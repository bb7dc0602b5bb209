// Keeping the checkpoint store within its caps (issue #32): each snapshot line records how much the store
// grew with it; a session over its cap loses its oldest snapshots first, and a store over the total cap
// loses the oldest snapshots of any session. A session's latest snapshot (where its code is) is never
// dropped. Dropped snapshots lose their refs; git's gc then frees what nothing else keeps.
import { readdirSync } from 'node:fs';
import type { ManifestLine, SnapshotLine } from './manifestLines.js';
import { CheckpointStore } from './store.js';
import type { CheckpointSettings } from './storePaths.js';

export interface PruneResult {
  dropped: number;
  sessions: number;
  /** Bytes counted before and after (the lines' own accounting). */
  before: number;
  after: number;
}

/** The ref a capture keeps a snapshot under (capture.ts and code.ts name them so). */
export function refName(line: SnapshotLine): string {
  return line.kind === 'restore' ? `restore-${line.commit.slice(0, 12)}` : `${line.kind}-${line.entries[0] ?? line.commit.slice(0, 12)}`;
}

const bytesOf = (l: ManifestLine) => (l.kind === 'off' ? 0 : (l.bytes ?? 0));

/** Drops the oldest snapshots until every session and the store are within the caps (0: no cap). */
export async function pruneStore(store: CheckpointStore, settings: CheckpointSettings): Promise<PruneResult> {
  const sessions = new Map<string, ManifestLine[]>();
  for (const n of readdirSync(store.where.sessionsDir)) if (n.endsWith('.jsonl')) sessions.set(n.slice(0, -6), store.manifest(n.slice(0, -6)));
  const dropped = new Map<string, Set<ManifestLine>>();
  const total = () => [...sessions].reduce((s, [id, lines]) => s + lines.filter((l) => !dropped.get(id)?.has(l)).reduce((a, l) => a + bytesOf(l), 0), 0);
  const before = total();
  const droppable = (id: string) => {
    const lines = sessions.get(id)!;
    const last = lines.findLast((l) => l.kind !== 'off');
    return lines.filter((l) => l.kind !== 'off' && l !== last && !dropped.get(id)?.has(l));
  };
  const drop = (id: string, l: ManifestLine) => {
    if (!dropped.has(id)) dropped.set(id, new Set());
    dropped.get(id)!.add(l);
  };
  if (settings.maxSessionBytes > 0) {
    for (const [id, lines] of sessions) {
      let size = lines.reduce((a, l) => a + bytesOf(l), 0);
      for (const l of droppable(id)) {
        if (size <= settings.maxSessionBytes) break;
        size -= bytesOf(l);
        drop(id, l);
      }
    }
  }
  if (settings.maxTotalBytes > 0) {
    let size = total();
    const oldest = [...sessions.keys()].flatMap((id) => droppable(id).map((l) => ({ id, l }))).sort((a, b) => (a.l as SnapshotLine).at.localeCompare((b.l as SnapshotLine).at));
    for (const { id, l } of oldest) {
      if (size <= settings.maxTotalBytes) break;
      size -= bytesOf(l);
      drop(id, l);
    }
  }
  let count = 0;
  for (const [id, set] of dropped) {
    const lines = sessions.get(id)!;
    const keep = lines.filter((l) => !set.has(l));
    const refsKept = new Set(keep.filter((l): l is SnapshotLine => l.kind !== 'off').map(refName));
    const gone = [...set]
      .filter((l): l is SnapshotLine => l.kind !== 'off')
      .map(refName)
      .filter((r) => !refsKept.has(r));
    store.rewriteManifest(id, keep);
    if (gone.length) await store.run(['update-ref', '--stdin'], { input: gone.map((r) => `delete refs/pi-tree/${id}/${r}\n`).join('') });
    count += set.size;
  }
  if (count) await store.collect();
  return { dropped: count, sessions: dropped.size, before, after: total() };
}
