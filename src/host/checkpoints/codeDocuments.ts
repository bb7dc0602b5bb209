// Read-only documents holding the code at a node (a checkpoint's file, or one the session's record
// rebuilds), for VS Code's diff editors: `pi-tree-code:<the file's own path>?t=<token>`. The token names
// bytes the host keeps (the newest few thousand, bounded in size); the path is the real file's, so the
// editors show its name and language and pair it with the file on disk (as git's diffs do).
import { nanoid } from 'nanoid';
import * as vscode from 'vscode';

export const CODE_SCHEME = 'pi-tree-code';

const MAX_DOCS = 4000;
const MAX_BYTES = 256 * 1024 * 1024;

export class CodeDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly docs = new Map<string, Buffer>();
  private bytes = 0;
  private readonly reg: vscode.Disposable;

  constructor() {
    this.reg = vscode.workspace.registerTextDocumentContentProvider(CODE_SCHEME, this);
  }

  /** A document with `bytes` (empty for a file that is absent there), named like `path` for its language. */
  put(bytes: Buffer | undefined, path: string, what: string): vscode.Uri {
    const token = nanoid(12);
    const b = bytes ?? Buffer.alloc(0);
    this.docs.set(token, b);
    this.bytes += b.length;
    while (this.docs.size > MAX_DOCS || this.bytes > MAX_BYTES) {
      const [k, v] = this.docs.entries().next().value as [string, Buffer];
      this.docs.delete(k);
      this.bytes -= v.length;
    }
    return vscode.Uri.from({
      scheme: CODE_SCHEME,
      path: vscode.Uri.file(path).path,
      query: new URLSearchParams({ t: token, what }).toString(),
    });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const token = new URLSearchParams(uri.query).get('t') ?? '';
    const b = this.docs.get(token);
    if (!b) return '(this view is out of date: open the comparison again)';
    if (b.subarray(0, 8000).includes(0)) return `(a binary file of ${b.length} bytes)`;
    return b.toString('utf8');
  }

  dispose(): void {
    this.reg.dispose();
    this.docs.clear();
  }
}
