// Commands for the code at a node: restore it (a node of the tree in front, or a session's
// entry picked from the sidebar), compare it with the files now, undo and redo the last restore, and
// delete a session's checkpoints.
import * as vscode from 'vscode';
import { codeEntries, deleteCheckpoints } from '../../core/checkpoints/index.js';
import { describeEntry } from '../checkpoints/entryWords.js';
import { withSession, type Host } from './host.js';
import { registerCommand } from './register.js';
import { targetFile } from './targetSession.js';

/** Entries of the Restore Code… list named by their text (the rest by id: reading each costs a read of the file). */
const NAMED_MAX = 500;

export function registerCodeCommands(host: Host): void {
  const command = (id: string, fn: (...args: unknown[]) => unknown) => registerCommand(host.context, id, fn);
  const nodeCommand = (id: string, fn: (file: string, entryId: string) => Promise<unknown>) =>
    command(id, async (ctx) => {
      const token = (ctx as { panel?: unknown } | undefined)?.panel;
      const c = (typeof token === 'string' ? host.panels.byToken(token) : undefined) ?? host.panels.active();
      const entryId = (ctx as { entryId?: unknown } | undefined)?.entryId ?? c?.selectedId;
      if (!c || typeof entryId !== 'string')
        return void vscode.window.showInformationMessage('Select a node of a session tree first.');
      return fn(c.file, entryId);
    });

  nodeCommand('piTree.node.restoreCode', (file, id) =>
    withSession(host, file, async (s) => {
      if (s.readOnly) throw new Error(`This session is read-only: ${s.readOnly}.`);
      await host.code.restoreCode(s, file, id);
    }),
  );
  nodeCommand('piTree.node.codeDiff', (file, id) => withSession(host, file, (s) => host.code.showDiff(s, id)));

  const undo = (redo: boolean) => async (arg: unknown) => {
    const file = await targetFile(host, arg);
    if (file) await withSession(host, file, (s) => host.code.undo(s, file, redo));
  };
  command('piTree.undoRestore', undo(false));
  command('piTree.redoRestore', undo(true));

  command('piTree.restoreCode', async (arg) => {
    const file = await targetFile(host, arg);
    if (!file) return;
    await withSession(host, file, async (s) => {
      if (s.readOnly) throw new Error(`This session is read-only: ${s.readOnly}.`);
      const list = (await codeEntries(host.code.code(s))).reverse();
      if (!list.length)
        return void vscode.window.showInformationMessage(
          'No entry of this session has a code state (no checkpoint, and no edit or write call).',
        );
      // Named by their text, as the tree shows them (read for the newest ones a pick can list).
      const names = await Promise.all(list.slice(0, NAMED_MAX).map((e) => describeEntry(s, e.entryId)));
      const pick = await vscode.window.showQuickPick(
        list.map((e, i) => ({
          label: `$(${e.kind === 'snapshot' ? 'history' : 'file-code'}) ${names[i] ?? e.entryId}`,
          description: new Date(e.time).toLocaleString(),
          detail: `${e.kind === 'snapshot' ? `checkpoint (${e.snapshot})` : 'from recorded edit/write calls'}${e.files.length ? ` · ${e.files.slice(0, 4).join(', ')}${e.files.length > 4 ? ` +${e.files.length - 4}` : ''}` : ''}`,
          id: e.entryId,
        })),
        { title: 'Restore the code at…', placeHolder: 'Newest first', matchOnDetail: true },
      );
      if (pick) await host.code.restoreCode(s, file, pick.id);
    });
  });

  command('piTree.deleteCheckpoints', async (arg) => {
    const file = await targetFile(host, arg);
    if (!file) return;
    await withSession(host, file, async (s) => {
      const ok = await vscode.window.showWarningMessage(
        'Delete the checkpoints of this session? The session stays; the code at its nodes is then known only from its recorded edit and write calls.',
        { modal: true },
        'Delete Checkpoints',
      );
      if (ok !== 'Delete Checkpoints') return;
      const had = await deleteCheckpoints(host.repo().agentDir, String(s.header.cwd ?? ''), String(s.header.id ?? ''));
      void vscode.window.showInformationMessage(
        had ? 'Deleted the checkpoints of this session.' : 'This session had no checkpoints.',
      );
    });
  });
}
