// The host's link to running pis: the registry of pis with the bridge (the sidebar marks their sessions,
// the trees connect), this version's bridge copied where `pi-tree connect` put one, and the gateway that
// routes a change through the pi running its session (asking to wait while pi is busy).
import * as vscode from 'vscode';
import { findBridge } from '../../core/piClient/discovery.js';
import { refreshBridgeCopy } from '../../core/piClient/piConnect.js';
import { BridgeRegistry } from './bridgeRegistry.js';
import { PiGateway } from './piGateway.js';

export interface PiLink {
  bridges: BridgeRegistry;
  gateway: PiGateway;
  /** dist/pi-bridge.js of this extension. */
  bridgeFile: string;
}

export function createPiLink(
  context: vscode.ExtensionContext,
  out: vscode.LogOutputChannel,
  changed: () => void,
): PiLink {
  const bridges = new BridgeRegistry();
  context.subscriptions.push(
    bridges,
    bridges.onDidChange(() => {
      const pis = bridges.all().map((b) => `${b.record.pid} (${b.record.sessionFile})`);
      out.info(`running pis with the bridge: ${pis.join(', ') || 'none'}`);
      changed();
    }),
  );
  const bridgeFile = context.asAbsolutePath('dist/pi-bridge.js');
  try {
    if (refreshBridgeCopy(bridgeFile)) out.info("updated pi-tree's bridge in pi's agent folder to this version");
  } catch (e) {
    out.warn(`could not update the connected bridge: ${String(e)}`);
  }
  const gateway = new PiGateway({
    // Asked afresh per action (a pi that started or quit a moment ago counts), in the registry's places.
    find: (file) => findBridge(file, { dirs: bridges.dirs }),
    ui: {
      askWait: async (message) =>
        (await vscode.window.showWarningMessage(message, { modal: true }, 'Wait for pi')) === 'Wait for pi',
      waiting: (message, work, cancel) =>
        Promise.resolve(
          vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title: message, cancellable: !!cancel },
            (_progress, token) => {
              token.onCancellationRequested(() => cancel?.());
              return work;
            },
          ),
        ),
    },
    log: (m) => out.info(m),
  });
  return { bridges, gateway, bridgeFile };
}
