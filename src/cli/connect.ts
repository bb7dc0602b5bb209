// `pi-tree connect` / `pi-tree disconnect`: the bridge for every pi session without VS Code, exactly as
// the extension's "Connect pi to pi-tree" installs it (core/piClient/piConnect.ts): a stable copy of the
// bridge in `<pi's agent dir>/pi-tree/` listed in `packages` of pi's settings.json, and taken out again
// byte for byte. Running the command is the consent the extension asks for in a dialog; what it changes
// is printed. PI_CODING_AGENT_DIR chooses pi's agent dir, as for pi.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { connectPaths, connectPi, connectStatus, disconnectPi } from '../core/piClient/piConnect.js';
import { args } from './commands.js';
import type { CliIO } from './io.js';
import { safeText } from './safeText.js';

/**
 * The bridge bundle shipped beside this CLI (dist/pi-bridge.js next to dist/cli.js, also in an
 * installed package); from the sources (tsx), the built one in dist/.
 */
export function bundledBridge(): string {
  const beside = [join(__dirname, 'pi-bridge.js'), join(__dirname, '..', '..', 'dist', 'pi-bridge.js')];
  const found = beside.find((p) => existsSync(p));
  if (!found)
    throw new Error(
      `the pi-tree bridge (pi-bridge.js) is missing beside ${__dirname}: reinstall pi-tree (or run npm run build)`,
    );
  return found;
}

export async function connect(argv: string[], io: CliIO): Promise<number> {
  const { values } = args(argv, { status: { type: 'boolean' } }, [0, 0], 'pi-tree connect [--status]');
  const bridge = bundledBridge();
  const st = connectStatus(bridge, io.env);
  const settings = safeText(st.paths.settingsFile);
  const copy = safeText(st.paths.bridgeCopy);
  if (values.status) {
    if (!st.connected) io.out(`not connected: pi-tree has added nothing to ${settings}\n`);
    else
      io.out(
        `connected: ${settings} ${st.listed ? 'lists' : 'no longer lists'} ${copy}${st.upToDate ? '' : ' (the copy is not this pi-tree\'s bridge: run "pi-tree connect" to update it)'}\n`,
      );
    return 0;
  }
  if (st.connected && st.listed) {
    const updated = !st.upToDate;
    connectPi(bridge, io.env); // refreshes an outdated copy
    io.out(`already connected: ${settings} lists ${copy}${updated ? ' (the copy is updated to this pi-tree)' : ''}\n`);
    return 0;
  }
  const existed = existsSync(st.paths.settingsFile);
  const paths = connectPi(bridge, io.env);
  io.out(
    `connected: pi loads the pi-tree bridge from ${safeText(paths.bridgeCopy)}, listed in "packages" of ${safeText(paths.settingsFile)}` +
      `${existed ? ' (its bytes before are in settings.json.pi-tree.bak)' : ' (made for it)'}. New pi sessions load it; running ones after /reload or a restart. ` +
      `"pi-tree disconnect" takes it out again.\n`,
  );
  return 0;
}

export async function disconnect(argv: string[], io: CliIO): Promise<number> {
  args(argv, {}, [0, 0], 'pi-tree disconnect');
  const r = disconnectPi(io.env);
  if (!r) {
    io.out(
      `not connected: pi-tree has added nothing to ${safeText(connectPaths(io.env).settingsFile)}; nothing to do\n`,
    );
    return 0;
  }
  const settings = safeText(r.paths.settingsFile);
  io.out(
    r.exact
      ? `disconnected: ${settings} is back as it was and the bridge copy is removed. Running pis keep their bridge until they exit.\n`
      : `disconnected: pi-tree's entry is taken out of ${settings} (pi had rewritten that part, so only the entry was removed) and the bridge copy is removed.\n`,
  );
  return 0;
}
