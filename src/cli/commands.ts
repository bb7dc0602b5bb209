// The session commands of `pi-tree` (a stable contract that scripts and tests call). Each returns an
// exit code: 0 success, 1 failure (one line on stderr), 2 usage error.
import { realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { collectSessionTemps } from '../core/session/leftovers.js';
import { moveTarget } from '../core/session/moveTarget.js';
import { computeStats } from '../core/context/stats.js';
import { noteUsage, UsageColumns } from '../core/context/usageColumns.js';
import { RowFacts } from './tree/rowFacts.js';
import { noteRows } from './tree/rowNotes.js';
import { idsJson } from '../core/index/idKeys.js';
import { chunked, type ChunkedOut } from './tree/chunkedOut.js';
import { SessionRepository } from '../core/session/repository.js';
import { Session } from '../core/session/session.js';
import { FILTER_MODES, streamTree, type FilterMode } from './tree/treeText.js';
import type { CliIO } from './io.js';
import { safeText, terminalJson } from './safeText.js';
import { jsonExact } from '../shared/safeJson.js';
import { asText } from '../core/format/values.js';

export class UsageError extends Error {
  override name = 'UsageError';
}

export function args(
  argv: string[],
  options: ParseArgsConfig['options'],
  positionals: [min: number, max: number],
  usage: string,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\nusage: ${usage}`);
  }
  const n = parsed.positionals.length;
  if (n < positionals[0] || n > positionals[1]) throw new UsageError(`usage: ${usage}`);
  return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals };
}

/** How many of a session's problems `tree` prints. */
const MAX_WARNINGS = 20;

const json = (io: CliIO, v: unknown) => io.json(`${JSON.stringify(v, null, 2)}\n`);

async function openSession(file: string): Promise<Session> {
  return Session.open(resolve(file));
}

/**
 * Before a command writes beside FILE (a fork's or clone's new file, the rewrite of an older format):
 * the temp copies that pi-tree runs killed mid-write left in that folder, and beside the file a link
 * leads to, are collected (leftovers.ts: only pi-tree's names, this user's, untouched for 10 minutes).
 */
export async function collectBeside(file: string): Promise<void> {
  const path = resolve(file);
  const real = await realpath(path).catch(() => path);
  for (const dir of new Set([dirname(path), dirname(real)])) await collectSessionTemps(dir);
}

/** A session a command is about to change (collectBeside first). */
async function openForWrite(file: string): Promise<Session> {
  await collectBeside(file);
  return openSession(file);
}

export async function ls(argv: string[], io: CliIO): Promise<number> {
  const { values } = args(
    argv,
    { cwd: { type: 'string' }, all: { type: 'boolean' }, json: { type: 'boolean' } },
    [0, 0],
    'pi-tree ls [--cwd DIR] [--all] [--json]',
  );
  const repo = new SessionRepository({ env: io.env });
  const cwd = resolve((values.cwd as string | undefined) ?? process.cwd());
  const onSkip = (file: string, reason: string) => io.err(`warning: ${safeText(file)}: ${safeText(reason)}\n`);
  const list = values.all ? await repo.listAll({ onSkip }) : await repo.list(cwd, { onSkip });
  if (values.json) {
    json(
      io,
      list.map((i) => ({
        path: i.path,
        id: i.id,
        cwd: i.cwd,
        name: i.name,
        parentSessionPath: i.parentSessionPath,
        created: i.created.toISOString(),
        modified: i.modified.toISOString(),
        messageCount: i.messageCount,
        firstMessage: i.firstMessage,
      })),
    );
    return 0;
  }
  if (!list.length) {
    io.out(
      `No pi sessions ${safeText(values.all ? `under ${repo.sessionsRoot}` : `for ${cwd} (looked in ${repo.dirFor(cwd)})`)}.\n`,
    );
    return 0;
  }
  for (const i of list) {
    const title = safeText((i.name ?? i.firstMessage).replace(/\s+/g, ' ').slice(0, 80));
    io.out(
      `${i.modified.toISOString()}  ${String(i.messageCount).padStart(5)} msgs  ${title}\n    ${safeText(i.path)}\n`,
    );
  }
  return 0;
}

// The constant parts of a tree row, as bytes
const GAP = Buffer.from('  ');
const MARKER = Buffer.from('• ');
const ACTIVE_END = Buffer.from('  ← active\n');
const LINE_END = Buffer.from('\n');

export async function tree(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = args(
    argv,
    { json: { type: 'boolean' }, filter: { type: 'string' } },
    [1, 1],
    `pi-tree tree FILE [--json] [--filter ${FILTER_MODES.join('|')}]`,
  );
  const mode = ((values.filter as string | undefined) ?? (values.json ? 'all' : 'default')) as FilterMode;
  if (!FILTER_MODES.includes(mode)) throw new UsageError(`--filter must be one of ${FILTER_MODES.join(', ')}`);
  // What each row shows is noted while the file is read (the file is read once).
  const noted = new RowFacts();
  const session = await Session.open(resolve(positionals[0]), { onMessageLine: noteRows(noted) });
  // Rows are written as they are laid out: a million-entry tree is never held whole.
  const out = chunked(io, values.json ? io.json : io.out);
  if (values.json) {
    await treeJson(session, mode, noted, out);
    return 0;
  }
  await treeText(session, mode, noted, out);
  // (the first ones: a file of garbage would print a line per line it has)
  const warnings = session.diagnostics.filter((d) => d.severity !== 'info');
  for (const d of warnings.slice(0, MAX_WARNINGS))
    io.err(`warning: ${d.line ? `line ${d.line}: ` : ''}${safeText(d.message)}\n`);
  if (warnings.length > MAX_WARNINGS) io.err(`warning: and ${warnings.length - MAX_WARNINGS} more\n`);
  return 0;
}

/** The tree as JSON.stringify(…, null, 2) writes the whole object, with the nodes streamed in. */
async function treeJson(session: Session, mode: FilterMode, noted: RowFacts, out: ChunkedOut): Promise<void> {
  const ix = session.index;
  const head = JSON.stringify(
    {
      sessionId: session.header.id,
      name: session.name,
      leafId: session.leafId,
      path: Array.from(ix.branchIdx(ix.leafRecord), (i) => ix.idOf(i)),
      diagnostics: session.diagnostics,
      nodes: [],
    },
    null,
    2,
  );
  out.add(head.slice(0, head.lastIndexOf('[]')));
  let first = true;
  const rows = await streamTree(
    session,
    mode,
    (r) => {
      const node = {
        id: ix.idOf(r.i),
        parentId: ix.parentIdOf(r.i),
        visibleParentId: r.visibleParent >= 0 ? ix.idOf(r.visibleParent) : null,
        type: ix.typeOf(r.i),
        role: ix.roleOf(r.i),
        label: r.label,
        onPath: r.onPath,
        isLeaf: r.isLeaf,
        line: ix.lineOf(r.i),
        // (what the regular expression takes off the whole line: the prefix, made of nothing else, is not made)
        text: `${r.marker}${r.text()}`.replace(/^[\s│├└─]*(• )?/, ''),
      };
      out.add(`${first ? '[\n    ' : ',\n    '}${JSON.stringify(node, null, 2).replace(/\n/g, '\n    ')}`);
      first = false;
    },
    undefined,
    noted,
  );
  out.add(rows ? '\n  ]\n}\n' : '[]\n}\n');
  out.flush();
}

/** The tree as pi's /tree draws it, a row per line, the active leaf marked. */
async function treeText(session: Session, mode: FilterMode, noted: RowFacts, out: ChunkedOut): Promise<void> {
  const ix = session.index;
  const title = session.name ? `Session Tree: ${safeText(session.name)}` : 'Session Tree';
  out.add(`${title}\n`);
  const rows = await streamTree(
    session,
    mode,
    (r) => {
      const key = ix.idKeyOf(r.i);
      if (key >= 0) out.addHexId(key);
      else out.add(safeText(ix.idOf(r.i)));
      out.addBytes(GAP, 0, GAP.length);
      out.addPrefix(r.prefix); // connectors only: nothing in it needs escaping
      if (r.onPath) out.addBytes(MARKER, 0, MARKER.length);
      if (r.label) out.add(safeText(`[${r.label}] `));
      r.facts.writeText(r.i, out, safeText);
      const end = r.isLeaf ? ACTIVE_END : LINE_END;
      out.addBytes(end, 0, end.length);
    },
    undefined,
    noted,
  );
  out.add(`(${rows} shown${mode === 'default' ? '' : ` [${mode}]`})\n`);
  out.flush();
}

export async function context(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = args(
    argv,
    { leaf: { type: 'string' }, json: { type: 'boolean' } },
    [1, 1],
    'pi-tree context FILE [--leaf ID] --json',
  );
  const session = await openSession(positionals[0]);
  let leaf: string | null = session.leafId;
  if (values.leaf !== undefined) {
    leaf = values.leaf === 'root' ? null : (values.leaf as string);
    if (leaf !== null && !session.index.get(leaf)) throw new Error(`Entry ${leaf} not found`);
  }
  if (values.json) {
    // Streamed: each batch of messages is written as it is built, so a huge context is never whole in memory.
    const ix = session.index;
    const path = ix.branchIdx(leaf === null ? -1 : ix.lookup(leaf));
    io.json(`{"leafId":${JSON.stringify(leaf)},"path":`);
    io.json(idsJson(ix, path));
    io.json(`,"messages":[`);
    let first = true;
    const rest = await session.streamContextRaw(leaf, (items) => {
      // One write per batch, assembled in one buffer: stored messages are copied as they are.
      // Built messages (summaries, custom messages) are the objects pi's buildSessionContext returns; jsonExact
      // writes JSON.stringify's text for them, also for one nested past its stack (where it would throw).
      const parts = items.map((m) => ('raw' in m && Buffer.isBuffer(m.raw) ? m.raw : Buffer.from(jsonExact(m) ?? '')));
      if (!parts.length) return;
      let size = parts.length - (first ? 1 : 0);
      for (const p of parts) size += p.length;
      const out = Buffer.allocUnsafe(size);
      let at = 0;
      for (const p of parts) {
        if (!first) out[at++] = 0x2c; // ","
        first = false;
        at += p.copy(out, at);
      }
      io.json(out);
    });
    io.json(`],"thinkingLevel":${jsonExact(rest.thinkingLevel)},"model":${jsonExact(rest.model)}}\n`);
    return 0;
  }
  const ctx = await session.buildContext(leaf);
  // asText: a field that is an object (one nested past the stack makes String() throw) reads "[object]"
  const model = ctx.model ? `${asText(ctx.model.provider)}/${asText(ctx.model.modelId)}` : '(none)';
  io.out(
    safeText(
      `leaf ${leaf ?? '(root)'}: ${ctx.messages.length} messages, thinking ${asText(ctx.thinkingLevel)}, model ${model}`,
    ) + '\n',
  );
  for (const m of ctx.messages) io.out(`- ${safeText(asText(m.role))}\n`);
  return 0;
}

/**
 * The arguments of the commands that go through a running pi (bridgeRouting.ts parses them the same
 * way, so that an argument one accepts is never refused by the other).
 */
export const ROUTED_ARGS = {
  move: {
    options: { 'summary-text': { type: 'string' }, exact: { type: 'boolean' } },
    positionals: [2, 2],
    usage: 'pi-tree move FILE ID|root [--exact] [--summary-text TEXT]',
  },
  label: { options: {}, positionals: [2, 3], usage: 'pi-tree label FILE ID [TEXT]' },
  name: { options: {}, positionals: [2, 2], usage: 'pi-tree name FILE TEXT' },
  fork: { options: {}, positionals: [2, 2], usage: 'pi-tree fork FILE USER_ENTRY_ID' },
  clone: { options: {}, positionals: [1, 2], usage: 'pi-tree clone FILE [ID]' },
} satisfies Record<string, { options: ParseArgsConfig['options']; positionals: [number, number]; usage: string }>;

const routedArgs = (argv: string[], name: keyof typeof ROUTED_ARGS) =>
  args(argv, ROUTED_ARGS[name].options, ROUTED_ARGS[name].positionals as [number, number], ROUTED_ARGS[name].usage);

export async function move(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = routedArgs(argv, 'move');
  const session = await openForWrite(positionals[0]);
  const picked = positionals[1] === 'root' ? null : positionals[1];
  // pi's rule (a user message puts the leaf on its parent and hands its text back), unless --exact.
  const { leaf, editorText } = values.exact
    ? { leaf: picked, editorText: undefined }
    : await moveTarget(session, picked);
  const text = values['summary-text'] as string | undefined;
  const r = await session.moveTo(
    leaf,
    text !== undefined ? { summary: text, details: { readFiles: [], modifiedFiles: [] }, fromHook: false } : undefined,
  );
  if (!r.moved) io.err('Already at this point: nothing written.\n');
  // (a JSON line by default, read by people too: what JSON.stringify leaves raw of C1 and bidi as \u escapes)
  io.json(
    `${terminalJson(JSON.stringify({ leafId: r.leafId, leafRecordId: r.leafRecordId, summaryId: r.summaryId, ...(editorText !== undefined ? { editorText } : {}) }))}\n`,
  );
  return 0;
}

export async function label(argv: string[], io: CliIO): Promise<number> {
  const { positionals } = routedArgs(argv, 'label');
  const session = await openForWrite(positionals[0]);
  const id = await session.setLabel(positionals[1], positionals[2]);
  io.out(`${safeText(id)}\n`);
  return 0;
}

export async function name(argv: string[], io: CliIO): Promise<number> {
  const { positionals } = routedArgs(argv, 'name');
  const session = await openForWrite(positionals[0]);
  const id = await session.setName(positionals[1]);
  io.out(`${safeText(id)}\n`);
  return 0;
}

export async function fork(argv: string[], io: CliIO): Promise<number> {
  const { positionals } = routedArgs(argv, 'fork');
  const session = await openForWrite(positionals[0]);
  const { file } = await new SessionRepository({ env: io.env }).fork(session, positionals[1]);
  io.out(`${safeText(file)}\n`);
  return 0;
}

export async function clone(argv: string[], io: CliIO): Promise<number> {
  const { positionals } = routedArgs(argv, 'clone');
  const session = await openForWrite(positionals[0]);
  const file = await new SessionRepository({ env: io.env }).clone(session, positionals[1] ?? session.leafId);
  io.out(`${safeText(file)}\n`);
  return 0;
}

export async function stats(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = args(argv, { json: { type: 'boolean' } }, [1, 1], 'pi-tree stats FILE --json');
  // The usage figures are noted while the file is read, so that it is read once.
  const noted = new UsageColumns();
  const session = await Session.open(resolve(positionals[0]), { onMessageLine: noteUsage(noted) });
  const s = await computeStats(session, undefined, noted);
  if (values.json) json(io, s);
  else {
    io.out(
      `${safeText(s.name ?? s.sessionId)}: ${s.entries} entries, ${s.messages} messages, ${s.tokens.total} tokens, $${s.cost.toFixed(4)}\n`,
    );
    io.out(`path ${s.pathLength} entries, ${s.branchPoints} branch points, ${s.tips} tips, ${s.labels} labels\n`);
    for (const m of s.models) io.out(`  ${safeText(`${m.provider}/${m.model}`)}: ${m.messages} messages\n`);
  }
  return 0;
}
