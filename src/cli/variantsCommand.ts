// `pi-tree variants FILE ENTRY PROMPT [--count N | --models M1,M2,…] [--check CMD [--check-timeout S]] [--jobs J] [--json]`:
// the prompt tried N times from ENTRY, each try a variant (its own folder holding the code at ENTRY and
// a forked session) whose turn the user's pi runs headless (core/variants/runVariants.ts), then the
// check, the user's own command line, in each variant's folder, stopped after --check-timeout seconds. Progress goes to stderr line by line;
// the outcomes, in the order of --models (or 1..N), go to stdout (--json: {variants: […]}).
//
// Exit 0 when every variant's turn ended (a check that failed is an outcome, reported, not a failure
// of the command); 1 when a variant failed or was cancelled (each says why), or on bad input, which is
// refused before anything is written. Ctrl+C cancels every variant: each pi aborts its turn, whatever
// it wrote stays as whole lines.
import { dirname, resolve } from 'node:path';
import { agentDirOf } from '../core/piClient/paths.js';
import { connectStatus } from '../core/piClient/piConnect.js';
import { findPi } from '../core/platform/piProgram.js';
import {
  CHECK_TIMEOUT_MS,
  DEFAULT_JOBS,
  MAX_CHECK_TIMEOUT_MS,
  MAX_JOBS,
  MAX_VARIANTS,
  runVariants,
  type VariantCheck,
  type VariantFileChange,
  type VariantOutcome,
  type VariantPhase,
  type VariantProgress,
  type VariantsRequest,
  type VariantsRun,
} from '../core/variants/index.js';
import { parseModel, sessionCwd } from './ask.js';
import { args, UsageError } from './commands.js';
import { bundledBridge } from './connect.js';
import type { CliIO } from './io.js';
import { safeText } from './safeText.js';
import { counted } from '../shared/countWords.js';

export const VARIANTS_USAGE =
  'pi-tree variants FILE ENTRY PROMPT [--count N | --models PROVIDER/ID,…] [--check CMD [--check-timeout SECONDS]] [--jobs J] [--json]';

function wholeFlag(name: string, v: string, max: number): number {
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max)
    throw new UsageError(`--${name} must be a whole number from 1 to ${max}, not "${v}"`);
  return Number(v);
}

/** How the variant is named in progress and output lines: its place and its model. */
const label = (o: VariantOutcome, n: number) =>
  `variant ${o.index + 1}/${n}${o.model ? ` (${safeText(o.model)})` : ''}`;

const seconds = (ms: number | undefined) => (ms === undefined ? '' : `${(ms / 1000).toFixed(1)} s`);

function filesLine(files: readonly VariantFileChange[] | undefined): string {
  if (!files) return 'files unknown';
  const added = files.reduce((s, f) => s + f.added, 0);
  const removed = files.reduce((s, f) => s + f.removed, 0);
  return `${counted(files.length, 'file')} +${added} -${removed}`;
}

function checkLine(c: VariantCheck | null): string | undefined {
  if (!c) return undefined;
  if (c.exitCode === 0) return 'check passed';
  return c.exitCode === null ? `check stopped${c.signal ? ` (${c.signal})` : ''}` : `check failed (exit ${c.exitCode})`;
}

/** One progress line of an outcome's new phase. */
function progressLine(o: VariantOutcome, n: number): string {
  const who = label(o, n);
  const phase: VariantPhase = o.phase;
  switch (phase) {
    case 'preparing':
      return `${who}: making its folder`;
    case 'running':
      return `${who}: pi runs the turn in ${safeText(o.folder ?? '')}`;
    case 'checking':
      return `${who}: checking`;
    case 'done':
      return `${who}: done, ${[filesLine(o.files), checkLine(o.check), o.tokens ? `${o.tokens.total} tokens` : undefined, seconds(o.ms)].filter(Boolean).join(', ')}`;
    default:
      return `${who}: ${phase}${o.error ? `: ${safeText(o.error.split('\n')[0])}` : ''}`;
  }
}

/** What the command line asks for, checked: a bad value is a UsageError (exit 2) before anything is made. */
interface VariantsArgs {
  file: string;
  entryId: string;
  prompt: string;
  count?: number;
  models?: VariantsRequest['models'];
  jobs: number;
  check?: string;
  checkTimeoutMs: number;
  json: boolean;
}

function readArgs(argv: string[]): VariantsArgs {
  const { values, positionals } = args(
    argv,
    {
      count: { type: 'string' },
      models: { type: 'string' },
      check: { type: 'string' },
      'check-timeout': { type: 'string' },
      jobs: { type: 'string' },
      json: { type: 'boolean' },
    },
    [3, 3],
    VARIANTS_USAGE,
  );
  const [fileArg, entryId, prompt] = positionals;
  if (!prompt.trim()) throw new UsageError(`the prompt is empty\nusage: ${VARIANTS_USAGE}`);
  if (values.count !== undefined && values.models !== undefined)
    throw new UsageError('give --count or --models, not both (--models makes one variant per model)');
  const count = values.count !== undefined ? wholeFlag('count', values.count as string, MAX_VARIANTS) : undefined;
  const models =
    values.models !== undefined
      ? (values.models as string)
          .split(',')
          .map((m) => m.trim())
          .map(parseModel)
      : undefined;
  if (models && models.length > MAX_VARIANTS)
    throw new UsageError(`--models names ${models.length} models; at most ${MAX_VARIANTS} variants run at once`);
  const jobs = values.jobs !== undefined ? wholeFlag('jobs', values.jobs as string, MAX_JOBS) : DEFAULT_JOBS;
  const check = values.check as string | undefined;
  if (check !== undefined && !check.trim()) throw new UsageError('--check is empty');
  const checkTimeout = values['check-timeout'] as string | undefined;
  if (checkTimeout !== undefined && check === undefined)
    throw new UsageError('--check-timeout is how long --check may run: give --check too');
  const checkTimeoutMs =
    checkTimeout !== undefined
      ? wholeFlag('check-timeout', checkTimeout, MAX_CHECK_TIMEOUT_MS / 1000) * 1000
      : CHECK_TIMEOUT_MS;
  return {
    file: resolve(fileArg),
    entryId,
    prompt,
    ...(count !== undefined ? { count } : {}),
    ...(models ? { models } : {}),
    jobs,
    ...(check !== undefined ? { check } : {}),
    checkTimeoutMs,
    json: !!values.json,
  };
}

/** The run's request: the user's pi, and the bridge unless pi's settings load it already. */
async function makeRequest(a: VariantsArgs, n: number, io: CliIO, signal?: AbortSignal): Promise<VariantsRequest> {
  const cwd = await sessionCwd(a.file);
  // The user's pi: never one planted in the session's folder or its working folder.
  const pi = await findPi(io.env.PI_TREE_PI?.trim() || 'pi', {
    env: io.env,
    avoid: [dirname(a.file), ...(cwd ? [cwd] : [])],
  });
  // Each variant's pi loads the bridge (its checkpoints, the guard that keeps its writes out of the
  // user's folder) unless pi's settings load it already (connected): never twice.
  const bridge = bundledBridge();
  const st = connectStatus(bridge, io.env);
  return {
    agentDir: agentDirOf(io.env),
    sessionFile: a.file,
    entryId: a.entryId,
    prompt: a.prompt,
    ...(a.models ? { models: a.models } : { count: n }),
    ...(a.check !== undefined ? { check: a.check, checkTimeoutMs: a.checkTimeoutMs } : {}),
    jobs: a.jobs,
    pi,
    ...(st.connected && st.listed ? {} : { bridge }),
    env: io.env,
    signal,
    onProgress: a.json
      ? undefined
      : (p: VariantProgress) => p.kind === 'outcome' && io.err(`${progressLine(p.outcome, n)}\n`),
  };
}

/** `--json`: the outcomes in order, every field present (null when unknown). */
function outcomesJson(outs: readonly VariantOutcome[]): string {
  const variantsJson = outs.map((o) => ({
    index: o.index,
    model: o.model ?? null,
    phase: o.phase,
    variant: o.variantId ?? null,
    session: o.session ?? null,
    folder: o.folder ?? null,
    check: o.check,
    answer: o.answer ?? null,
    answerId: o.answerId ?? null,
    leaf: o.leafId ?? null,
    files: o.files ?? null,
    tokens: o.tokens ?? null,
    cost: o.cost ?? null,
    ms: o.ms ?? null,
    steps: o.steps ?? null,
    ...(o.error ? { error: o.error } : {}),
  }));
  return `${JSON.stringify({ variants: variantsJson }, null, 2)}\n`;
}

/** The outcomes for a person: per variant its session, folder, files, check, usage and answer. */
function printOutcomes(outs: readonly VariantOutcome[], n: number, io: CliIO): void {
  for (const o of outs) {
    io.out(`${label(o, n)}: ${o.phase}${o.error ? `: ${safeText(o.error.split('\n')[0])}` : ''}\n`);
    if (o.session) io.out(`  session ${safeText(o.session)}\n`);
    if (o.folder) io.out(`  folder  ${safeText(o.folder)}\n`);
    if (o.files)
      io.out(
        `  ${filesLine(o.files)}${o.files.map((f) => `\n    ${f.status === 'created' ? 'A' : f.status === 'deleted' ? 'D' : 'M'} ${safeText(f.path)} +${f.added} -${f.removed}`).join('')}\n`,
      );
    if (o.check)
      io.out(
        `  ${checkLine(o.check)}${o.check.output.trim() ? `; its output ends:\n${indent(tail(o.check.output, 10))}` : ''}\n`,
      );
    if (o.tokens || o.cost !== undefined)
      io.out(
        `  ${o.tokens ? `${o.tokens.total} tokens` : ''}${o.cost !== undefined ? `, $${o.cost.toFixed(4)}` : ''}, ${seconds(o.ms)}\n`,
      );
    if (o.answer) io.out(`  answer:\n${indent(o.answer)}\n`);
  }
}

export async function variants(argv: string[], io: CliIO, signal?: AbortSignal): Promise<number> {
  const a = readArgs(argv);
  const n = a.models?.length ?? a.count ?? 1;
  const run: VariantsRun = runVariants(await makeRequest(a, n, io, signal));
  const outs = await run.done;
  if (a.json) io.json(outcomesJson(outs));
  else printOutcomes(outs, n, io);
  const failed = outs.filter((o) => o.phase !== 'done');
  if (!failed.length) return 0;
  const cancelled = failed.filter((o) => o.phase === 'cancelled').length;
  io.err(
    `pi-tree variants: ${signal?.aborted ? 'cancelled; ' : ''}${failed.length} of ${counted(outs.length, 'variant')} did not finish (${cancelled} cancelled, ${failed.length - cancelled} failed)\n`,
  );
  return 1;
}

const indent = (s: string) =>
  s
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');

/** The last `n` lines of `s`. */
const tail = (s: string, n: number) => s.replace(/\n$/, '').split('\n').slice(-n).join('\n');
