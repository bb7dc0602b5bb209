// `pi-tree move|label|name|fork|clone` on a session a pi with the bridge is running: the action goes
// through that pi (which then continues from there) instead of into the file behind its back.
// `--file-only` forces the file. Output keeps each command's stdout contract; "via pi <pid>" goes to
// stderr, and only once the record checked out (core/piClient/peer.ts) and the action's effect showed
// (piEffects.ts). A pi that runs the session but does not answer (stopped with Ctrl+Z) is refused with
// one line, never taken for "no pi".
import { resolve } from 'node:path';
import { actionKey, BridgeClient } from '../core/piClient/client.js';
import { findBridge, PiUnresponsiveError, type LiveBridgeInfo } from '../core/piClient/discovery.js';
import { verifyBridge } from '../core/piClient/peer.js';
import { moveTarget } from '../core/session/moveTarget.js';
import { EntryNotFoundError, Session } from '../core/session/session.js';
import { args, ROUTED_ARGS } from './commands.js';
import type { CliIO } from './io.js';
import { confirmLabel, confirmMove, confirmName, confirmSwitch, UnconfirmedError } from './piEffects.js';
import { safeText, terminalJson } from './safeText.js';

type Command = (argv: string[], io: CliIO) => Promise<number>;
export type RoutedName = 'move' | 'label' | 'name' | 'fork' | 'clone';

/** How long a routed action waits for pi to finish a turn before giving up with "busy". */
const WAIT_MS = 10_000;

/** The one line for a pi that runs the session and does not answer. */
export function unresponsiveLine(
  e: PiUnresponsiveError,
  alternative = 'add --file-only to write the file all the same (pi would not see it)',
): string {
  return `${e.message}: resume pi (fg) or ${alternative}`;
}

/** The live bridge running `file` (undefined: none); a pi that does not answer is an error, not "none". */
export async function runningPi(
  file: string,
  env: NodeJS.ProcessEnv,
  alternative?: string,
): Promise<LiveBridgeInfo | undefined> {
  try {
    return await findBridge(file, { env });
  } catch (e) {
    if (e instanceof PiUnresponsiveError) throw new Error(unresponsiveLine(e, alternative), { cause: e });
    throw e;
  }
}

/** Wraps a file-mode command so it goes through a running pi when there is one. */
export function routed(name: RoutedName, fileMode: Command): Command {
  return async (argv, io) => {
    const fileOnly = argv.includes('--file-only');
    const rest = argv.filter((a) => a !== '--file-only');
    if (fileOnly) return fileMode(rest, io);
    // (the file-mode command's own parse: a usage error is one, never a fall back to the file)
    const spec = ROUTED_ARGS[name];
    const parsed = args(rest, spec.options, spec.positionals as [number, number], spec.usage);
    const [file, ...pos] = parsed.positionals;
    const path = resolve(file);
    const info = await runningPi(path, io.env);
    if (!info) return fileMode(rest, io);
    // pi moves as its /tree does (a user message: to its parent): an exact move is the file's alone
    if (parsed.values.exact)
      throw new Error(
        `pi ${info.record.pid} runs this session and moves as its /tree does; --exact writes the file only: add --file-only (pi does not see it until the session is opened again)`,
      );
    verifyBridge(info, path, io.env);
    const client = await BridgeClient.connect(info.record);
    try {
      const shown = await viaPi(name, client, path, pos, parsed.values, io.env);
      io.err(`via pi ${info.record.pid}\n${shown.err}`);
      io.out(shown.out);
      return 0;
    } finally {
      client.close();
    }
  };
}

/** Runs the action in pi and confirms its effect; returns what to print once it is confirmed. */
async function viaPi(
  name: RoutedName,
  c: BridgeClient,
  file: string,
  pos: string[],
  values: Record<string, string | boolean | undefined>,
  env: NodeJS.ProcessEnv,
): Promise<{ out: string; err: string }> {
  const common = { waitMs: WAIT_MS, key: actionKey() };
  const pid = c.record.pid;
  switch (name) {
    case 'move': {
      if (pos[0] === 'root')
        throw new Error('pi cannot move before the first entry; use --file-only to write that move into the file');
      const text = values['summary-text'] as string | undefined;
      const r = await c.request('goto', {
        targetId: pos[0],
        ...(text !== undefined ? { summary: { text } } : {}),
        ...common,
      });
      const session = await Session.open(file);
      const target = await moveTarget(session, pos[0]).catch((e: unknown) => {
        throw e instanceof EntryNotFoundError
          ? new UnconfirmedError(`pi ${pid} answered the move, but the session file has no entry ${pos[0]}`)
          : e;
      });
      await confirmMove(pid, session, target, r);
      // (a JSON line, read by people too: what JSON.stringify leaves raw of C1 and bidi as \u escapes)
      return {
        out: `${terminalJson(JSON.stringify({ leafId: r.leafId, leafRecordId: r.leafRecordId, summaryId: r.summaryId }))}\n`,
        err: r.moved ? '' : 'Already at this point: nothing written.\n',
      };
    }
    case 'label':
    case 'name': {
      const r =
        name === 'label'
          ? await c.request('label', { entryId: pos[0], label: pos[1], ...common })
          : await c.request('name', { name: pos[0], ...common });
      const session = await Session.open(file);
      if (name === 'label') await confirmLabel(pid, session, pos[0], pos[1]);
      else await confirmName(pid, session, pos[0]);
      // (what pi answers is printed as session text: escaped)
      return r.changed
        ? { out: `${safeText(String(r.entryId))}\n`, err: '' }
        : { out: '', err: `The ${name} is already so: nothing written.\n` };
    }
    case 'fork':
    case 'clone': {
      const r =
        name === 'fork'
          ? await c.request('fork', { entryId: pos[0], ...common })
          : await c.request('clone', { entryId: pos[0], ...common });
      if (r.cancelled) throw new Error(`an extension in pi cancelled the ${name}`);
      await confirmSwitch(pid, name, r, env);
      return { out: `${safeText(String(r.sessionFile))}\n`, err: 'pi now runs the new session\n' };
    }
  }
}
