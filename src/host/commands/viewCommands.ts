// Commands of the Sessions view itself: scope, sort, filter, refresh, log. Choices are remembered per
// workspace.
import * as vscode from 'vscode';
import { log } from '../platform/log.js';
import { WorkspaceState, type StateValue } from '../platform/workspaceState.js';
import type { SessionsViewState } from '../sessions/sessionsView.js';
import type { Host } from './host.js';
import { registerCommand } from './register.js';

export function registerViewCommands(host: Host): void {
  const { context, view } = host;
  const command = (id: string, fn: (...args: unknown[]) => unknown) => registerCommand(context, id, fn);
  const state = new WorkspaceState(context.workspaceState);
  const remember = <K extends 'scope' | 'sort' | 'filter'>(key: K, value: SessionsViewState[K] & StateValue<K>) => {
    view.setState({ [key]: value } as Partial<SessionsViewState>);
    void state.update(key, value);
  };

  command('piTree.refresh', () => view.refresh());
  command('piTree.showAll', () => remember('scope', 'all'));
  command('piTree.showFolder', () => remember('scope', 'folder'));
  command('piTree.toggleScope', () =>
    vscode.commands.executeCommand(view.state.scope === 'all' ? 'piTree.showFolder' : 'piTree.showAll'),
  );
  command('piTree.sort', async () => {
    const pick = await vscode.window.showQuickPick(
      [
        { label: 'Threaded', description: 'forks under the session they came from', value: 'threaded' as const },
        { label: 'Recent', description: 'newest activity first', value: 'recent' as const },
        { label: 'Name', description: 'alphabetical by name or first message', value: 'name' as const },
      ].map((x) => ({ ...x, picked: x.value === view.state.sort })),
      { placeHolder: 'Sort sessions by' },
    );
    if (pick) remember('sort', pick.value);
  });
  const filter = async () => {
    const q = await vscode.window.showInputBox({
      prompt:
        'Filter sessions as pi\'s /resume does: words (fuzzy), "exact phrase", or re:regex. Matches names, all message text, ids and folders.',
      value: view.state.filter,
      placeHolder: 'e.g. refactor "session tree" or re:^fix',
    });
    if (q !== undefined) remember('filter', q.trim());
  };
  command('piTree.filter', filter);
  // The same, with a filled icon in the title bar while a filter is on.
  command('piTree.filterActive', filter);
  command('piTree.clearFilter', () => remember('filter', ''));
  command('piTree.showLog', () => log().show());
}
