// `pi-tree`: the session engine headless. Exit codes: 0 success, 1 failure with one line on stderr
// (no stack trace), 2 usage error.
import * as commands from './cli/commands.js';
import type { CliIO } from './cli/io.js';

type Command = (argv: string[], io: CliIO) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  ls: commands.ls,
  tree: commands.tree,
  context: commands.context,
  move: commands.move,
  label: commands.label,
  name: commands.name,
  fork: commands.fork,
  clone: commands.clone,
  stats: commands.stats,
};

export const USAGE = `pi-tree: pi session trees on the command line

  pi-tree ls [--cwd DIR] [--all] [--json]         sessions of a folder, newest first
  pi-tree tree FILE [--json] [--filter MODE]       the tree with the current path marked
  pi-tree context FILE [--leaf ID] --json          what the model sees at the leaf
  pi-tree move FILE ID|root [--summary-text TEXT]  append a leaf record (and a branch summary)
  pi-tree label FILE ID [TEXT]                     set a label, or clear it when TEXT is absent
  pi-tree name FILE TEXT                           name the session
  pi-tree fork FILE USER_ENTRY_ID                  new session before a user message; prints its path
  pi-tree clone FILE [ID]                          new session holding the path to ID; prints its path
  pi-tree stats FILE --json                        entries, messages, tokens, cost, models
`;

export function register(name: string, command: Command): void {
  COMMANDS[name] = command;
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    io.out(USAGE);
    return cmd ? 0 : 2;
  }
  if (cmd === '--version' || cmd === '-v') {
    io.out(`${process.env.PI_TREE_VERSION ?? 'dev'}\n`);
    return 0;
  }
  const run = COMMANDS[cmd];
  if (!run) {
    io.err(`pi-tree: unknown command "${cmd}"\n${USAGE}`);
    return 2;
  }
  try {
    return await run(rest, io);
  } catch (e) {
    if (e instanceof commands.UsageError) {
      io.err(`pi-tree ${cmd}: ${e.message}\n`);
      return 2;
    }
    const msg = e instanceof Error ? e.message : String(e);
    io.err(`pi-tree ${cmd}: ${msg.split('\n')[0]}\n`);
    return 1;
  }
}

if (require.main === module) {
  // `pi-tree tree big.jsonl | head` closes the pipe early: that is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  const io: CliIO = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s), env: process.env };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`pi-tree: ${String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
