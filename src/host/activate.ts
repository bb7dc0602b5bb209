// Placeholder activation: the sessions sidebar and the tree explorer are wired here as they land.
import * as vscode from 'vscode';

export function activateHost(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('pi Session Tree', { log: true });
  context.subscriptions.push(output);
  output.info('pi-tree activated');
}
