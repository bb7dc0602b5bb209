// "Continue in pi": a terminal running `pi --session <file>` when pi is installed, otherwise a message
// that says how to install it.
import { constants, existsSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import * as vscode from 'vscode';

export const INSTALL_PI = 'npm install -g @earendil-works/pi-coding-agent';

/** The executable `command` resolves to on PATH (or the path itself), or undefined. */
export async function findOnPath(command: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (command.includes('/') || command.includes('\\')) {
    try {
      await access(command, constants.X_OK);
      return command;
    } catch {
      return undefined;
    }
  }
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const ext of exts) {
      const p = join(dir, command + ext);
      try {
        await access(p, constants.X_OK);
        return p;
      } catch {
        // keep looking
      }
    }
  }
  return undefined;
}

/** Quotes one argument for the user's shell (POSIX sh, or PowerShell/cmd on Windows). */
export function shellQuote(arg: string, windows = process.platform === 'win32'): string {
  if (windows) return `"${arg.replace(/"/g, '""')}"`;
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

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
