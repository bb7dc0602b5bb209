// Which of pi's tools may change files: capture snapshots before them, and the code at an entry replays
// or names them. One list, read by both without either importing the other.

/** pi's tools that only read; any other tool (an extension's included) may change files. */
const READ_ONLY_TOOLS = new Set(['read', 'grep', 'find', 'ls']);

export function mayChangeFiles(toolName: string): boolean {
  return !READ_ONLY_TOOLS.has(toolName);
}
