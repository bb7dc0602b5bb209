// Typed access to pi-tree's settings (contributed in package.json under `piTree.*`).
import * as vscode from 'vscode';
import type { SortMode } from '../../core/listing/sessionList.js';
import type { TreeLayout } from '../../protocol.js';
import { isFilterMode, type FilterMode } from '../../shared/treeFilter.js';

export interface PiTreeConfig {
  sessionDir: string;
  scope: 'folder' | 'all';
  sort: SortMode;
  filter: string;
  clickAction: 'select' | 'move';
  treeFilter: FilterMode;
  /** How a session tree opens: the graph, or one row per entry. */
  treeView: TreeLayout;
  piCommand: string;
  liveWindowSeconds: number;
  codeLens: boolean;
}

export function readConfig(): PiTreeConfig {
  const c = vscode.workspace.getConfiguration('piTree');
  return {
    sessionDir: c.get<string>('sessionDir', '').trim(),
    scope: c.get<'folder' | 'all'>('sessions.scope', 'folder'),
    sort: c.get<SortMode>('sessions.sort', 'threaded'),
    filter: c.get<string>('sessions.filter', ''),
    clickAction: c.get<'select' | 'move'>('tree.clickAction', 'select'),
    treeFilter: ((v) => (isFilterMode(v) ? v : 'default'))(c.get<unknown>('tree.defaultFilter')),
    treeView: c.get<unknown>('tree.view') === 'rows' ? 'rows' : 'graph',
    piCommand: c.get<string>('piCommand', 'pi').trim() || 'pi',
    liveWindowSeconds: Math.max(5, c.get<number>('liveWindowSeconds', 120)),
    codeLens: c.get<boolean>('codeLens.enabled', true),
  };
}
