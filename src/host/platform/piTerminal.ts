// "Continue in pi": a terminal that starts pi itself with `-e <bridge> --session <file>` as separate
// arguments (shellPath/shellArgs), so no shell ever parses a session path, name or cwd. Refused in
// Restricted Mode.
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { findPi, INSTALL_PI, PiNotFoundError, type PiProgram } from '../../core/platform/piProgram.js';
import { log } from './log.js';

/** The terminal's options: pi and its arguments, never a command line. Pure, for tests. */
export function piTerminalOptions(
  pi: PiProgram,
  file: string,
  cwd: string | undefined,
  extraArgs: string[] = [],
): vscode.TerminalOptions {
  const isDir = (d: string | undefined) => {
    try {
      return !!d && statSync(d).isDirectory();
    } catch {
      return false;
    }
  };
  return {
    name: 'pi',
    shellPath: pi.program,
    shellArgs: [...pi.args, ...extraArgs, '--session', file],
    cwd: isDir(cwd) ? cwd : dirname(file),
    iconPath: new vscode.ThemeIcon('terminal'),
  };
}

/**
 * What runs once pi is known to start, before it does (a move of the leaf): the message text to offer,
 * or undefined to start nothing (cancelled).
 */
export type BeforePi = () => Promise<{ text?: string } | undefined>;

const OPEN_SETTING = 'Open Setting';
const COPY_INSTALL = 'Copy Install Command';
/** How many times pi was not found: each warning says which attempt it is (see piNotFound). */
let misses = 0;

/**
 * Tells the user that pi was not found, with a button to the setting (and the install command). VS Code
 * shows a warning equal to one still open in its place, so a second click looked like nothing happened:
 * each attempt's warning counts the attempts and so is always shown anew.
 */
async function piNotFound(message: string): Promise<void> {
  misses++;
  const text = `${message} Set piTree.piCommand in your User settings to pi's path.${misses > 1 ? ` (attempt ${misses})` : ''}`;
  log().warn(text);
  const pick = await vscode.window.showWarningMessage(
    text,
    OPEN_SETTING,
    ...(message.includes(INSTALL_PI) ? [COPY_INSTALL] : []),
  );
  if (pick === OPEN_SETTING) await vscode.commands.executeCommand('workbench.action.openSettings', PI_COMMAND_SETTING);
  else if (pick === COPY_INSTALL) await vscode.env.clipboard.writeText(INSTALL_PI);
}

/** The Settings editor's query for the setting that names pi. */
const PI_COMMAND_SETTING = '@id:piTree.piCommand';

/** The pi to start on `file`, or undefined when there is none (the user was told why, with the setting and the install command). */
export async function piToStart(
  file: string,
  cwd: string | undefined,
  piCommand: string,
): Promise<PiProgram | undefined> {
  if (!vscode.workspace.isTrusted)
    throw new Error('Continue in pi is not available in Restricted Mode: trust this workspace first.');
  try {
    return await findPi(piCommand, { avoid: [dirname(file), ...(cwd ? [cwd] : [])] });
  } catch (e) {
    if (!(e instanceof PiNotFoundError)) throw e;
    await piNotFound(e.message);
    return undefined;
  }
}

/**
 * Starts `pi` on `file` in a terminal, with pi-tree's bridge loaded for that run (`-e bridgeFile`) so the
 * tree drives it at once; pi keeps one bridge per session when "Connect pi" installed it as well.
 */
export async function startPi(
  pi: PiProgram,
  file: string,
  cwd: string | undefined,
  text?: string,
  bridgeFile?: string,
): Promise<void> {
  const options = piTerminalOptions(pi, file, cwd, bridgeFile ? ['-e', bridgeFile] : []);
  log().info(`starting ${options.shellPath} with ${JSON.stringify(options.shellArgs)} in ${options.cwd}`);
  vscode.window.createTerminal(options).show();
  if (text) {
    await vscode.env.clipboard.writeText(text);
    void vscode.window.showInformationMessage(
      'The message text is on the clipboard: paste it into pi to edit and send it again.',
    );
  }
}
