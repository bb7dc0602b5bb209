// "Connect pi to pi-tree" / "Disconnect pi from pi-tree": the bridge for every pi session (not only
// the ones started with Continue in pi), installed with the user's consent into pi's own settings the
// way pi lists a local package, and removed again exactly (piConnect.ts). Refused in Restricted Mode.
import * as vscode from 'vscode';
import { connectPi, connectStatus, disconnectPi } from '../../core/piClient/piConnect.js';
import type { Host } from './host.js';
import { registerCommand } from './register.js';

const RESTRICTED = 'is not available in Restricted Mode: trust this workspace first (it changes what pi loads).';

export function registerPiConnectCommands(host: Host): void {
  registerCommand(host.context, 'piTree.connectPi', async () => {
    if (!vscode.workspace.isTrusted) throw new Error(`Connect pi to pi-tree ${RESTRICTED}`);
    const st = connectStatus(host.bridgeFile);
    if (st.connected && st.listed) {
      void vscode.window.showInformationMessage(
        `pi is connected to pi-tree already: ${st.paths.settingsFile} lists ${st.paths.bridgeCopy}.`,
      );
      return;
    }
    const pick = await vscode.window.showWarningMessage(
      'Connect pi to pi-tree?',
      {
        modal: true,
        detail:
          `pi-tree copies its bridge (a pi extension) to ${st.paths.bridgeCopy} and adds that path to "packages" in ${st.paths.settingsFile}. ` +
          'Every pi you start then opens a private socket (only your user can use it, with a random token) through which pi-tree moves, labels, forks and summarizes in that pi. ' +
          '"Disconnect pi from pi-tree" removes exactly this again. New pi sessions pick it up; running ones after a restart or /reload.',
      },
      'Connect',
    );
    if (pick !== 'Connect') return;
    const paths = connectPi(host.bridgeFile);
    void vscode.window.showInformationMessage(
      `pi is connected to pi-tree: pi loads ${paths.bridgeCopy} from ${paths.settingsFile}. Restart running pis (or /reload) to connect them.`,
    );
  });

  registerCommand(host.context, 'piTree.disconnectPi', async () => {
    if (!vscode.workspace.isTrusted) throw new Error(`Disconnect pi from pi-tree ${RESTRICTED}`);
    const st = connectStatus(host.bridgeFile);
    if (!st.connected) {
      void vscode.window.showInformationMessage(
        `pi-tree has not connected pi (nothing of pi-tree's in ${st.paths.settingsFile}). Sessions started with "Continue in pi" load the bridge for that run only.`,
      );
      return;
    }
    // Asked first, as Connect asks: it changes pi's settings, and pis started from now on load no bridge.
    const pick = await vscode.window.showWarningMessage(
      'Disconnect pi from pi-tree?',
      {
        modal: true,
        detail:
          `pi-tree takes its entry out of "packages" in ${st.paths.settingsFile} (putting the file back as it was when it can) and deletes ${st.paths.bridgeCopy}. ` +
          'pis started from then on no longer open the bridge: pi-tree changes their sessions by writing the files (asking first while pi writes them), until you connect again or start pi with "Continue in pi". Running pis keep their bridge until they exit.',
      },
      'Disconnect',
    );
    if (pick !== 'Disconnect') return;
    const r = disconnectPi();
    if (!r) {
      void vscode.window.showInformationMessage(
        `pi-tree had not connected pi (nothing of pi-tree's in ${st.paths.settingsFile}): nothing to take out.`,
      );
      return;
    }
    void vscode.window.showInformationMessage(
      r.exact
        ? `Disconnected: ${r.paths.settingsFile} is back as it was, and the bridge copy is removed. Running pis keep their bridge until they exit.`
        : `Disconnected: pi-tree's entry is removed from ${r.paths.settingsFile} (pi had rewritten that part, so only the entry was taken out), and the bridge copy is removed.`,
    );
  });
}
