// `pi-tree adopt VARIANT_FILE`: a variant's file changes brought into the user's working folder with
// restore's rules (core/variants/variantAdopt.ts), and `--undo`. Run from the project's folder (or any
// folder inside it); human output escaped (safeText), --json exact; every failure is one line on stderr
// and a non-zero exit, with nothing written.
import { canonicalCwd, needsConfirming, planCounts, within, type RestorePlan } from '../core/checkpoints/index.js';
import { agentDirOf } from '../core/piClient/paths.js';
import {
  adoptVariant,
  openVariant,
  planVariantAdopt,
  undoVariantAdopt,
  type AdoptTarget,
} from '../core/variants/index.js';
import { args, UsageError } from './commands.js';
import type { CliIO } from './io.js';
import { safeText } from './safeText.js';

const USAGE =
  'pi-tree adopt VARIANT_FILE [--dry-run] [--force] [--json] [--allow-outside] | pi-tree adopt VARIANT_FILE --undo [--force] [--json]';

const json = (io: CliIO, v: unknown) => io.json(`${JSON.stringify(v, null, 2)}\n`);

export async function adopt(argv: string[], io: CliIO): Promise<number> {
  const opts = {
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
    force: { type: 'boolean' },
    undo: { type: 'boolean' },
    'allow-outside': { type: 'boolean' },
  } as const;
  const { values, positionals } = args(argv, opts, [1, 1], USAGE);
  if (values.undo && (values['dry-run'] || values['allow-outside']))
    throw new UsageError(`--undo takes only --force and --json\nusage: ${USAGE}`);
  const here = canonicalCwd(process.cwd());
  const t = await openVariant(positionals[0], {
    agentDir: agentDirOf(io.env),
    env: io.env,
    vouched: (cwd) => within(here, cwd),
  });
  if (values.undo) return undo(t, values, io);
  const plan = await planVariantAdopt(t);
  const counts = planCounts(plan);
  if (values['dry-run']) {
    if (values.json) json(io, planJson(t, plan));
    else printPlan(io, t, plan);
    return 0;
  }
  if (counts.conflict && !values.force) {
    const names = plan.items.filter((i) => i.action === 'conflict').map((i) => safeText(i.key));
    io.err(
      `${counts.conflict} file(s) changed in your folder since the node, that the variant changed too: ${names.join(', ')}; nothing written (--force takes the variant's version)\n`,
    );
    return 1;
  }
  const outside = needsConfirming(plan, t.sc.cwdVouched);
  if (outside.length && !values['allow-outside']) {
    io.err(
      `the working folder ${safeText(t.sc.cwd)} is not where pi keeps the session nor where you run pi-tree; ${outside.length} file(s) would be written there: ${outside.map(safeText).join(', ')}; nothing written (--allow-outside writes them)\n`,
    );
    return 1;
  }
  const r = await adoptVariant(t, plan, {
    force: !!values.force,
    confirmed: new Set(values['allow-outside'] ? outside : []),
  });
  for (const w of r.warnings) io.err(`warning: ${safeText(w)}\n`);
  const unadoptable = plan.items.filter((i) => i.action === 'unrestorable');
  if (values.json)
    json(io, {
      journal: r.journal.id,
      written: r.written,
      skipped: r.skipped,
      unadoptable: unadoptable.map((i) => ({ path: i.path, reason: i.reason })),
      same: plan.same,
    });
  else {
    io.out(`Adopted ${r.written.length} file(s) from the variant into ${safeText(t.sc.cwd)}\n`);
    for (const i of unadoptable) io.out(`  not adopted: ${safeText(i.key)} (${safeText(i.reason ?? '')})\n`);
    if (r.skipped.length) io.out(`  left as they are: ${r.skipped.map((s) => safeText(s.path)).join(', ')}\n`);
    io.out(`Undo with: pi-tree adopt ${safeText(positionals[0])} --undo\n`);
  }
  return 0;
}

async function undo(t: AdoptTarget, values: Record<string, string | boolean | undefined>, io: CliIO): Promise<number> {
  const r = await undoVariantAdopt(t, { force: !!values.force });
  if (r.conflicts.length) {
    io.err(
      `${r.conflicts.length} file(s) changed since the adopt: ${r.conflicts.map(safeText).join(', ')}; nothing written (--force puts them back anyway)\n`,
    );
    return 1;
  }
  if (values.json) json(io, { undone: r.journal.id, written: r.written, skipped: r.skipped });
  else
    io.out(
      `Put back ${r.written.length} file(s)${r.skipped.length ? `; left ${r.skipped.length} changed since: ${r.skipped.map((s) => safeText(s.path)).join(', ')}` : ''}\n`,
    );
  return 0;
}

function planJson(t: AdoptTarget, plan: RestorePlan): unknown {
  return {
    variant: t.record.id,
    project: t.sc.cwd,
    node: t.record.source.entryId,
    leafId: plan.targetId,
    counts: planCounts(plan),
    same: plan.same,
    items: plan.items.map((i) => ({
      path: i.path,
      key: i.key,
      action: i.action,
      ...(i.reason ? { reason: i.reason } : {}),
      now: i.now,
      node: i.latest,
      variant: i.target,
    })),
    notes: plan.notes,
    needsAllowOutside: needsConfirming(plan, t.sc.cwdVouched),
  };
}

function printPlan(io: CliIO, t: AdoptTarget, plan: RestorePlan): void {
  const c = planCounts(plan);
  io.out(
    `Adopting the variant ${safeText(t.record.id)} would change ${c.create + c.modify + c.delete} file(s) in ${safeText(t.sc.cwd)}: ${c.create} created, ${c.modify} modified, ${c.delete} deleted; ${c.conflict} conflict(s), ${c.unrestorable} not adoptable; ${plan.same} already as the variant has them\n`,
  );
  for (const i of plan.items)
    io.out(`  ${i.action.padEnd(12)} ${safeText(i.key)}${i.reason ? `  (${safeText(i.reason)})` : ''}\n`);
  for (const n of plan.notes) io.out(`  note: ${safeText(n)}\n`);
}
