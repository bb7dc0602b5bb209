// Everything pi-tree keeps in VS Code's workspace state, in one place (as git-graph's extensionState):
// each key with the shape of its value. A stored value of another shape (an older version's, or damaged)
// reads as the caller's default instead of reaching the code that trusts the type.
import type * as vscode from 'vscode';
import type { SortMode } from '../../core/listing/sessionList.js';

const isRecordOfStrings = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');

const KEYS = {
  /** The sidebar's scope, sort and filter, as last chosen (else the settings). */
  scope: { key: 'piTree.scope', is: (v: unknown): v is 'folder' | 'all' => v === 'folder' || v === 'all' },
  sort: { key: 'piTree.sort', is: (v: unknown): v is SortMode => v === 'threaded' || v === 'recent' || v === 'name' },
  filter: { key: 'piTree.filter', is: (v: unknown): v is string => typeof v === 'string' },
  /** Open trees VS Code restores after a restart: an opaque token (in the webview's state) → session file. */
  panels: { key: 'piTree.panels', is: isRecordOfStrings },
  /** Branches marked hidden: [session id, entry ids][], least recently changed first (compare/hiddenMarks.ts). */
  hiddenBranches: { key: 'piTree.hiddenBranches', is: (v: unknown): v is [string, string[]][] => Array.isArray(v) },
  /** The check command of the last variants run ("Try Variants from Here"), offered again. */
  variantsCheck: { key: 'piTree.variantsCheck', is: (v: unknown): v is string => typeof v === 'string' },
} as const;

type Keys = typeof KEYS;
export type StateName = keyof Keys;
export type StateValue<K extends StateName> = Keys[K]['is'] extends (v: unknown) => v is infer T ? T : never;

export class WorkspaceState {
  constructor(private readonly memento: vscode.Memento) {}

  get<K extends StateName>(name: K, fallback: StateValue<K>): StateValue<K> {
    const v = this.memento.get<unknown>(KEYS[name].key);
    return KEYS[name].is(v) ? (v as StateValue<K>) : fallback;
  }

  update<K extends StateName>(name: K, value: StateValue<K>): Thenable<void> {
    return this.memento.update(KEYS[name].key, value);
  }
}
