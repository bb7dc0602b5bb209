// A small stand-in for the `vscode` module, for unit tests of the host's command and view modules (as
// git-graph's tests/mocks/vscode.ts). It holds the state a test inspects and steers: the commands
// registered, the messages shown and the answers they get, settings (package.json's defaults, then
// the test's values), workspace folders and trust. What the host uses and the mock lacks throws with
// its name, so a gap shows as a clear failure, never as a silent undefined.
// Install it with test/support/vscode/install.ts before importing host code.
import { EventEmitter as NodeEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const repoRoot = join(__dirname, '..', '..', '..');

export class Disposable {
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  constructor(private readonly fn: () => unknown) {}
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private readonly listeners = new Set<(e: T) => unknown>();
  readonly event = (listener: (e: T) => unknown): Disposable => {
    this.listeners.add(listener);
    return new Disposable(() => this.listeners.delete(listener));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}
  static file(p: string): Uri {
    return new Uri('file', '', p, '', '');
  }
  static parse(s: string): Uri {
    const u = new URL(s);
    return new Uri(u.protocol.slice(0, -1), u.host, decodeURIComponent(u.pathname), u.search.slice(1), u.hash.slice(1));
  }
  static from(c: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme, c.authority ?? '', c.path ?? '', c.query ?? '', c.fragment ?? '');
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, base.authority, join(base.path, ...parts), '', '');
  }
  get fsPath(): string {
    return this.scheme === 'file' ? fileURLToPath(pathToFileURL(this.path)) : this.path;
  }
  with(c: Partial<{ scheme: string; path: string; query: string; fragment: string }>): Uri {
    return new Uri(c.scheme ?? this.scheme, this.authority, c.path ?? this.path, c.query ?? this.query, c.fragment ?? this.fragment);
  }
  toString(): string {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
  }
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}
export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}
export enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
  WorkspaceFolder = 3,
}
export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
}

export class TreeItem {
  description?: string;
  tooltip?: unknown;
  iconPath?: unknown;
  contextValue?: string;
  command?: { command: string; title: string; arguments?: unknown[] };
  id?: string;
  resourceUri?: Uri;
  constructor(
    public label: string | { label: string },
    public collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}
export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}
export class ThemeColor {
  constructor(readonly id: string) {}
}
export class MarkdownString {
  isTrusted?: boolean;
  supportThemeIcons?: boolean;
  constructor(public value = '') {}
  appendMarkdown(s: string): this {
    this.value += s;
    return this;
  }
  appendText(s: string): this {
    this.value += s.replace(/[\\`*_{}[\]()#+\-.!]/g, '\\$&');
    return this;
  }
  appendCodeblock(code: string, lang = ''): this {
    this.value += `\n\`\`\`${lang}\n${code}\n\`\`\`\n`;
    return this;
  }
}
export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}
export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: number | Position, b: number | Position, c?: number, d?: number) {
    this.start = typeof a === 'number' ? new Position(a, b as number) : a;
    this.end = typeof a === 'number' ? new Position(c!, d!) : (b as Position);
  }
}
export class CodeLens {
  constructor(
    readonly range: Range,
    public command?: { command: string; title: string; arguments?: unknown[] },
  ) {}
}
export class CancellationError extends Error {
  constructor() {
    super('Canceled');
  }
}
export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  readonly token = { isCancellationRequested: false, onCancellationRequested: this.emitter.event };
  cancel(): void {
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose(): void {
    this.emitter.dispose();
  }
}
export class LanguageModelError extends Error {
  static NotFound = (m?: string) => Object.assign(new LanguageModelError(m), { code: 'NotFound' });
  static NoPermissions = (m?: string) => Object.assign(new LanguageModelError(m), { code: 'NoPermissions' });
  static Blocked = (m?: string) => Object.assign(new LanguageModelError(m), { code: 'Blocked' });
}
export const LanguageModelChatMessage = { User: (content: string) => ({ role: 1, content }) };

// ---- state a test inspects and steers ----

type Handler = (...args: unknown[]) => unknown;
export interface Shown {
  level: 'info' | 'warning' | 'error';
  message: string;
  items: string[];
}
/** Everything the mock remembers; reset() between tests. */
export const mock = {
  commands: new Map<string, Handler>(),
  /** Built-in commands a test answers (setContext is recorded in `contexts`). */
  builtins: new Map<string, Handler>(),
  contexts: new Map<string, unknown>(),
  shown: [] as Shown[],
  /** Answers to showXMessage, by a test: given the message and its items, the item picked (undefined: dismissed). */
  answer: (_s: Shown): string | undefined => undefined,
  quickPick: (_items: unknown[]): unknown => undefined,
  inputBox: (_o: unknown): string | undefined => undefined,
  settings: new Map<string, unknown>(),
  trusted: true,
  workspaceFolders: [] as { uri: Uri; name: string; index: number }[],
  treeViews: new Map<string, MockTreeView>(),
  clipboard: '',
  logs: [] as string[],
  events: new NodeEmitter(),
  configChanged: new EventEmitter<{ affectsConfiguration(s: string): boolean }>(),
  foldersChanged: new EventEmitter<unknown>(),
  trustGranted: new EventEmitter<void>(),
  reset(): void {
    this.commands.clear();
    this.builtins.clear();
    this.contexts.clear();
    this.shown = [];
    this.answer = () => undefined;
    this.quickPick = () => undefined;
    this.inputBox = () => undefined;
    this.settings.clear();
    this.trusted = true;
    this.workspaceFolders = [];
    this.treeViews.clear();
    this.clipboard = '';
    this.logs = [];
  },
  /** Sets a setting and fires onDidChangeConfiguration as VS Code does. */
  setSetting(key: string, value: unknown): void {
    this.settings.set(key, value);
    this.configChanged.fire({ affectsConfiguration: (s: string) => key === s || key.startsWith(`${s}.`) });
  },
};

/** package.json's contributed settings: their defaults, as VS Code reads them. */
const contributed: Record<string, { default?: unknown }> = (() => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
  const conf = pkg.contributes.configuration;
  return Object.assign({}, ...(Array.isArray(conf) ? conf : [conf]).map((c: { properties: object }) => c.properties));
})();

export class MockTreeView {
  readonly selectionChanged = new EventEmitter<unknown>();
  readonly onDidChangeSelection = this.selectionChanged.event;
  readonly onDidChangeVisibility = new EventEmitter<unknown>().event;
  readonly onDidExpandElement = new EventEmitter<unknown>().event;
  readonly onDidCollapseElement = new EventEmitter<unknown>().event;
  selection: unknown[] = [];
  visible = true;
  message?: string;
  title?: string;
  description?: string;
  badge?: unknown;
  revealed: unknown[] = [];
  constructor(
    readonly id: string,
    readonly provider: { getChildren(e?: unknown): unknown; getTreeItem(e: unknown): unknown; onDidChangeTreeData?: unknown },
  ) {}
  async reveal(node: unknown): Promise<void> {
    this.revealed.push(node);
  }
  dispose(): void {
    mock.treeViews.delete(this.id);
  }
}

const show =
  (level: Shown['level']) =>
  async (message: string, ...rest: unknown[]) => {
    const items = rest.filter((r): r is string => typeof r === 'string');
    const s = { level, message, items };
    mock.shown.push(s);
    mock.events.emit('shown', s);
    return mock.answer(s);
  };

const logChannel = (name: string) => {
  const put = (level: string) => (m: string) => void mock.logs.push(`${level} ${m}`);
  return {
    name,
    info: put('info'),
    warn: put('warn'),
    error: put('error'),
    debug: put('debug'),
    trace: put('trace'),
    appendLine: put('info'),
    append: put('info'),
    show() {},
    hide() {},
    clear() {},
    dispose() {},
  };
};

export const window = {
  showInformationMessage: show('info'),
  showWarningMessage: show('warning'),
  showErrorMessage: show('error'),
  showQuickPick: async (items: unknown) => mock.quickPick((await items) as unknown[]),
  showInputBox: async (o: unknown) => mock.inputBox(o),
  withProgress: <T>(_o: unknown, task: (p: { report(v: unknown): void }, t: CancellationTokenSource['token']) => Thenable<T>) => task({ report() {} }, new CancellationTokenSource().token),
  createOutputChannel: (name: string) => logChannel(name),
  createTreeView: (id: string, o: { treeDataProvider: MockTreeView['provider'] }) => {
    const v = new MockTreeView(id, o.treeDataProvider);
    mock.treeViews.set(id, v);
    return v;
  },
  registerWebviewPanelSerializer: () => new Disposable(() => undefined),
  registerCustomEditorProvider: () => new Disposable(() => undefined),
  tabGroups: { all: [] as { tabs: { label: string }[] }[], close: async () => true },
  activeTextEditor: undefined,
};

const configuration = (section: string) => ({
  get<T>(key: string, fallback?: T): T | undefined {
    const full = `${section}.${key}`;
    if (mock.settings.has(full)) return mock.settings.get(full) as T;
    return full in contributed && contributed[full].default !== undefined ? (contributed[full].default as T) : fallback;
  },
  has: (key: string) => mock.settings.has(`${section}.${key}`) || `${section}.${key}` in contributed,
  inspect: (key: string) => ({ key: `${section}.${key}`, defaultValue: contributed[`${section}.${key}`]?.default, globalValue: mock.settings.get(`${section}.${key}`) }),
  update: async (key: string, value: unknown) => mock.setSetting(`${section}.${key}`, value),
});

export const workspace = {
  get isTrusted() {
    return mock.trusted;
  },
  get workspaceFolders() {
    return mock.workspaceFolders.length ? mock.workspaceFolders : undefined;
  },
  getConfiguration: (section = '') => configuration(section),
  onDidChangeConfiguration: mock.configChanged.event,
  onDidChangeWorkspaceFolders: mock.foldersChanged.event,
  onDidGrantWorkspaceTrust: mock.trustGranted.event,
  registerTextDocumentContentProvider: () => new Disposable(() => undefined),
};

export const commands = {
  registerCommand(id: string, fn: Handler): Disposable {
    if (mock.commands.has(id)) throw new Error(`command '${id}' already exists`);
    mock.commands.set(id, fn);
    return new Disposable(() => mock.commands.delete(id));
  },
  async executeCommand(id: string, ...args: unknown[]): Promise<unknown> {
    if (id === 'setContext') return void mock.contexts.set(args[0] as string, args[1]);
    const fn = mock.commands.get(id) ?? mock.builtins.get(id);
    if (!fn) throw new Error(`command '${id}' not found`);
    return fn(...args);
  },
};

export const languages = { registerCodeLensProvider: () => new Disposable(() => undefined) };
export const env = {
  clipboard: {
    readText: async () => mock.clipboard,
    writeText: async (t: string) => void (mock.clipboard = t),
  },
};
export const lm = { selectChatModels: async () => [], onDidChangeChatModels: new EventEmitter<void>().event };
export const l10n = { t: (s: string) => s };

/** An ExtensionContext over a temp folder: in-memory mementos, subscriptions to dispose. */
export function extensionContext(): {
  subscriptions: { dispose(): unknown }[];
  workspaceState: Memento;
  globalState: Memento;
  extensionUri: Uri;
  extensionPath: string;
  asAbsolutePath(p: string): string;
  dispose(): void;
} {
  const subscriptions: { dispose(): unknown }[] = [];
  return {
    subscriptions,
    workspaceState: new Memento(),
    globalState: new Memento(),
    extensionUri: Uri.file(repoRoot),
    extensionPath: repoRoot,
    asAbsolutePath: (p) => join(repoRoot, p),
    dispose: () => subscriptions.splice(0).forEach((s) => s.dispose()),
  };
}

export class Memento {
  private readonly values = new Map<string, unknown>();
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  get<T>(key: string, fallback?: T): T | undefined {
    return this.values.has(key) ? (this.values.get(key) as T) : fallback;
  }
  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, value);
  }
  setKeysForSync(): void {}
}
