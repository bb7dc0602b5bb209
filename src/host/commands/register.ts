// Registers a command whose failures reach the user as one message with "Show Log", never silently.
import * as vscode from 'vscode';
import { showError } from '../platform/log.js';

export function registerCommand(
  context: vscode.ExtensionContext,
  id: string,
  fn: (...args: unknown[]) => unknown,
): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (e) {
        await showError(`pi-tree: ${id.replace('piTree.', '')} failed`, e);
      }
    }),
  );
}
