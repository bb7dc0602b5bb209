// "Continue in pi": the one place that decides how a session goes on in pi. A pi with the bridge that
// already runs it is told nothing new (the tree's leaf is pi's); one that does not answer is named; else
// pi starts in a terminal, in the session's folder, with the bridge loaded.
import * as vscode from 'vscode';
import { findBridge, PiUnresponsiveError } from '../../core/piClient/discovery.js';
import type { SessionInfoCache } from '../../core/listing/sessionInfo.js';
import type { Session } from '../../core/session/session.js';
import { readConfig } from './config.js';
import { piToStart, startPi, type BeforePi } from './piTerminal.js';

export interface PiLaunchDeps {
  /** The session when a tree holds it open (its header's cwd), else undefined. */
  held(file: string): Promise<Session> | undefined;
  /** The listing's cache: the cwd of a listed session for a stat, never the whole file indexed. */
  cache(): SessionInfoCache;
  /** Where running pis announce their bridges. */
  bridgeDirs: string[];
  /** dist/pi-bridge.js of this extension. */
  bridgeFile: string;
}

export type ContinueInPi = (file: string, text?: string, before?: BeforePi) => Promise<void>;

/**
 * Continues `file` in pi with `text` as its first prompt. `before` (a move of the leaf) runs only once pi
 * is known to go on: without pi the session stays as it was.
 */
export function continueInPi(d: PiLaunchDeps): ContinueInPi {
  // The pi to start on `file` and the folder to start it in (undefined: none, the user was told why).
  const piFor = async (file: string) => {
    const held = d.held(file);
    const cwd = held
      ? await held.then((s) => String(s.header.cwd ?? '')).catch(() => undefined)
      : ((
          await d
            .cache()
            .get(file)
            .catch(() => null)
        )?.cwd ?? undefined);
    const pi = await piToStart(file, cwd, readConfig().piCommand);
    return pi && { pi, cwd };
  };
  return async (file, text, before) => {
    let running;
    try {
      running = await findBridge(file, { dirs: d.bridgeDirs });
    } catch (e) {
      // A pi runs it but does not answer (stopped with Ctrl+Z): a second pi on the same file is not the answer.
      if (!(e instanceof PiUnresponsiveError)) throw e;
      void vscode.window.showWarningMessage(`${e.message}. Resume it (fg in its terminal) and continue there.`);
      return;
    }
    const via = running ? { running } : await piFor(file);
    if (!via) return;
    if (before) {
      const go = await before();
      if (!go) return;
      text = go.text;
    }
    if ('running' in via) {
      if (text) await vscode.env.clipboard.writeText(text);
      void vscode.window.showInformationMessage(
        `pi ${via.running.record.pid} already runs this session (with the pi-tree bridge): its next prompt continues from the tree's leaf.${text ? ' The message text is on the clipboard.' : ''}`,
      );
      return;
    }
    await startPi(via.pi, file, via.cwd, text, d.bridgeFile);
  };
}
