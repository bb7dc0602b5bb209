// Read-only virtual documents for VS Code's diff editor (ARCHITECTURE.md, Code changes): the two sides of a code
// change or of a comparison, held here under opaque random ids. A `pi-tree-change:` URI names an id and
// a display name (so the editor picks the language by extension); it never names a file of the user's,
// and nothing here reads or writes one.
import { nanoid } from 'nanoid';
import { basename } from 'node:path';
import * as vscode from 'vscode';

export const CHANGE_SCHEME = 'pi-tree-change';

/** Kept documents at most, and characters in all: the oldest go first (reopening a change makes them again). */
const MAX_DOCS = 400;
const MAX_CHARS = 64 * 1024 * 1024;

export interface DiffSide {
  text: string;
  /** A file name for display, e.g. `reader.ts`; its extension picks the language. */
  name: string;
  /** Which side, shown as the folder in the URI: `before`, `after`, `A`, `B`. */
  tag: string;
}

export class ChangeDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly docs = new Map<string, string>();
  private chars = 0;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(CHANGE_SCHEME, this);
  }

  /** Keeps `text` and returns the URI that shows it. */
  add(text: string, name: string, tag = 'text'): vscode.Uri {
    const id = nanoid(12);
    this.docs.set(id, text);
    this.chars += text.length;
    while (this.docs.size > MAX_DOCS || (this.chars > MAX_CHARS && this.docs.size > 2)) {
      const [oldest, t] = this.docs.entries().next().value!;
      this.docs.delete(oldest);
      this.chars -= t.length;
    }
    // The name's last segment only: whatever a session calls a file, the URI stays ours.
    const clean = (s: string) => s.replace(/[^\w.\- ()@+]/g, '_') || 'text';
    return vscode.Uri.from({
      scheme: CHANGE_SCHEME,
      path: `/${id}/${clean(tag)}/${clean(basename(name.replace(/\\/g, '/')))}`,
    });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const id = uri.path.split('/')[1] ?? '';
    return this.docs.get(id) ?? '(This change is no longer held: open it again from the session tree.)';
  }

  /** Opens VS Code's diff editor on two texts. */
  async openDiff(left: DiffSide, right: DiffSide, title: string): Promise<void> {
    await vscode.commands.executeCommand(
      'vscode.diff',
      this.add(left.text, left.name, left.tag),
      this.add(right.text, right.name, right.tag),
      title,
      { preview: true },
    );
  }

  dispose(): void {
    this.registration.dispose();
    this.docs.clear();
  }
}
