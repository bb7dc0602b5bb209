// VS Code entry point. The host layer lives in src/host; this file only wires activation.
import type * as vscode from 'vscode';
import { activateHost } from './host/activate.js';

export function activate(context: vscode.ExtensionContext): Promise<unknown> | unknown {
  return activateHost(context);
}

export function deactivate(): void {}
