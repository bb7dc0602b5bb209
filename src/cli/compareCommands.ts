// `pi-tree compare`, `pi-tree files` and `pi-tree export`: two branches side by side, the code changes
// on a branch, and a branch as Markdown (the same core the extension's compare view and details use).
import { resolve } from 'node:path';
import { changesOnPath, summarizeFiles } from '../core/changes/branchChanges.js';
import { alignTurns, pathOf, splitPaths, summarizeSide, turnsOf } from '../core/changes/compare.js';
import { exportBranch } from '../core/changes/exportMarkdown.js';
import { Session } from '../core/session/session.js';
import { args } from './commands.js';
import type { CliIO } from './io.js';
import { safeText } from './safeText.js';

const json = (io: CliIO, v: unknown) => io.json(`${JSON.stringify(v, null, 2)}\n`);

function entryId(session: Session, id: string): string {
  if (!session.index.get(id)) throw new Error(`Entry ${id} not found in ${session.path ?? 'the session'}`);
  return id;
}

export async function compare(argv: string[], io: CliIO): Promise<number> {
  const usage = 'pi-tree compare FILE ID_A ID_B [--with FILE_B] [--json]';
  const { values, positionals } = args(argv, { json: { type: 'boolean' }, with: { type: 'string' } }, [3, 3], usage);
  const a = await Session.open(resolve(positionals[0]));
  const b = values.with ? await Session.open(resolve(values.with as string)) : a;
  const split = splitPaths(a, pathOf(a, entryId(a, positionals[1])), b, pathOf(b, entryId(b, positionals[2])));
  const since = split.ancestorId ? a.index.get(split.ancestorId)?.time : undefined;
  const [sa, sb] = [await summarizeSide(a, split.a, since), await summarizeSide(b, split.b, since)];
  const side = (session: Session, recs: Int32Array, s: typeof sa) => ({
    ids: Array.from(recs, (i) => session.index.idOf(i)),
    files: s.files,
    totals: s.totals,
  });
  if (values.json) {
    json(io, { ancestorId: split.ancestorId, a: side(a, split.a, sa), b: side(b, split.b, sb) });
    return 0;
  }
  const rows = alignTurns(turnsOf(a, split.a), turnsOf(b, split.b));
  io.out(
    `common ancestor: ${split.ancestorId === null ? '(none: the paths share no entry)' : safeText(split.ancestorId)} (${split.common} shared entries)\n`,
  );
  for (const [name, session, recs, s] of [
    ['A', a, split.a, sa],
    ['B', b, split.b, sb],
  ] as const) {
    const t = s.totals;
    io.out(
      `${name} ${recs.length ? safeText(session.index.idOf(recs[recs.length - 1])) : '(the ancestor itself)'}: ${t.entries} entries, ${t.messages} messages, ${t.turns} turns, ${t.tokens.input} in / ${t.tokens.output} out tokens, $${t.cost.toFixed(4)}, ${(t.wallMs / 60000).toFixed(1)} min\n`,
    );
    if (t.models.length) io.out(`  models: ${t.models.map((m) => safeText(`${m.provider}/${m.model}`)).join(', ')}\n`);
    if (s.files.length) io.out(`  files: ${s.files.map(safeText).join(', ')}\n`);
  }
  io.out(`${rows.length} aligned turns\n`);
  return 0;
}

export async function files(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = args(argv, { json: { type: 'boolean' } }, [1, 2], 'pi-tree files FILE [ID] [--json]');
  const s = await Session.open(resolve(positionals[0]));
  // (no entries yet: the leaf is the root, and the branch to it changed nothing)
  const id = positionals[1] ?? s.leafId;
  const entries = id === null ? [] : await changesOnPath(s, s.index.branch(entryId(s, id)));
  if (values.json) {
    json(io, { id, entries, files: summarizeFiles(entries) });
    return 0;
  }
  for (const e of entries) {
    for (const c of e.changes) {
      const what = c.tool === 'bash' ? `bash ${c.op}` : c.tool;
      io.out(
        `${safeText(e.entryId)}  ${what.padEnd(12)} ${safeText(c.path)}  +${c.added} -${c.removed}${c.failed ? '  (failed)' : ''}\n`,
      );
    }
  }
  if (!entries.length) io.out('No file changes on this branch.\n');
  return 0;
}

export async function exportCmd(argv: string[], io: CliIO): Promise<number> {
  const { positionals } = args(argv, {}, [2, 2], 'pi-tree export FILE ID');
  const s = await Session.open(resolve(positionals[0]));
  // (CRLF as LF; the other controls are shown as visible escapes by io.out, as in every command)
  await exportBranch(s, entryId(s, positionals[1]), (chunk) => io.out(chunk.replace(/\r\n/g, '\n')));
  return 0;
}
