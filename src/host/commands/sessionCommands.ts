// Commands on whole sessions (sidebar rows, the palette, explorer and CodeLens): open, rename, fork,
// clone, delete, reveal, copy path, open as text, continue in pi.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { fullText } from '../../core/preview.js';
import { messageOf } from '../../core/types.js';
import { log } from '../platform/log.js';
import { oneLine } from '../sessions/sessionsView.js';
import { withSession, type Host } from './host.js';
import { registerCommand } from './register.js';
import { targetFile } from './targetSession.js';

export const UNTRUSTED = 'the workspace is not trusted (pi-tree only reads sessions in Restricted Mode)';

export function registerSessionCommands(host: Host): void {
  const { view } = host;
  const command = (id: string, fn: (...args: unknown[]) => unknown) => registerCommand(host.context, id, fn);
  /** The file a command means, or undefined when the user picked nothing. */
  const target = (arg: unknown) => targetFile(host, arg);

  command('piTree.openTree', async (arg) => {
    const file = await target(arg);
    if (file) await host.panels.open(file);
  });
  command('piTree.rename', async (arg) => {
    const file = await target(arg);
    if (!file) return;
    await withSession(host, file, async (s) => {
      if (s.readOnly) throw new Error(`This session is read-only: ${s.readOnly}.`);
      const name = await vscode.window.showInputBox({ prompt: 'Session name (empty clears it)', value: s.name ?? '' });
      if (name === undefined) return;
      // Through the running pi when there is one; else the file (asking first when it looks live).
      await host.actionsFor(s, file).rename(name);
      view.scheduleRefresh(0);
    });
  });
  command('piTree.forkFromMessage', async (arg) => {
    const file = await target(arg);
    if (!file) return;
    await withSession(host, file, async (s) => {
      const users = s.index.live().filter((r) => r.type === 'message' && r.role === 'user');
      const entries = await s.load(users);
      const items = users
        .map((r, i) => ({ r, e: entries[i] }))
        .filter((x) => x.e)
        .map(({ r, e }) => ({ label: oneLine(fullText(messageOf(e!)?.content), 100), description: new Date(r.time).toLocaleString(), id: r.id }))
        .filter((x) => x.label.trim())
        .reverse();
      if (!items.length) return void vscode.window.showInformationMessage('This session has no user messages to fork from.');
      const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Fork from message (the new session starts just before it)', matchOnDescription: true });
      if (!pick) return;
      const r = await host.actionsFor(s, file).fork(pick.id);
      if ('cancelled' in r) return;
      view.scheduleRefresh(0);
      if (r.viaPi !== undefined) {
        void vscode.window.showInformationMessage(`pi ${r.viaPi} forked into ${r.fileName} and runs it now; the message text is in its editor.`);
        return;
      }
      if (r.text !== undefined) await vscode.env.clipboard.writeText(r.text);
      void vscode.window
        .showInformationMessage(`Forked into ${basename(r.file)}. The message text is offered in its tree for re-editing (and is on the clipboard).`, 'Continue in pi')
        .then((p) => p && host.continueInPi(r.file, r.text));
    });
  });
  command('piTree.forkAt', async (uri, id) => {
    const file = uri instanceof vscode.Uri ? uri.fsPath : await target(uri);
    if (!file || typeof id !== 'string') return;
    await withSession(host, file, async (s) => {
      const r = await host.actionsFor(s, file).fork(id);
      view.scheduleRefresh(0);
      if (!('cancelled' in r) && r.viaPi !== undefined) void vscode.window.showInformationMessage(`pi ${r.viaPi} forked into ${r.fileName} and runs it now.`);
    });
  });
  command('piTree.showInTree', async (uri, id) => {
    const file = uri instanceof vscode.Uri ? uri.fsPath : await target(uri);
    if (file) await host.panels.open(file, typeof id === 'string' ? id : undefined);
  });
  command('piTree.clone', async (arg) => {
    const file = await target(arg);
    if (!file) return;
    await withSession(host, file, async (s) => {
      if (s.leafId === null) throw new Error('This session is empty: there is nothing to clone.');
      const r = await host.actionsFor(s, file).clone(s.leafId);
      view.scheduleRefresh(0);
      if (!('cancelled' in r) && r.viaPi !== undefined) void vscode.window.showInformationMessage(`pi ${r.viaPi} cloned the session into ${r.fileName} and runs the clone now.`);
    });
  });
  command('piTree.delete', async (arg) => {
    const file = await target(arg);
    if (!file) return;
    if (!vscode.workspace.isTrusted) throw new Error(UNTRUSTED);
    const info = view.info(file);
    const live = info && view.isLive(info) ? ' pi is writing it right now.' : '';
    const pick = await vscode.window.showWarningMessage(`Move the session "${info?.name ?? basename(file)}" to the trash?${live}`, { modal: true, detail: file }, 'Move to Trash');
    if (pick !== 'Move to Trash') return;
    try {
      await vscode.workspace.fs.delete(vscode.Uri.file(file), { useTrash: true });
    } catch (e) {
      // Remote/web hosts may not offer a trash: fall back to the freedesktop/macOS trash, never unlink.
      log().info(`workspace.fs trash failed (${String(e)}); using pi-tree's trash`);
      await host.repo().delete(file);
    }
    host.panels.closeFile(file);
    host.repo().cache.forget(file);
    view.scheduleRefresh(0);
  });
  command('piTree.revealInExplorer', async (arg) => {
    const file = await target(arg);
    if (file) await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(file));
  });
  command('piTree.copyPath', async (arg) => {
    const file = await target(arg);
    if (file) await vscode.env.clipboard.writeText(file);
  });
  command('piTree.openAsText', async (arg) => {
    const file = await target(arg);
    if (file) await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), 'default');
  });
  command('piTree.continueInPi', async (arg) => {
    const file = await target(arg);
    if (file) await host.continueInPi(file);
  });
}
