// Commands on whole sessions (sidebar rows, the palette, explorer and CodeLens): open, rename, fork,
// clone, delete, reveal, copy path, open as text, continue in pi.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { hasUserMessages, userMessageLabels } from '../../core/listing/messageLabels.js';
import type { Session } from '../../core/session/session.js';
import { log } from '../platform/log.js';
import { deleteCheckpoints } from '../../core/checkpoints/index.js';
import { sessionDeleted } from '../../core/variants/index.js';
import { ROW_OPEN_COMMAND } from '../sessions/sessionsView.js';
import { withSession, type Host } from './host.js';
import { registerCommand } from './register.js';
import { targetFile } from './targetSession.js';

/** Two runs of a row's command closer than this are a double click (VS Code runs it on each click). */
const DOUBLE_CLICK_MS = 600;

export const UNTRUSTED = 'the workspace is not trusted (pi-tree only reads sessions in Restricted Mode)';

export function registerSessionCommands(host: Host): void {
  const command: Command = (id, fn) => registerCommand(host.context, id, fn);
  /** The file a command means, or undefined when the user picked nothing. */
  const target = (arg: unknown) => targetFile(host, arg);
  registerOpenCommands(host, command, target);
  registerCopyCommands(command, target);
  registerChangeCommands(host, command, target);
}

type Command = (id: string, fn: (...args: unknown[]) => unknown) => void;
type Target = (arg: unknown) => Promise<string | undefined>;

/** Opening a session's tree: from a sidebar row (click, double click, Enter), the palette, a CodeLens. */
function registerOpenCommands(host: Host, command: Command, target: Target): void {
  command('piTree.openTree', async (arg) => {
    const file = await target(arg);
    if (file) await host.panels.open(file);
  });
  // A sidebar row opens as VS Code's preview editors do: a single click shows the tree and leaves the
  // keyboard in the sidebar (F2 still renames the session there); a double click or Enter takes it. VS
  // Code runs a row's command on the click and again on the double click, without saying which: a
  // second run for the same row within a double click's time is the double click. Enter is bound to
  // piTree.openRowWithFocus, which has the list open its focused row with the focus.
  let lastRowOpen: { file: string; at: number } | undefined;
  let focusNextRow = 0;
  command(ROW_OPEN_COMMAND, async (arg) => {
    const file = await target(arg);
    if (!file) return;
    const now = Date.now();
    const double = lastRowOpen?.file === file && now - lastRowOpen.at < DOUBLE_CLICK_MS;
    const takeFocus = double || now < focusNextRow;
    focusNextRow = 0;
    lastRowOpen = double ? undefined : { file, at: now };
    await host.panels.open(file, undefined, { preserveFocus: !takeFocus });
  });
  command('piTree.openRowWithFocus', async () => {
    focusNextRow = Date.now() + 1500;
    // The list's own Enter: it opens the focused row (running ROW_OPEN_COMMAND), or folds a folder row.
    await vscode.commands.executeCommand('list.select');
  });
  command('piTree.showInTree', async (uri, id) => {
    const file = uri instanceof vscode.Uri ? uri.fsPath : await target(uri);
    if (file) await host.panels.open(file, typeof id === 'string' ? id : undefined);
  });
  // pi's /compact from the palette or a sidebar row: the session's tree opens (or comes to the front)
  // with the compaction dialog, the same preview → edit → commit as in the tree.
  command('piTree.compact', async (arg) => {
    const file = await target(arg);
    if (file) (await host.panels.open(file)).invoke('compact');
  });
  command('piTree.continueInPi', async (arg) => {
    const file = await target(arg);
    if (file) await host.continueInPi(file);
  });
}

/** The session's file elsewhere: the OS's file manager, the clipboard, a text editor. */
function registerCopyCommands(command: Command, target: Target): void {
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
}

/** What changes sessions: rename, fork, clone (through a running pi when there is one), delete. */
function registerChangeCommands(host: Host, command: Command, target: Target): void {
  const { view } = host;
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
    if (file) await withSession(host, file, (s) => forkFromMessage(host, s, file));
  });
  command('piTree.forkAt', async (uri, id) => {
    const file = uri instanceof vscode.Uri ? uri.fsPath : await target(uri);
    if (!file || typeof id !== 'string') return;
    await withSession(host, file, async (s) => {
      const r = await host.actionsFor(s, file).fork(id);
      view.scheduleRefresh(0);
      if (!('cancelled' in r) && r.viaPi !== undefined)
        void vscode.window.showInformationMessage(`pi ${r.viaPi} forked into ${r.fileName} and runs it now.`);
    });
  });
  command('piTree.clone', async (arg) => {
    const file = await target(arg);
    if (!file) return;
    await withSession(host, file, async (s) => {
      if (s.leafId === null) throw new Error('This session is empty: there is nothing to clone.');
      const r = await host.actionsFor(s, file).clone(s.leafId);
      view.scheduleRefresh(0);
      if (!('cancelled' in r) && r.viaPi !== undefined)
        void vscode.window.showInformationMessage(
          `pi ${r.viaPi} cloned the session into ${r.fileName} and runs the clone now.`,
        );
    });
  });
  command('piTree.delete', async (arg) => {
    const file = await target(arg);
    if (file) await deleteSession(host, file);
  });
}

/** "Fork from message": the user picks a user message; the new session starts just before it. */
async function forkFromMessage(host: Host, s: Session, file: string): Promise<void> {
  if (!hasUserMessages(s.index)) return void vscode.window.showInformationMessage(NO_USER_MESSAGES);
  const id = await pickUserMessage(s);
  if (id === undefined) return;
  const r = await host.actionsFor(s, file).fork(id);
  if ('cancelled' in r) return;
  host.view.scheduleRefresh(0);
  if (r.viaPi !== undefined) {
    void vscode.window.showInformationMessage(
      `pi ${r.viaPi} forked into ${r.fileName} and runs it now; the message text is in its editor.`,
    );
    return;
  }
  if (r.text !== undefined) await vscode.env.clipboard.writeText(r.text);
  void vscode.window
    .showInformationMessage(
      `Forked into ${basename(r.file)}. The message text is offered in its tree for re-editing (and is on the clipboard).`,
      'Continue in pi',
    )
    .then((p) => p && host.continueInPi(r.file, r.text));
}

/** Moves a session to the trash (after asking), closes its trees and deletes its checkpoints. */
async function deleteSession(host: Host, file: string): Promise<void> {
  const { view } = host;
  if (!vscode.workspace.isTrusted) throw new Error(UNTRUSTED);
  const info = view.info(file);
  const live = info && view.isLive(info) ? ' pi is writing it right now.' : '';
  const pick = await vscode.window.showWarningMessage(
    `Move the session "${info?.name ?? basename(file)}" to the trash?${live}`,
    { modal: true, detail: file },
    'Move to Trash',
  );
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
  // Its checkpoints go with it (the trash keeps the session file; the code it knew stays in its record).
  if (info?.cwd && info.id)
    await deleteCheckpoints(host.repo().agentDir, info.cwd, info.id).catch((e: unknown) =>
      log().warn(`checkpoints of ${file}: ${String(e)}`),
    );
  // A variant's session takes its folder with it.
  if (info?.cwd && info.id)
    await sessionDeleted(host.repo().agentDir, { cwd: info.cwd, id: info.id }).catch((e: unknown) =>
      log().warn(`the variant folder of ${file}: ${String(e)}`),
    );
  view.scheduleRefresh(0);
}

const NO_USER_MESSAGES = 'This session has no user messages to fork from.';

/**
 * The id of the user message picked to fork from, or undefined. The pick shows at once, busy while the
 * labels are read (a big session has a hundred thousand user messages); closing it stops the reading.
 */
async function pickUserMessage(s: Session): Promise<string | undefined> {
  const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { id: string }>();
  pick.placeholder = 'Fork from message (the new session starts just before it)';
  pick.matchOnDescription = true;
  pick.busy = true;
  const stop = new AbortController();
  const picked = new Promise<string | undefined>((resolve) => {
    pick.onDidAccept(() => {
      const item = pick.activeItems[0];
      if (!item) return;
      resolve(item.id);
      pick.hide();
    });
    pick.onDidHide(() => {
      stop.abort();
      resolve(undefined);
    });
  });
  pick.show();
  try {
    const items = await userMessageLabels(s, { signal: stop.signal });
    if (stop.signal.aborted) return undefined;
    if (!items.length) {
      pick.hide();
      void vscode.window.showInformationMessage(NO_USER_MESSAGES);
      return undefined;
    }
    pick.items = items;
    pick.busy = false;
    return await picked;
  } catch (e) {
    if (stop.signal.aborted) return undefined;
    throw e;
  } finally {
    pick.dispose();
  }
}
