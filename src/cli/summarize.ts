// `pi-tree summarize` and `pi-tree compact`: the same branch summary and compaction as the extension,
// headless, against an OpenAI-compatible endpoint. Exit 0 on success, 1 with one line on stderr when
// something is wrong, 2 for usage errors.
import { resolve } from 'node:path';
import { OpenAICompatibleModel, type ModelPrices } from '../core/models/openaiCompatible.js';
import { NotASessionError } from '../core/index/reader.js';
import { EntryNotFoundError, Session } from '../core/session/session.js';
import {
  budgetOf,
  commitBranchSummary,
  commitCompaction,
  DEFAULT_BRANCH_RESERVE_TOKENS,
  DEFAULT_COMPACTION_SETTINGS,
  planBranchSummary,
  planCompaction,
  previewBranchSummary,
  previewCompaction,
  summarizeBranch,
  summarizeCompaction,
} from '../core/summary/index.js';
import { runningPi } from './bridgeRouting.js';
import { collectBeside } from './commands.js';
import type { CliIO } from './io.js';
import { safeText } from './safeText.js';

export const SUMMARIZE_USAGE =
  'usage: pi-tree summarize FILE TARGET_ID [--focus TEXT] --endpoint URL --model M [--api-key-env VAR] [--context-window N] [--reserve-tokens N] [--max-tokens N] [--timeout SECONDS] [--no-stream] [--dry-run] [--file-only] [--price-input USD_PER_MTOK --price-output USD_PER_MTOK [--price-cache-read …] [--price-cache-write …]]';
export const COMPACT_USAGE =
  'usage: pi-tree compact FILE --endpoint URL --model M [--api-key-env VAR] [--keep-recent-tokens N] [--reserve-tokens N] [--focus TEXT] [--max-tokens N] [--timeout SECONDS] [--no-stream] [--dry-run] [--file-only] [--price-input USD_PER_MTOK --price-output USD_PER_MTOK [--price-cache-read …] [--price-cache-write …]]';

class UsageError extends Error {}

type Spec = Record<string, 'string' | 'int' | 'flag'>;

function parseArgs(
  argv: readonly string[],
  spec: Spec,
): { positional: string[]; opts: Record<string, string | number | boolean> } {
  const positional: string[] = [];
  const opts: Record<string, string | number | boolean> = Object.create(null);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('--') || a === '--') {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
    const kind = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (!kind) throw new UsageError(`unknown option --${name}`);
    if (kind === 'flag') {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      opts[name] = true;
      continue;
    }
    const value: string | undefined = eq >= 0 ? a.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    if (kind === 'int') {
      if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number, not "${value}"`);
      opts[name] = Number(value);
    } else {
      opts[name] = value;
    }
  }
  return { positional, opts };
}

const COMMON: Spec = {
  endpoint: 'string',
  model: 'string',
  'api-key-env': 'string',
  'context-window': 'int',
  'reserve-tokens': 'int',
  'max-tokens': 'int',
  timeout: 'int',
  focus: 'string',
  'no-stream': 'flag',
  'dry-run': 'flag',
  'file-only': 'flag',
  'price-input': 'string',
  'price-output': 'string',
  'price-cache-read': 'string',
  'price-cache-write': 'string',
};

/** --price-* (USD per million tokens, like pi's models.json), or undefined when none is given. */
function prices(opts: Record<string, string | number | boolean>): ModelPrices | undefined {
  const names = ['input', 'output', 'cache-read', 'cache-write'] as const;
  if (!names.some((k) => opts[`price-${k}`] !== undefined)) return undefined;
  const get = (k: (typeof names)[number]) => {
    const v = opts[`price-${k}`];
    if (v === undefined) return 0;
    if (typeof v !== 'string' || !/^\d+(\.\d+)?$/.test(v))
      throw new UsageError(`--price-${k} must be a number (USD per million tokens), not "${String(v)}"`);
    return Number(v);
  };
  return { input: get('input'), output: get('output'), cacheRead: get('cache-read'), cacheWrite: get('cache-write') };
}

function oneLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/\s*\n\s*/g, ' ').trim() || 'unknown error';
}

async function openSession(file: string): Promise<Session> {
  try {
    return await Session.open(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`${file}: no such file`, { cause: e });
    if (code === 'EACCES') throw new Error(`${file}: permission denied`, { cause: e });
    if (code === 'EISDIR') throw new Error(`${file}: is a directory`, { cause: e });
    if (e instanceof NotASessionError) throw new Error(`${file}: ${e.message}`, { cause: e });
    throw e;
  }
}

function makeModel(opts: Record<string, string | number | boolean>, io: CliIO): OpenAICompatibleModel {
  const endpoint = opts.endpoint as string | undefined;
  const model = opts.model as string | undefined;
  if (!endpoint || !model)
    throw new UsageError(`--endpoint and --model are required${opts['dry-run'] ? '' : ' (or use --dry-run)'}`);
  let apiKey: string | undefined;
  const keyVar = opts['api-key-env'] as string | undefined;
  if (keyVar) {
    apiKey = io.env[keyVar];
    if (!apiKey) throw new Error(`environment variable ${keyVar} (from --api-key-env) is not set`);
  }
  return new OpenAICompatibleModel({
    baseUrl: endpoint,
    model,
    apiKey,
    contextWindow: (opts['context-window'] as number | undefined) ?? 0,
    maxOutputTokens: opts['max-tokens'] as number | undefined,
    timeoutMs: opts.timeout !== undefined ? Math.max(1, opts.timeout as number) * 1000 : undefined,
    stream: !opts['no-stream'],
    prices: prices(opts),
  });
}

/**
 * A pi running FILE with the pi-tree bridge would go on from its own leaf and never see a summary or
 * compaction written behind its back: refused (before any model call) unless --file-only says so; a
 * pi that runs it but does not answer (stopped with Ctrl+Z) as well.
 */
async function notUnderPi(
  file: string,
  opts: Record<string, string | number | boolean>,
  io: CliIO,
  what: string,
): Promise<void> {
  if (opts['dry-run'] || opts['file-only']) return;
  const info = await runningPi(
    resolve(file),
    io.env,
    `add --file-only to write ${what} all the same (pi would not see it)`,
  );
  if (info)
    throw new Error(
      `pi ${info.record.pid} runs this session (with the pi-tree bridge) and would not see ${what} written into the file: make it in pi, or add --file-only to write the file all the same`,
    );
}

async function run(name: string, io: CliIO, usage: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`pi-tree ${name}: ${e.message.split('\n').map(safeText).join('\n')}\n${usage}\n`);
      return 2;
    }
    io.err(`pi-tree ${name}: ${safeText(oneLine(e))}\n`);
    return 1;
  }
}

/** Moves the leaf of FILE to exactly TARGET_ID, writing the leaf record and pi's branch summary. */
export function runSummarize(argv: string[], io: CliIO, signal?: AbortSignal): Promise<number> {
  return run('summarize', io, SUMMARIZE_USAGE, async () => {
    const { positional, opts } = parseArgs(argv, COMMON);
    if (positional.length !== 2)
      throw new UsageError(
        positional.length < 2 ? 'FILE and TARGET_ID are required' : `unexpected argument "${positional[2]}"`,
      );
    const [file, targetId] = positional;
    await notUnderPi(file, opts, io, 'a branch summary');
    const dryRun = !!opts['dry-run'];
    const model = dryRun ? undefined : makeModel(opts, io);
    if (!dryRun) await collectBeside(file);
    const session = await openSession(file);
    const reserveTokens = (opts['reserve-tokens'] as number | undefined) ?? DEFAULT_BRANCH_RESERVE_TOKENS;
    const budget = budgetOf({ contextWindow: (opts['context-window'] as number | undefined) ?? 0, reserveTokens });
    let plan;
    try {
      // Read the abandoned branch only as far back as this budget can reach.
      plan = await planBranchSummary(session, targetId, { signal, tokenCap: budget > 0 ? budget : Infinity });
    } catch (e) {
      if (e instanceof EntryNotFoundError) throw new Error(`entry ${targetId} not found in ${file}`, { cause: e });
      throw e;
    }
    if (dryRun) {
      const p = previewBranchSummary(plan, {
        contextWindow: (opts['context-window'] as number | undefined) ?? 0,
        reserveTokens,
      });
      io.out(
        safeText(
          `leaf ${plan.oldLeafId ?? '(none)'} -> ${targetId}; common ancestor ${plan.commonAncestorId ?? '(none)'}`,
        ) + '\n',
      );
      if (p.nothingLeft) io.out('nothing is left behind: the move would write no summary\n');
      else if (p.noContent)
        io.out(
          `${plan.totalEntries} entries left behind, none with conversation: the summary would be "No content to summarize"\n`,
        );
      else {
        io.out(
          `${plan.totalEntries} entries left behind; ${p.entryIds.length} summarized, about ${p.totalTokens} tokens (budget ${p.tokenBudget})${p.droppedEntries ? `; ${p.droppedEntries} older entries do not fit` : ''}\n`,
        );
        io.out(`summarized entries: ${safeText(p.entryIds.join(' '))}\n`);
      }
      if (p.readFiles.length) io.out(`read files: ${safeText(p.readFiles.join(' '))}\n`);
      if (p.modifiedFiles.length) io.out(`modified files: ${safeText(p.modifiedFiles.join(' '))}\n`);
      return 0;
    }
    const draft = await summarizeBranch(plan, model!, {
      reserveTokens,
      focus: opts.focus as string | undefined,
      signal,
    });
    const result = await commitBranchSummary(session, draft);
    if (result.summaryId) io.out(`${safeText(result.summaryId)}\n`);
    else
      io.err(`pi-tree summarize: nothing is left behind; moved the leaf to ${safeText(targetId)} without a summary\n`);
    return 0;
  });
}

/** Compacts the current branch of FILE like pi's /compact and appends the compaction entry. */
export function runCompact(argv: string[], io: CliIO, signal?: AbortSignal): Promise<number> {
  return run('compact', io, COMPACT_USAGE, async () => {
    const { positional, opts } = parseArgs(argv, { ...COMMON, 'keep-recent-tokens': 'int' });
    if (positional.length !== 1)
      throw new UsageError(positional.length < 1 ? 'FILE is required' : `unexpected argument "${positional[1]}"`);
    const [file] = positional;
    await notUnderPi(file, opts, io, 'a compaction');
    const dryRun = !!opts['dry-run'];
    const model = dryRun ? undefined : makeModel(opts, io);
    if (!dryRun) await collectBeside(file);
    const session = await openSession(file);
    const plan = await planCompaction(
      session,
      {
        keepRecentTokens:
          (opts['keep-recent-tokens'] as number | undefined) ?? DEFAULT_COMPACTION_SETTINGS.keepRecentTokens,
        reserveTokens: (opts['reserve-tokens'] as number | undefined) ?? DEFAULT_COMPACTION_SETTINGS.reserveTokens,
      },
      signal,
    );
    if (!plan.preparation) throw new Error(`${plan.reason ?? 'Nothing to compact'}: ${file}`);
    if (dryRun) {
      const p = previewCompaction(plan.preparation);
      io.out(`tokens before: ${p.tokensBefore}\n`);
      io.out(
        `would summarize ${p.summarizedEntries} entries (about ${p.summarizedTokens} tokens)${p.hasPreviousSummary ? ', updating the previous summary' : ''}${p.isSplitTurn ? ', splitting a turn' : ''}\n`,
      );
      io.out(
        `would keep ${p.keptEntries} entries from ${safeText(String(p.firstKeptEntryId))} (about ${p.keptTokens} tokens plus the summary)\n`,
      );
      if (p.readFiles.length) io.out(`read files: ${safeText(p.readFiles.join(' '))}\n`);
      if (p.modifiedFiles.length) io.out(`modified files: ${safeText(p.modifiedFiles.join(' '))}\n`);
      return 0;
    }
    const result = await summarizeCompaction(plan.preparation, model!, {
      focus: opts.focus as string | undefined,
      signal,
    });
    const { entry } = await commitCompaction(session, plan, result);
    io.out(`${safeText(entry.id)}\n`);
    return 0;
  });
}
