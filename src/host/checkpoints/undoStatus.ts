// "Undo restore" in the status bar while the last restore can be undone: the restore's notification
// goes after a few seconds, and the user who notices something wrong later should not have to find the
// notification centre or the sidebar menu. Shown after a restore (and a redo), gone after an undo, or
// once a new turn appends messages to that session (the code moved on: an undo would then meet pi's
// new edits as conflicts, so it is no longer the one-click way back).
import * as vscode from 'vscode';
import type { Session } from '../../core/session/session.js';

export class UndoStatus implements vscode.Disposable {
  private item: vscode.StatusBarItem | undefined;
  private unwatch: (() => void) | undefined;

  /** The restore of `file` can be undone: the item shows, for that session. */
  show(session: Session, file: string, title: string): void {
    this.hide();
    const item = vscode.window.createStatusBarItem('piTree.undoRestore', vscode.StatusBarAlignment.Left, 50);
    item.name = 'pi Tree: Undo Restore';
    item.text = '$(discard) Undo restore';
    item.tooltip = `Undo the last code restore of ${title}: put the files back as they were`;
    item.accessibilityInformation = { label: `Undo the last code restore of ${title}`, role: 'button' };
    item.command = {
      command: 'piTree.undoRestore',
      title: 'Undo Last Code Restore',
      arguments: [vscode.Uri.file(file)],
    };
    item.show();
    this.item = item;
    this.unwatch = session.onChange((c) => {
      // (the restore's own leaf move appends a leaf record, never a message)
      if (c.kind === 'reloaded' || c.records.some((r) => r.type === 'message')) this.hide();
    });
  }

  hide(): void {
    this.unwatch?.();
    this.unwatch = undefined;
    this.item?.dispose();
    this.item = undefined;
  }

  dispose(): void {
    this.hide();
  }
}
