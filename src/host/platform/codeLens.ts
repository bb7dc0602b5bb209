// When a pi session file is open as text: "Fork from here" and "Show in tree" above each user message.
import * as vscode from 'vscode';
import { parseMessageHead } from '../../core/scan/lineHead.js';

export class SessionCodeLens implements vscode.CodeLensProvider {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.emitter.event;

  constructor(private readonly enabled: () => boolean) {}

  refresh(): void {
    this.emitter.fire();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (!this.enabled() || doc.lineCount < 1 || !/"type"\s*:\s*"session"/.test(doc.lineAt(0).text)) return [];
    const lenses: vscode.CodeLens[] = [];
    const max = Math.min(doc.lineCount, 200_000);
    for (let i = 1; i < max; i++) {
      const text = doc.lineAt(i).text;
      if (!text.startsWith('{"type":"message"')) continue;
      const head = parseMessageHead(Buffer.from(text.slice(0, 400), 'latin1'));
      let id = head?.role === 'user' ? head.id : undefined;
      if (!head && text.includes('"role":"user"')) {
        try {
          const e = JSON.parse(text);
          if (e?.message?.role === 'user' && typeof e.id === 'string') id = e.id;
        } catch {
          // not a whole line
        }
      }
      if (!id) continue;
      const range = new vscode.Range(i, 0, i, 0);
      lenses.push(
        new vscode.CodeLens(range, {
          title: '$(repo-forked) Fork from here',
          command: 'piTree.forkAt',
          arguments: [doc.uri, id],
        }),
        new vscode.CodeLens(range, {
          title: '$(type-hierarchy) Show in tree',
          command: 'piTree.showInTree',
          arguments: [doc.uri, id],
        }),
      );
    }
    return lenses;
  }
}
