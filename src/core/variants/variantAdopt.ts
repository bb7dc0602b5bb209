// Adopting a variant: its file changes brought into the user's working folder with restore's rules
// (restore/adoptPlan.ts: only what the variant changed since the node; the user's file still as at the
// node → written, already as the variant has it → nothing, anything else → a conflict, refused and named
// unless forced or resolved). Written and undone by restore's machinery: the project's one-restore-at-a-
// time lock, the journal (kept under the variant's session file, which the undo names), files written
// whole. The plan is a RestorePlan, so the editor shows it as it shows a restore's preview.
import { resolve } from 'node:path';
import {
  finishPending,
  planAdopt,
  recordLeafMoved,
  sessionCode,
  undoAdopt,
  writeAdopt,
  type CheckpointSettings,
  type RestorePlan,
  type SessionCode,
} from '../checkpoints/index.js';
import { readHeader } from '../index/sessionHeader.js';
import { Session } from '../session/session.js';
import { alive, updateVariant, variantOfSession, type VariantRecord } from './variantRecords.js';

export interface AdoptOptions {
  agentDir: string;
  /** Whether the user runs pi-tree for the project's folder (see CodeOptions.vouched). */
  vouched?: (cwd: string) => boolean;
  settings?: CheckpointSettings;
  program?: string;
  env?: NodeJS.ProcessEnv;
  lockWaitMs?: number;
}

/** A variant opened for adopting: its record, the session it came from and that session's code side. */
export interface AdoptTarget {
  record: VariantRecord;
  /** The code side of the project's session (where the files go). */
  sc: SessionCode;
  /** The variant's session, where its leaf is. */
  variant: Session;
}

/** Opens the variant whose session is `variantFile` for adopting (its record must say pi-tree made it). */
export async function openVariant(variantFile: string, o: AdoptOptions): Promise<AdoptTarget> {
  const file = resolve(variantFile);
  const header = readHeader(file);
  if (!header) throw new Error(`${variantFile} is not a session file`);
  const record = typeof header.cwd === 'string' ? variantOfSession(o.agentDir, file, header.cwd) : undefined;
  if (!record) throw new Error(`${variantFile} is not a variant pi-tree made (no record of it under ${o.agentDir})`);
  if (!record.code) throw new Error(`the variant ${record.id} was never made whole (${record.state}); discard it`);
  const source = await Session.open(record.source.sessionFile).catch(() => {
    throw new Error(`the session the variant came from is gone (${record.source.sessionFile})`);
  });
  const sc = sessionCode(source, {
    agentDir: o.agentDir,
    settings: o.settings,
    program: o.program,
    env: o.env,
    vouched: o.vouched,
    lockWaitMs: o.lockWaitMs,
  });
  return { record, sc, variant: await Session.open(file) };
}

/** The adopt's preview: a restore plan whose sides the editor's multi-file diff shows (target: the variant's). */
export async function planVariantAdopt(t: AdoptTarget): Promise<RestorePlan> {
  const rec = t.record;
  if (rec.state === 'running' && alive(rec.pid))
    throw new Error(`the variant is running (pid ${rec.pid}); adopt it once its turn is done`);
  return planAdopt(t.sc, {
    folder: rec.folder,
    sessionId: rec.id,
    baseTree: rec.code!.tree,
    baseEntry: rec.source.entryId,
    unknownAtBase: [...rec.code!.unknown.map((u) => u.path), ...rec.code!.leftOut.map((l) => l.path)],
    targetId: t.variant.leafId,
  });
}

/** Options of the write: conflicts resolved per file, or all taken as the variant's (`force`). */
export type AdoptWriteOptions = Omit<Parameters<typeof writeAdopt>[2], 'journalOf'>;

/**
 * Writes the plan into the project's folder (a restore killed half way is finished first) and notes
 * the adopt in the variant's record. Throws, writing nothing, when a file changed since the preview.
 */
export async function adoptVariant(
  t: AdoptTarget,
  plan: RestorePlan,
  o: AdoptWriteOptions = {},
): Promise<Awaited<ReturnType<typeof writeAdopt>> & { warnings: string[] }> {
  const done = await finishInterrupted(t);
  const r = await writeAdopt(t.sc, plan, { ...o, journalOf: t.variant.path! });
  const rec = t.record;
  const adopted = [...(rec.adopted ?? []), { at: r.journal.at, journal: r.journal.id, files: r.written.length }];
  const warnings = [...done.warnings];
  try {
    t.record = updateVariant(t.sc.opts.agentDir, rec.project, rec.id, { state: 'adopted', adopted });
  } catch (e) {
    warnings.push(`the files were adopted, but the variant's record could not say so (${(e as Error).message})`);
  }
  return { ...r, warnings };
}

/** Finishes a restore a kill left half done; one of the project's session that had not moved the conversation yet moves it as the CLI's restore does. */
async function finishInterrupted(t: AdoptTarget): Promise<{ warnings: string[] }> {
  const done = await finishPending(t.sc);
  const warnings = [...done.warnings];
  for (const j of done.leafDue) {
    const to = j.leaf!.targetId;
    if (t.sc.session.leafId !== to) await t.sc.session.moveTo(to);
    warnings.push(...(await recordLeafMoved(t.sc, j, to)).warnings);
  }
  return { warnings };
}

/** Puts back what the variant's last adopt replaced in the project's folder (changed files since: conflicts, unless `force`). */
export async function undoVariantAdopt(
  t: AdoptTarget,
  o: { force?: boolean } = {},
): Promise<Awaited<ReturnType<typeof undoAdopt>>> {
  await finishInterrupted(t);
  const r = await undoAdopt(t.sc, t.variant.path!, o);
  if (!r.conflicts.length) {
    const rec = t.record;
    const adopted = (rec.adopted ?? []).map((a) =>
      a.journal === r.journal.id ? { ...a, undone: new Date().toISOString() } : a,
    );
    try {
      t.record = updateVariant(t.sc.opts.agentDir, rec.project, rec.id, {
        adopted,
        ...(adopted.every((a) => a.undone) && rec.state === 'adopted' ? { state: 'done' as const } : {}),
      });
    } catch {
      // the files are back; the record only lags
    }
  }
  return r;
}
