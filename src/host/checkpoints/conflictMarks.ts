// The conflicts of an open restore preview, marked in it: the multi-file diff editor shows each file's
// name with its decorations, so a file the user changed since the agent wrote it carries a "!" badge in
// the conflict colour of source control, with why in its tooltip; the window title alone said "2
// conflicts". The marks last while the choice is open (the Explorer shows them meanwhile too, which is
// where the user would look for the file).
import * as vscode from 'vscode';
import { CODE_SCHEME } from './codeDocuments.js';

export class ConflictMarks implements vscode.FileDecorationProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri[] | undefined>();
  readonly onDidChangeFileDecorations = this.changed.event;
  private paths = new Map<string, string>();
  private readonly reg = vscode.window.registerFileDecorationProvider(this);

  /** Marks these files (absolute paths) with why each is a conflict, until `clear`. */
  mark(conflicts: readonly { path: string; why: string }[]): void {
    this.paths = new Map(conflicts.map((c) => [vscode.Uri.file(c.path).path, c.why]));
    this.changed.fire(undefined);
  }

  clear(): void {
    if (!this.paths.size) return;
    this.paths = new Map();
    this.changed.fire(undefined);
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== 'file' && uri.scheme !== CODE_SCHEME) return undefined;
    const why = this.paths.get(uri.path);
    if (why === undefined) return undefined;
    return {
      badge: '!',
      tooltip: `Conflict: ${why}`,
      color: new vscode.ThemeColor('gitDecoration.conflictingResourceForeground'),
      propagate: false,
    };
  }

  dispose(): void {
    this.reg.dispose();
    this.changed.dispose();
  }
}
