// Which session a command means: the sidebar row it was invoked on, a file URI (explorer, editor title,
// CodeLens), the selected row when the user acted there last (F2 in the sidebar), the tree in front, a
// session file open as text — else the user picks one.
import * as vscode from 'vscode';
import type { ViewNode } from '../sessions/sessionsView.js';
import type { Host } from './host.js';

export async function targetFile(host: Host, arg: unknown): Promise<string | undefined> {
  if (arg && typeof arg === 'object' && 'kind' in arg && (arg as ViewNode).kind === 'session')
    return (arg as Extract<ViewNode, { kind: 'session' }>).node.info.path;
  if (arg instanceof vscode.Uri) return arg.fsPath;
  const active = host.panels.active();
  const sel = host.treeView.selection.find((n) => n.kind === 'session');
  if (sel && sel.kind === 'session' && host.treeView.visible && (!active || host.actedIn() === 'sidebar'))
    return sel.node.info.path;
  if (active) return active.file;
  const ed = vscode.window.activeTextEditor?.document;
  if (ed?.uri.scheme === 'file' && ed.fileName.endsWith('.jsonl')) return ed.fileName;
  const items = host.view.sessions.map((i) => ({
    // The sidebar's title: a fork with no message yet reads as its source, with its place in the family.
    label: host.view.names.title(i),
    description: `${i.messageCount} msgs`,
    detail: i.path,
    path: i.path,
  }));
  if (!items.length) {
    void vscode.window.showInformationMessage('No pi sessions to choose from in this folder.');
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { placeHolder: 'Choose a pi session', matchOnDetail: true }))?.path;
}
