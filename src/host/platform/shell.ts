// Finding an executable on PATH and quoting arguments for a terminal (pure: unit-tested).
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

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

