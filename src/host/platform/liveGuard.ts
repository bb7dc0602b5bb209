// pi keeps its own leaf in memory and never re-reads its file: a change made while pi writes the
// session is invisible to that pi. So changing a live session asks first.
import * as vscode from 'vscode';

export async function confirmLiveWrite(isLive: boolean, action: string, canFork = true): Promise<boolean | 'fork'> {
  if (!isLive) return true;
  const message = `pi is writing this session right now. pi keeps its own position in memory and will not see it if you ${action} here.`;
  const pick = canFork
    ? await vscode.window.showWarningMessage(
        message,
        { modal: true, detail: 'Fork instead to continue in a new session file, or change it anyway.' },
        'Fork Instead',
        'Do It Anyway',
      )
    : await vscode.window.showWarningMessage(message, { modal: true }, 'Do It Anyway');
  if (pick === 'Fork Instead') return 'fork';
  return pick === 'Do It Anyway';
}
