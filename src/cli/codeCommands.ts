// `pi-tree checkpoints | restore | diff`: the code at a node of the tree. Human output shows
// paths and ids escaped (safeText); --json keeps them exact. Every failure is one line on stderr.
import { resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { agentDirOf } from '../core/piClient/paths.js';
import { actionKey, BridgeClient } from '../core/piClient/client.js';
import { verifyBridge } from '../core/piClient/peer.js';
import type { BridgeRecord } from '../core/piClient/protocol.js';
import {
  codeEntries,
  deleteCheckpoints,
  diffCodeNoted,
  finishPending,
  pendingJournals,
  planCode,
  putCodeBack,
  recordLeafMoved,
  redoCode,
  sessionCode,
  undoCode,
  writeCode,
  type CodeChange,
  type SessionCode,
} from '../core/checkpoints/index.js';
import type { Side } from '../core/checkpoints/index.js';
import { flipConflictWords, planCounts, planTally, planWords, type RestorePlan } from '../core/checkpoints/index.js';
import { needsConfirming } from '../core/checkpoints/index.js';
import { within } from '../core/checkpoints/index.js';
import { canonicalCwd, captureEnabled, readCheckpointSettings } from '../core/checkpoints/index.js';
import { captureBlocked } from '../core/checkpoints/index.js';
import { moveTarget } from '../core/session/moveTarget.js';
import { Session } from '../core/session/session.js';
import { runningPi } from './bridgeRouting.js';
import { args, UsageError } from './commands.js';
import type { CliIO } from './io.js';
import { safeText } from './safeText.js';

const json = (io: CliIO, v: unknown) => io.json(`${JSON.stringify(v, null, 2)}\n`);

/** A refusal: the one stderr line, and with --json the same on stdout, so a script reads it in every path. */
function refuse(io: CliIO, asJson: unknown, line: string, v: Record<string, unknown>): number {
  io.err(`${line}\n`);
  if (asJson) json(io, { ...v, written: [] });
  return 1;
}

async function open(file: string, io: CliIO): Promise<{ session: Session; sc: SessionCode }> {
  const session = await Session.open(resolve(file));
  // The user runs pi-tree for the folder they run it in (or pi's folder layout backs the session's).
  const here = canonicalCwd(process.cwd());
  const sc = sessionCode(session, { agentDir: agentDirOf(io.env), env: io.env, vouched: (cwd) => within(here, cwd) });
  return { session, sc };
}

const entryId = (session: Session, id: string): string | null => {
  if (id === 'root') return null;
  if (!session.index.get(id)) throw new Error(`no entry ${id} in this session`);
  return id;
};

export async function checkpoints(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = args(
    argv,
    { json: { type: 'boolean' }, delete: { type: 'boolean' } },
    [1, 1],
    'pi-tree checkpoints FILE [--json] [--delete]',
  );
  const { session, sc } = await open(positionals[0], io);
  if (values.delete) {
    const had = await deleteCheckpoints(agentDirOf(io.env), sc.cwd, String(session.header.id ?? ''));
    io.out(had ? `Deleted the checkpoints of ${safeText(positionals[0])}\n` : 'This session has no checkpoints.\n');
    return 0;
  }
  const list = await codeEntries(sc);
  // (home and root are never captured: no store, no 'off' line; the rule says why)
  const settings = readCheckpointSettings(agentDirOf(io.env));
  const off =
    sc.checkpoints.offReason() ??
    (captureEnabled(settings, sc.cwd) ? captureBlocked(settings, sc.cwd, { agentDir: agentDirOf(io.env) }) : undefined);
  if (values.json) {
    json(io, {
      entries: list.map((e) => ({ ...e, time: new Date(e.time).toISOString() })),
      ...(off ? { captureOff: off } : {}),
    });
    return 0;
  }
  const snaps = list.filter((e) => e.kind === 'snapshot').length;
  io.out(
    `${list.length} entries with a code state: ${snaps} from snapshots, ${list.length - snaps} from recorded edit/write calls\n`,
  );
  if (off) io.out(`capture is off for this session: ${safeText(off)}\n`);
  for (const e of list) {
    const kind = e.kind === 'snapshot' ? `snapshot (${e.snapshot})` : 'calls';
    const files = e.files.length
      ? `  ${e.files.slice(0, 3).map(safeText).join(', ')}${e.files.length > 3 ? ` (+${e.files.length - 3} more)` : ''}`
      : '';
    const skipped = e.skipped
      ? `  (${e.skipped.count} skipped: ${e.skipped.files
          .slice(0, 3)
          .map((f) => `${safeText(f.path)} ${f.why}`)
          .join(', ')}${e.skipped.count > 3 ? ', …' : ''})`
      : '';
    io.out(`${safeText(e.entryId)}  ${kind.padEnd(17)} ${new Date(e.time).toISOString()}${files}${skipped}\n`);
  }
  return 0;
}

const RESTORE_USAGE =
  'pi-tree restore FILE ID [--dry-run] [--json] [--force] [--conversation] [--allow-outside] | pi-tree restore FILE --undo|--redo [--force] [--json]';

type Values = Record<string, string | boolean | undefined>;

export async function restore(argv: string[], io: CliIO): Promise<number> {
  const opts = {
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
    force: { type: 'boolean' },
    conversation: { type: 'boolean' },
    undo: { type: 'boolean' },
    redo: { type: 'boolean' },
    'allow-outside': { type: 'boolean' },
  } as const;
  const { values, positionals } = args(argv, opts, [1, 2], RESTORE_USAGE);
  const flip = values.undo ? 'undo' : values.redo ? 'redo' : undefined;
  if (flip ? positionals.length !== 1 : positionals.length !== 2) throw new UsageError(`usage: ${RESTORE_USAGE}`);
  const { session, sc } = await open(positionals[0], io);
  // (a pi that runs the session but does not answer, stopped with Ctrl+Z, is refused: it would go on from its own leaf)
  const bridge = values['dry-run']
    ? undefined
    : await runningPi(resolve(positionals[0]), io.env, 'quit it to restore without pi');
  if (bridge) {
    verifyBridge(bridge, resolve(positionals[0]), io.env); // (a planted record is not driven: core/piClient/peer.ts)
    return viaPi(bridge.record, session, sc, positionals, values, io);
  }
  if (values['dry-run']) {
    if (pendingJournals(sc).length)
      io.err('a restore was interrupted: the next restore (without --dry-run) finishes it first\n');
  } else await finishInterrupted(session, sc, io);
  if (flip) return flipHere(session, sc, flip, values, io);
  const target = entryId(session, positionals[1]);
  const plan = await planCode(sc, target);
  if (values['dry-run']) {
    if (values.json) json(io, planJson(plan, sc));
    else printPlan(io, plan, sc);
    return 0;
  }
  return writeHere(session, sc, plan, positionals, values, io);
}

/** What a killed restore left, finished first: its files, and this session's conversation move still due. */
async function finishInterrupted(session: Session, sc: SessionCode, io: CliIO): Promise<void> {
  const done = await finishPending(sc);
  for (const j of done.finished)
    io.err(`finished a restore that was interrupted (${j.files.length} files, journal ${j.id})\n`);
  for (const w of done.warnings) io.err(`warning: ${safeText(w)}\n`);
  // (the conversation of an interrupted restore of this session moves once: not again when it is there)
  for (const j of done.leafDue) {
    const to = j.leaf!.targetId;
    if (session.leafId !== to) await session.moveTo(to);
    for (const w of (await recordLeafMoved(sc, j, to)).warnings) io.err(`warning: ${safeText(w)}\n`);
  }
}

/** --undo or --redo without pi: the journal's files flipped, the conversation with them when it moved. */
async function flipHere(
  session: Session,
  sc: SessionCode,
  flip: 'undo' | 'redo',
  values: Values,
  io: CliIO,
): Promise<number> {
  const r = await (flip === 'undo' ? undoCode : redoCode)(sc, { force: !!values.force });
  if (r.conflicts.length)
    return refuse(io, values.json, undoConflictLine(r.conflicts, flip), { conflicts: r.conflicts });
  // The conversation goes with the files when the restore moved it, unless it moved on since.
  const leafMoved = r.leaf ? await moveIfStill(session, r.leaf) : undefined;
  for (const w of r.warnings) io.err(`warning: ${safeText(w)}\n`);
  if (values.json)
    json(io, {
      [flip === 'undo' ? 'undone' : 'redone']: r.journal.id,
      written: r.written,
      skipped: r.skipped,
      ...(leafMoved ? { leafId: session.leafId } : {}),
    });
  else {
    const conv = leafMoved
      ? `, and moved the conversation ${flip === 'undo' ? 'back' : 'there again'}`
      : leafMoved === false
        ? '; the conversation moved on since the restore and stays where it is'
        : '';
    io.out(
      `${flip === 'undo' ? 'Put back' : 'Restored again'} ${r.written.length} file(s)${conv}${r.skipped.length ? `; left ${r.skipped.length} changed since: ${r.skipped.map((s) => safeText(s.path)).join(', ')}` : ''}\n`,
    );
  }
  return 0;
}

/**
 * A planned restore written without pi: refused while a conflict or a file outside is not allowed by
 * its flag, then the files, then (--conversation) the leaf, or the files back when the leaf cannot move.
 */
async function writeHere(
  session: Session,
  sc: SessionCode,
  plan: RestorePlan,
  positionals: string[],
  values: Values,
  io: CliIO,
): Promise<number> {
  if (planCounts(plan).conflict && !values.force) return refuseConflicts(io, values.json, plan);
  const outside = needsConfirming(plan, sc.cwdVouched);
  if (outside.length && !values['allow-outside']) return refuseOutside(io, values.json, outside, sc);
  const fromId = session.leafId;
  const move = values.conversation ? await moveTarget(session, plan.targetId) : undefined;
  const r = await writeCode(sc, plan, {
    force: !!values.force,
    confirmed: new Set(values['allow-outside'] ? outside : []),
    ...(move ? { leaf: { targetId: move.leaf, fromId } } : {}),
  });
  if (move) {
    // The files are written; the conversation follows, or the files go back.
    try {
      await session.moveTo(move.leaf);
    } catch (e) {
      const back = await putCodeBack(sc, r.journal);
      for (const w of [...r.warnings, ...back.warnings]) io.err(`warning: ${safeText(w)}\n`);
      throw e;
    }
    r.warnings.push(...(await recordLeafMoved(sc, r.journal, move.leaf)).warnings);
  }
  for (const w of r.warnings) io.err(`warning: ${safeText(w)}\n`);
  printRestored(io, values, plan, r, move?.leaf, positionals);
  return 0;
}

/** What a restore wrote, as JSON or in lines, with how to undo it. `leaf`: where the conversation moved. */
function printRestored(
  io: CliIO,
  values: Values,
  plan: RestorePlan,
  r: Awaited<ReturnType<typeof writeCode>>,
  leaf: string | null | undefined,
  positionals: string[],
): void {
  const unrestorable = plan.items.filter((i) => i.action === 'unrestorable');
  if (values.json) {
    json(io, {
      journal: r.journal.id,
      written: r.written,
      skipped: r.skipped,
      unrestorable: unrestorable.map((i) => i.path),
      ...(leaf !== undefined ? { leafId: leaf } : {}),
      ...(r.warnings.length ? { warnings: r.warnings } : {}),
    });
    return;
  }
  io.out(
    `Restored ${r.written.length} file(s) to the code at ${safeText(positionals[1])}${leaf !== undefined ? ', and moved the conversation there' : ''}\n`,
  );
  printUnrestorable(io, unrestorable);
  if (r.skipped.length) io.out(`  left as they are: ${r.skipped.map((s) => safeText(s.path)).join(', ')}\n`);
  io.out(`Undo with: pi-tree restore ${safeText(positionals[0])} --undo\n`);
}

/** The files a restore left as they are because it cannot restore them, each with why. */
function printUnrestorable(io: CliIO, items: readonly RestorePlan['items'][number][]): void {
  for (const i of items) io.out(`  not restorable: ${safeText(i.key)} (${safeText(i.reason ?? '')})\n`);
}

const undoConflictLine = (conflicts: readonly string[], step: 'undo' | 'redo') =>
  `${flipConflictWords(conflicts.length, step)}: ${conflicts.map(safeText).join(', ')} (--force ${step === 'redo' ? 'restores them again' : 'puts them back'} anyway)`;

function refuseConflicts(io: CliIO, asJson: unknown, plan: RestorePlan): number {
  const keys = plan.items.filter((i) => i.action === 'conflict').map((i) => i.key);
  const line = `${keys.length} file(s) changed outside the agent since the latest checkpoint: ${keys.map(safeText).join(', ')}; nothing written (--force takes the node's version)`;
  return refuse(io, asJson, line, { conflicts: keys });
}

function refuseOutside(io: CliIO, asJson: unknown, outside: readonly string[], sc: SessionCode): number {
  const line = `${outsideWords(outside, sc)}: ${outside.map(safeText).join(', ')}; nothing written (--allow-outside writes them)`;
  return refuse(io, asJson, line, { needsAllowOutside: outside });
}

/** Moves the leaf to `to` if it is still at `expect`; whether it moved (a failed move is a leaf that stays). */
async function moveIfStill(session: Session, leaf: { to: string | null; expect: string | null }): Promise<boolean> {
  try {
    await session.refresh();
    if (session.leafId !== leaf.expect) return false;
    await session.moveTo(leaf.to);
    return true;
  } catch {
    return false;
  }
}

/** Why these files need --allow-outside, in words. */
function outsideWords(paths: readonly string[], sc: SessionCode): string {
  const n = `${paths.length} file${paths.length === 1 ? '' : 's'}`;
  return sc.cwdVouched
    ? `${n} outside the session's working folder (${safeText(sc.cwd)}) would be written`
    : `the session's working folder ${safeText(sc.cwd)} is not where pi keeps it nor where you run pi-tree; ${n} would be written there`;
}

/**
 * The restore through the pi running the session: pi waits for its turn to end, files and leaf move as one.
 * Which pi did it is said once, in the output itself ("through pi PID", `viaPi` in JSON): the routed
 * commands, whose stdout is only an id, say it on stderr instead.
 */
async function viaPi(
  record: BridgeRecord,
  session: Session,
  sc: SessionCode,
  positionals: string[],
  values: Record<string, string | boolean | undefined>,
  io: CliIO,
): Promise<number> {
  const client = await BridgeClient.connect(record);
  try {
    const common = { waitMs: 10_000, key: actionKey(), ...(values.force ? { force: true } : {}) };
    if (values.undo || values.redo) {
      const r = await client.request('codeUndo', { ...common, ...(values.redo ? { redo: true } : {}) });
      if (r.conflicts.length)
        return refuse(io, values.json, undoConflictLine(r.conflicts, values.redo ? 'redo' : 'undo'), {
          conflicts: r.conflicts,
          viaPi: record.pid,
        });
      for (const w of r.warnings ?? []) io.err(`warning: ${safeText(w)}\n`);
      if (values.json) {
        json(io, {
          [values.redo ? 'redone' : 'undone']: r.journalId,
          written: r.written,
          ...(r.leafMoved ? { leafMoved: true } : {}),
          viaPi: record.pid,
        });
        return 0;
      }
      const conv = r.leafMoved
        ? `, and moved the conversation ${values.redo ? 'there again' : 'back'}`
        : r.leafStayed
          ? '; the conversation moved on since the restore and stays where it is'
          : '';
      io.out(
        `${values.redo ? 'Restored again' : 'Put back'} ${r.written.length} file(s) through pi ${record.pid}${conv}\n`,
      );
      return 0;
    }
    const target = entryId(session, positionals[1]);
    if (target === null)
      throw new Error('pi cannot move before the first entry; stop pi to restore the code at the root');
    const plan = await planCode(sc, target);
    if (planCounts(plan).conflict && !values.force) return refuseConflicts(io, values.json, plan);
    const outside = needsConfirming(plan, sc.cwdVouched);
    if (outside.length && !values['allow-outside']) return refuseOutside(io, values.json, outside, sc);
    const r = await client.request('restoreCode', {
      ...common,
      targetId: target,
      fingerprint: plan.fingerprint,
      ...(values.conversation ? { conversation: true } : {}),
      ...(outside.length ? { allowOutside: outside } : {}),
    });
    for (const w of r.warnings ?? []) io.err(`warning: ${safeText(w)}\n`);
    const unrestorable = plan.items.filter((i) => i.action === 'unrestorable');
    if (values.json)
      json(io, {
        journal: r.journalId,
        written: r.written,
        skipped: r.skipped,
        unrestorable: unrestorable.map((i) => i.path),
        leafId: r.leafId,
        viaPi: record.pid,
      });
    else {
      io.out(
        `Restored ${r.written.length} file(s) to the code at ${safeText(target)} through pi ${record.pid}${values.conversation ? ', and moved the conversation there' : ''}\n`,
      );
      printUnrestorable(io, unrestorable);
    }
    return 0;
  } finally {
    client.close();
  }
}

function planJson(plan: RestorePlan, sc: SessionCode): unknown {
  return {
    targetId: plan.targetId,
    from: plan.from,
    target: plan.target,
    counts: planCounts(plan),
    tally: planTally(plan),
    same: plan.same,
    items: plan.items.map((i) => ({
      path: i.path,
      key: i.key,
      action: i.action,
      ...(i.reason ? { reason: i.reason } : {}),
      ...(i.outside ? { outside: true } : {}),
      now: i.now,
      target: i.target,
    })),
    notes: plan.notes,
    needsAllowOutside: needsConfirming(plan, sc.cwdVouched),
  };
}

function printPlan(io: CliIO, plan: RestorePlan, sc: SessionCode): void {
  // (the words the editor uses for the same plan: planWords.ts)
  io.out(
    `Restoring the code at ${safeText(plan.targetId ?? 'root')}: ${planWords(planTally(plan))}; ${plan.same} already as there\n`,
  );
  for (const i of plan.items)
    io.out(`  ${i.action.padEnd(12)} ${safeText(i.key)}${i.reason ? `  (${safeText(i.reason)})` : ''}\n`);
  for (const n of plan.notes) io.out(`  note: ${safeText(n)}\n`);
  const outside = needsConfirming(plan, sc.cwdVouched);
  if (outside.length) io.out(`  ${outsideWords(outside, sc)} (--allow-outside): ${outside.map(safeText).join(', ')}\n`);
}

export async function diff(argv: string[], io: CliIO): Promise<number> {
  const usage = 'pi-tree diff FILE A [B] [--name-only] [--json]';
  const { values, positionals } = args(
    argv,
    { 'name-only': { type: 'boolean' }, json: { type: 'boolean' } },
    [2, 3],
    usage,
  );
  const { session, sc } = await open(positionals[0], io);
  const a = entryId(session, positionals[1]);
  const b = positionals[2] === undefined ? 'now' : entryId(session, positionals[2]);
  const { changes, notes } = await diffCodeNoted(sc, a, b);
  // (what the diff cannot know goes to stderr: stdout stays a patch, a name list or JSON)
  const unknown = changes.filter((c) => c.status === 'unknown').map((c) => safeText(c.key));
  if (unknown.length)
    io.err(
      `${unknown.length} file(s) whose content pi-tree cannot know here (shown as ?): ${unknown.slice(0, 10).join(', ')}${unknown.length > 10 ? ', …' : ''}\n`,
    );
  for (const n of notes) io.err(`note: ${safeText(n)}; such files are not listed\n`);
  if (values.json) {
    json(
      io,
      changes.map((c) => ({ path: c.path, key: c.key, status: c.status, a: sideJson(c.a), b: sideJson(c.b) })),
    );
    return 0;
  }
  const letter = { added: 'A', modified: 'M', deleted: 'D', unknown: '?' } as const;
  if (values['name-only']) {
    for (const c of changes) io.out(`${letter[c.status]}\t${safeText(c.key)}\n`);
    return 0;
  }
  const nameB = b === 'now' ? 'now' : (positionals[2] ?? '');
  for (const c of changes) io.out(patchOf(c, positionals[1], nameB));
  return 0;
}

const sideJson = (s: Side) =>
  s.kind === 'file' ? { sha: s.sha, mode: s.mode.toString(8) } : s.kind === 'unknown' ? { unknown: s.why } : null;

function patchOf(c: CodeChange, nameA: string, nameB: string): string {
  const label = safeText(c.key);
  if (c.a.kind === 'unknown' || c.b.kind === 'unknown') {
    const why =
      c.a.kind === 'unknown'
        ? `not known at ${nameA}: ${c.a.why}`
        : c.b.kind === 'unknown'
          ? `not known at ${nameB}: ${c.b.why}`
          : '';
    return `# ${label}: ${safeText(why)}\n`;
  }
  const bytesA = c.a.kind === 'file' ? c.a.bytes : Buffer.alloc(0);
  const bytesB = c.b.kind === 'file' ? c.b.bytes : Buffer.alloc(0);
  if (isBinary(bytesA) || isBinary(bytesB)) return `Binary file ${label} differs\n`;
  const patch = createTwoFilesPatch(
    c.a.kind === 'absent' ? '/dev/null' : `a/${c.key}`,
    c.b.kind === 'absent' ? '/dev/null' : `b/${c.key}`,
    bytesA?.toString('utf8') ?? '',
    bytesB?.toString('utf8') ?? '',
    nameA,
    nameB,
  );
  return patch
    .split('\n')
    .map((line) => line.split('\t').map(safeText).join('\t'))
    .join('\n');
}

const isBinary = (b: Buffer | undefined) => !!b && b.subarray(0, 8000).includes(0);
