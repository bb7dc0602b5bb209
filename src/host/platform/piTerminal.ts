// "Continue in pi": a terminal running `pi --session <file>` when pi is installed, otherwise a message
// that says how to install it.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { findOnPath, INSTALL_PI, shellQuote } from './shell.js';

export async function continueInPi(file: string, cwd: string | undefined, piCommand: string, text?: string): Promise<void> {
  const exe = await findOnPath(piCommand);
  if (!exe) {
    const pick = await vscode.window.showWarningMessage(`pi is not installed (no "${piCommand}" on PATH). Install it with: ${INSTALL_PI}`, 'Copy Install Command');
    if (pick) await vscode.env.clipboard.writeText(INSTALL_PI);
    return;
  }
  const terminal = vscode.window.createTerminal({ name: 'pi', cwd: cwd && existsSync(cwd) ? cwd : dirname(file), iconPath: new vscode.ThemeIcon('terminal') });
  terminal.show();
  terminal.sendText(`${shellQuote(piCommand)} --session ${shellQuote(file)}`, true);
  if (text) {
    await vscode.env.clipboard.writeText(text);
    void vscode.window.showInformationMessage('The message text is on the clipboard: paste it into pi to edit and send it again.');
  }
}
