// `pi-tree ask FILE ENTRY PROMPT [--model PROVIDER/ID] [--json] [--wait SECONDS]`: a new turn from ENTRY
// (core/runs/askFrom.ts): through the pi running FILE when it has the pi-tree bridge, else a headless pi
// (the program PI_TREE_PI names, default `pi` on PATH, never one inside the session's folders). Exits 0
// once pi's turn has ended; prints the answer (or, with --json, at least {leaf, answer}). Bad input (an
// unknown entry, an empty prompt, a model pi does not have) is refused before anything is written.
// Ctrl+C cancels: pi aborts the turn, whatever it wrote of it stays.
import { dirname, resolve } from 'node:path';
import { PiUnresponsiveError } from '../core/piClient/discovery.js';
import { NotASessionError } from '../core/index/reader.js';
import { findPi, type PiProgram } from '../core/platform/piProgram.js';
import { askFrom, AskInputError, type AskResult } from '../core/runs/askFrom.js';
import type { RunModel } from '../core/runs/runTurn.js';
import { Session } from '../core/session/session.js';
import { args, UsageError } from './commands.js';
import type { CliIO } from './io.js';
import { safeText } from './safeText.js';

export const ASK_USAGE = 'pi-tree ask FILE ENTRY PROMPT [--model PROVIDER/ID] [--json] [--wait SECONDS]';

/** `PROVIDER/ID` (the id may hold more slashes: `openrouter/anthropic/claude-…`). */
export function parseModel(v: string): RunModel {
  const m = /^([^/\s]+)\/(\S(?:.*\S)?)$/.exec(v);
  if (!m || /[\r\n]/.test(v))
    throw new UsageError(
      `--model must be PROVIDER/ID (as pi names its models, e.g. anthropic/claude-sonnet-4-5), not "${v}"`,
    );
  return { provider: m[1], id: m[2] };
}

export async function sessionCwd(file: string): Promise<string | undefined> {
  try {
    return (await Session.open(file)).header.cwd || undefined;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`${file}: no such file`, { cause: e });
    if (code === 'EACCES') throw new Error(`${file}: permission denied`, { cause: e });
    if (code === 'EISDIR') throw new Error(`${file}: is a directory`, { cause: e });
    if (e instanceof NotASessionError) throw new Error(`${file}: ${e.message}`, { cause: e });
    throw e;
  }
}

export async function ask(argv: string[], io: CliIO, signal?: AbortSignal): Promise<number> {
  const { values, positionals } = args(
    argv,
    { model: { type: 'string' }, json: { type: 'boolean' }, wait: { type: 'string' } },
    [3, 3],
    ASK_USAGE,
  );
  const [fileArg, entryId, prompt] = positionals;
  if (!prompt.trim()) throw new UsageError(`the prompt is empty\nusage: ${ASK_USAGE}`);
  const model = values.model !== undefined ? parseModel(values.model as string) : undefined;
  let waitMs = 0;
  if (values.wait !== undefined) {
    const w = values.wait as string;
    if (!/^\d+$/.test(w) || Number(w) > 3600)
      throw new UsageError(`--wait must be a whole number of seconds up to 3600, not "${w}"`);
    waitMs = Number(w) * 1000;
  }
  const file = resolve(fileArg);
  const cwd = await sessionCwd(file);
  // The user's pi, for a headless turn: never one planted in the session's folder or its working folder.
  const found = await findPi(io.env.PI_TREE_PI?.trim() || 'pi', {
    env: io.env,
    avoid: [dirname(file), ...(cwd ? [cwd] : [])],
  }).then(
    (p): PiProgram | Error => p,
    (e: Error) => e,
  );
  let r: AskResult;
  try {
    r = await askFrom({
      sessionFile: file,
      entryId,
      prompt,
      model,
      pi: found instanceof Error ? undefined : found,
      env: io.env,
      waitMs,
      signal,
    });
  } catch (e) {
    if (e instanceof AskInputError && found instanceof Error && /no pi program/.test(e.message))
      throw new Error(`no pi with the pi-tree bridge runs this session, and ${found.message}`, { cause: e });
    if (e instanceof PiUnresponsiveError) throw new Error(`${e.message}: resume pi (fg), then ask again`, { cause: e });
    throw e;
  }
  const leaf = r.answerId;
  if (values.json) {
    io.json(
      `${JSON.stringify(
        {
          leaf,
          answer: r.answer,
          via: r.via,
          pid: r.pid,
          leafId: r.leafId,
          fromLeafId: r.fromLeafId,
          insteadOfUserMessage: r.insteadOfUserMessage,
          promptId: r.promptId ?? null,
          entries: r.entries.map((e) => e.id),
          stopReason: r.stopReason ?? null,
          usage: r.usage ?? null,
          cost: r.cost ?? null,
          ms: r.ms,
        },
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  io.err(
    `${r.via === 'running' ? `via pi ${r.pid}` : `headless pi ${r.pid}`}${r.insteadOfUserMessage ? `: asked instead of user message ${safeText(entryId)} (beside it)` : ''}; leaf ${safeText(leaf ?? '(none)')}\n`,
  );
  // (the answer is session text: shown with its controls as visible escapes, its lines kept)
  io.out(r.answer.endsWith('\n') ? r.answer : `${r.answer}\n`);
  return 0;
}
