// One output channel ("pi Session Tree") for details; user-facing messages say what to do next.
import * as vscode from 'vscode';

let channel: vscode.LogOutputChannel | undefined;

export function log(): vscode.LogOutputChannel {
  channel ??= vscode.window.createOutputChannel('pi Session Tree', { log: true });
  return channel;
}

/** Shows an error with a "Show Log" action and logs the details. */
export async function showError(message: string, err?: unknown): Promise<void> {
  if (err !== undefined) log().error(`${message}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  else log().error(message);
  const detail = err instanceof Error ? `: ${err.message}` : '';
  const pick = await vscode.window.showErrorMessage(`${message}${detail}`, 'Show Log');
  if (pick === 'Show Log') log().show(true);
}
