// What adopting another folder's changes into the session's working folder would do, before anything is
// written: a variant's folder (src/core/variants), checked out at an entry by codeCheckout.ts, against
// what it holds now (a scratch snapshot through a copy of its session's index: the folder's files as the
// variant's next snapshot would take them; its latest snapshot when the folder is gone). Only the paths
// the variant changed are in scope, with restore's rules: the user's file still as at the entry (B) →
// written (the variant's, T); already as the variant has it → nothing; anything else (the user, or a
// later turn, changed it since the entry) → a conflict the user decides, with B as the merge base. A
// file changed in the working folder since the entry that the variant did not touch is never looked at.
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { ABSENT, type Side } from '../code/codeState.js';
import type { SessionCode } from '../code/sessionCode.js';
import { privateBits } from '../fileMode.js';
import { readBatchCheck } from '../git/gitOutput.js';
import type { TreeFile } from '../git/gitOutput.js';
import type { SnapshotLine } from '../store/manifestLines.js';
import { CheckpointStore } from '../store/store.js';
import {
  diskSide,
  fingerprintOf,
  sameSide,
  sideInfo,
  type PlanAction,
  type PlanItem,
  type PlanSides,
  type RestorePlan,
} from './restorePlan.js';
import { linkAbove, neverCaptured } from './restoreGuards.js';

export interface AdoptFrom {
  /** The folder whose changes are adopted, and the session that runs there. */
  folder: string;
  sessionId: string;
  /** The folder's tree as checked out (CheckoutResult.tree), and the entry it holds the code of. */
  baseTree: string;
  baseEntry: string;
  /** Paths whose content at the entry is not known (CheckoutResult's unknown and leftOut). */
  unknownAtBase?: readonly string[];
  /** The entry the plan names as its target (the variant's leaf). */
  targetId: string | null;
}

/** The plan for bringing the changes of `from` into `sc`'s working folder. */
export async function planAdopt(sc: SessionCode, from: AdoptFrom): Promise<RestorePlan> {
  const store = CheckpointStore.existing(sc.opts.agentDir, from.folder, sc.opts.settings!, {
    program: sc.opts.program,
    env: sc.opts.env,
  });
  if (!store) throw new Error(`the variant's checkpoints are gone (${from.folder}); nothing to adopt`);
  const [base] = readBatchCheck(await store.run(['cat-file', '--batch-check'], { input: `${from.baseTree}\n` }));
  if (!base || 'missing' in base || base.type !== 'tree')
    throw new Error(`the code the variant started from is gone from its store (${from.baseTree.slice(0, 12)})`);
  const notes: string[] = [];
  let now: string;
  if (isFolder(from.folder)) {
    const snap = await store.scratchSnapshot(from.sessionId);
    now = snap.tree;
    const named = snap.skipped.filter((s) => !(from.unknownAtBase ?? []).includes(s.path));
    if (named.length)
      notes.push(
        `${named.length} file(s) of the variant are not captured and not adopted: ${named.map((s) => `${s.path} (${s.why})`).join(', ')}`,
      );
  } else {
    const latest = store.manifest(from.sessionId).findLast((l): l is SnapshotLine => l.kind !== 'off');
    if (!latest) throw new Error(`the variant's folder is gone (${from.folder}) and it has no snapshot to adopt from`);
    now = latest.tree;
    notes.push(`the variant's folder is gone: its latest snapshot (${latest.at}) is adopted`);
  }
  const changes = await store.diffTrees(from.baseTree, now);
  const unknownAtBase = new Set(from.unknownAtBase ?? []);
  const shas = new Set<string>();
  for (const c of changes) for (const s of [c.a, c.b]) if (s) shas.add(s.sha);
  const blobs = await store.readBlobs([...shas]);
  const side = (f: TreeFile | null): Side =>
    f ? { kind: 'file', sha: f.sha, mode: f.mode, bytes: blobs.get(f.sha) } : ABSENT;

  const items: PlanItem[] = [];
  const sides = new Map<string, PlanSides>();
  let same = 0;
  for (const c of changes) {
    const key = c.path;
    if (sc.excluded?.(key)) continue;
    const path = join(sc.cwd, key);
    const B: Side = unknownAtBase.has(key)
      ? { kind: 'unknown', why: 'its content at the node was not known when the variant was made' }
      : side(c.a);
    const link = linkAbove(key, sc.cwd);
    const never = neverCaptured(key, sc.cwd);
    const T: Side = link
      ? { kind: 'unknown', why: `${link} is a symbolic link in your folder; an adopt does not write beyond it` }
      : never
        ? { kind: 'unknown', why: never }
        : side(c.b);
    const U = diskSide(path);
    if (T.kind !== 'unknown' && sameSide(U, T)) {
      same++;
      continue;
    }
    let action: PlanAction;
    let reason: string | undefined;
    if (T.kind === 'unknown') {
      action = 'unrestorable';
      reason = T.why;
    } else if (B.kind === 'unknown') {
      action = 'conflict';
      reason = `pi-tree cannot tell whether it changed in your folder: ${B.why}`;
    } else if (!sameSide(U, B)) {
      action = 'conflict';
      reason =
        U.kind === 'unknown'
          ? U.why
          : B.kind === 'absent'
            ? 'created in your folder since the node, and the variant created it too'
            : 'changed in your folder since the node (by you, or a later turn)';
    } else action = T.kind === 'absent' ? 'delete' : U.kind === 'absent' ? 'create' : 'modify';
    items.push({
      key,
      path,
      action,
      now: sideInfo(U),
      target: sideInfo(T),
      latest: sideInfo(B),
      ...(reason ? { reason } : {}),
    });
    const perm = T.kind === 'file' ? permIn(from.folder, key) : undefined;
    sides.set(key, {
      now: U,
      target: T,
      latest: B,
      ...(action === 'conflict' && B.kind !== 'unknown' ? { base: B } : {}),
      ...(perm !== undefined ? { perm } : {}),
    });
  }
  return {
    targetId: from.targetId,
    from: { entryId: from.baseEntry, how: 'snapshot' },
    target: { how: 'snapshot' },
    items,
    same,
    sameKeys: [],
    notes,
    fingerprint: fingerprintOf(from.targetId, items),
    sides,
  };
}

function isFolder(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The private permission bits of the variant's file (a 0600 secret stays 0600 in the user's folder). */
function permIn(folder: string, key: string): number | undefined {
  try {
    const st = lstatSync(join(folder, key));
    return st.isFile() ? privateBits(st) : undefined;
  } catch {
    return undefined;
  }
}
