// `pi-tree`: the session engine headless. Exit codes: 0 success, 1 failure with one line on stderr
// (no stack trace), 2 usage error.
import { readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import * as commands from './cli/commands.js';
import { compare, exportCmd, files } from './cli/compareCommands.js';
import { connect, disconnect } from './cli/connect.js';
import { runCompact, runSummarize } from './cli/summarize.js';
import { checkpoints, diff, restore } from './cli/codeCommands.js';
import { adopt } from './cli/adoptCommand.js';
import { routed } from './cli/bridgeRouting.js';
import { ask } from './cli/ask.js';
import { variants } from './cli/variantsCommand.js';
import type { CliIO, Streams } from './cli/io.js';
import { safeText, terminalIO } from './cli/safeText.js';

type Command = (argv: string[], io: CliIO) => Promise<number>;

declare const __PI_TREE_VERSION__: string | undefined;
/** The package's version (the build puts it in; run from the sources, package.json is read). */
const version = (): string =>
  typeof __PI_TREE_VERSION__ === 'string'
    ? __PI_TREE_VERSION__
    : String(JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version);

const COMMANDS: Record<string, Command> = {
  ls: commands.ls,
  tree: commands.tree,
  context: commands.context,
  // These go through a running pi (its pi-tree bridge) when one runs the session; --file-only: the file.
  move: routed('move', commands.move),
  label: routed('label', commands.label),
  name: routed('name', commands.name),
  fork: routed('fork', commands.fork),
  clone: routed('clone', commands.clone),
  stats: commands.stats,
  compare,
  files,
  export: exportCmd,
  summarize: (argv, io) => runSummarize(argv, io, interruptSignal()),
  compact: (argv, io) => runCompact(argv, io, interruptSignal()),
  ask: (argv, io) => withInterrupt((signal) => ask(argv, io, signal)),
  variants: (argv, io) => withInterrupt((signal) => variants(argv, io, signal)),
  checkpoints,
  restore,
  diff,
  adopt,
  connect,
  disconnect,
};

/** Ctrl+C during a model call cancels it (nothing is written) instead of killing the process mid-write. */
function interruptSignal(): AbortSignal {
  const ac = new AbortController();
  process.once('SIGINT', () => ac.abort());
  return ac.signal;
}

/**
 * Runs `fn` with a signal that Ctrl+C (or SIGTERM) aborts: a turn is cancelled as pi cancels it (pi
 * aborts, writes what it had, stops). A second one ends pi-tree at once (pi is stopped on the way out).
 */
async function withInterrupt<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
  const off = () => signals.forEach((s) => process.off(s, on));
  const on = (sig: NodeJS.Signals) => {
    if (!ac.signal.aborted) return ac.abort();
    off();
    process.kill(process.pid, sig);
  };
  signals.forEach((s) => process.on(s, on));
  try {
    return await fn(ac.signal);
  } finally {
    off();
  }
}

export const USAGE = `pi-tree: pi session trees on the command line

  pi-tree ls [--cwd DIR] [--all] [--json]         sessions of a folder, newest first
  pi-tree tree FILE [--json] [--filter MODE]       the tree with the current path marked
  pi-tree context FILE [--leaf ID] --json          what the model sees at the leaf
  pi-tree move FILE ID|root [--exact] [--summary-text TEXT]
                                                   move the leaf as pi's /tree does (a user message:
                                                   to its parent, its text printed as editorText);
                                                   --exact: onto ID itself
  pi-tree label FILE ID [TEXT]                     set a label, or clear it when TEXT is absent
  pi-tree name FILE TEXT                           name the session
  pi-tree fork FILE USER_ENTRY_ID                  new session before a user message; prints its path
  pi-tree clone FILE [ID]                          new session holding the path to ID; prints its path
  pi-tree stats FILE --json                        entries, messages, tokens, cost, models
  pi-tree compare FILE ID_A ID_B [--with FILE_B] [--json]
                                                   two branches from their common ancestor: entries,
                                                   totals as pi sums usage, files edited or written
                                                   (--with: ID_B is in FILE_B, e.g. a fork of FILE)
  pi-tree files FILE [ID] [--json]                 the file changes (edit, write, bash) per entry on
                                                   the path to ID (default: the leaf)
  pi-tree export FILE ID                           the branch root → ID as Markdown
  pi-tree summarize FILE TARGET_ID [--focus TEXT] --endpoint URL --model M [--api-key-env VAR]
                                                   move to TARGET_ID with a model-written branch summary
  pi-tree compact FILE --endpoint URL --model M [--api-key-env VAR]
                                                   compact the context at the current leaf
  pi-tree ask FILE ENTRY PROMPT [--model PROVIDER/ID] [--json] [--wait SECONDS]
                                                   a new turn from ENTRY (a user message: instead of it,
                                                   beside it); prints pi's answer once the turn ended
                                                   (--json: {leaf, answer, …}); --wait: how long a busy
                                                   pi may take to finish its turn first
  pi-tree variants FILE ENTRY PROMPT [--count N | --models PROVIDER/ID,…] [--check CMD [--check-timeout SECONDS]]
                  [--jobs J] [--json]              try PROMPT N times from ENTRY (default 1; or once
                                                   per model), each in a folder of its own holding the
                                                   code at ENTRY, at most J pis at once (default 2);
                                                   --check: your command run in each folder after its
                                                   turn, stopped after --check-timeout seconds
                                                   (default 600); exit 1 when a variant failed (not
                                                   a check)
  pi-tree checkpoints FILE [--json] [--delete]     the entries with a code state: a snapshot taken by
                                                   the bridge, or the session's own edit/write calls;
                                                   --delete: delete the session's checkpoints
  pi-tree restore FILE ID [--dry-run] [--json] [--force] [--conversation]
                                                   put the working folder's code back as it was at ID
                                                   (only what the agent changed; a file changed since
                                                   is a conflict: exit 1 unless --force);
                                                   --conversation moves the leaf there too
  pi-tree restore FILE --undo|--redo [--force]     put back what the last restore replaced (or redo it)
  pi-tree diff FILE A [B] [--name-only] [--json]   the code at A against the code at B (default: now)
  pi-tree adopt VARIANT_FILE [--dry-run] [--force] [--json] [--allow-outside]
                                                   bring a variant's file changes into the working
                                                   folder (only what it changed since its node; a file
                                                   changed there since is a conflict: exit 1 unless --force)
  pi-tree adopt VARIANT_FILE --undo [--force]      put back what the variant's last adopt replaced
  pi-tree connect [--status]                       install the pi-tree bridge for every pi session
                                                   (pi's settings.json, as VS Code's Connect does)
  pi-tree disconnect                               take it out again, settings.json as it was
  pi-tree --version

  move, label, name, fork and clone go through the pi running FILE when it has the pi-tree bridge
  (stderr says "via pi PID"); summarize and compact refuse then; add --file-only to write the file instead.
  ask goes through that pi too, else it starts your pi headless for the turn (PI_TREE_PI: which pi);
  variants always starts your pi headless, one per variant.
`;

/** The USAGE lines of one command (its line and the description lines under it). */
function usageOf(cmd: string): string {
  const lines = USAGE.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`  pi-tree ${cmd} `) || l === `  pi-tree ${cmd}`);
  if (at < 0) return USAGE;
  let end = at + 1;
  while (end < lines.length && /^ {10,}\S/.test(lines[end])) end++;
  return lines.slice(at, end).join('\n');
}

/**
 * Runs `pi-tree argv`. Every command writes through terminalIO: what it prints for a person cannot drive
 * the terminal (controls shown as visible escapes), its JSON is written as it is.
 */
export async function main(argv: string[], streams: Streams): Promise<number> {
  const io = terminalIO(streams);
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    io.out(USAGE);
    return cmd ? 0 : 2;
  }
  if (cmd === '--version' || cmd === '-v') {
    io.out(`${version()}\n`);
    return 0;
  }
  // Own keys only: `pi-tree toString` or `pi-tree __proto__` is an unknown command, not Object's.
  const run = Object.hasOwn(COMMANDS, cmd) ? COMMANDS[cmd] : undefined;
  if (!run) {
    io.err(`pi-tree: unknown command "${safeText(cmd)}"\n${USAGE}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(`${usageOf(cmd)}\n`);
    return 0;
  }
  try {
    return await run(rest, io);
  } catch (e) {
    if (e instanceof commands.UsageError) {
      io.err(`pi-tree ${cmd}: ${e.message.split('\n').map(safeText).join('\n')}\n`);
      return 2;
    }
    const msg = e instanceof Error ? e.message : String(e);
    io.err(`pi-tree ${cmd}: ${safeText(msg.split('\n')[0])}\n`);
    return 1;
  }
}

function stdio(): Streams {
  // Direct, synchronous writes to fds 1 and 2 (ordered, and complete when the process exits).
  const write = (fd: number) => (s: string | Buffer) => {
    const b = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
    for (let off = 0; off < b.length;) {
      try {
        off += writeSync(fd, b, off);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') continue;
        if (code === 'EPIPE') process.exit(0); // `pi-tree tree big.jsonl | head`: not an error
        throw e;
      }
    }
  };
  return { out: write(1), outWritten: true, err: write(2), env: process.env };
}

if (require.main === module) {
  // Reading a big session makes many short-lived strings. V8 grows its young generation when much
  // survives a scavenge (the index does), up to tens of MB that are then never given back; kept at its
  // starting size, the garbage dies in cache. Measured on a 100k-entry, 88 MB session (Node 24): peak
  // RSS 160 → 110 MB and about a fifth faster. (A worker thread with a small young generation did the
  // same at +20 MB and +90 ms for the second isolate.) Only this process: the extension never does this.
  setFlagsFromString('--semi-space-growth-factor=1');
  main(process.argv.slice(2), stdio()).then(
    (code) => (process.exitCode = code),
    (e) => {
      process.stderr.write(`pi-tree: ${String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
