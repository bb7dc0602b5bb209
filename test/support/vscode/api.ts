// A small stand-in for the `vscode` module, for unit tests of the host's command and view modules (as
// git-graph's tests/mocks/vscode.ts). It holds the state a test inspects and steers: the commands
// registered, the messages shown and the answers they get, the quick picks asked and the items picked,
// the documents opened and the tabs open, settings (package.json's defaults, then the test's values),
// workspace folders and trust. What the host uses and the mock lacks throws with its name (a member of
// the module or of one of its namespaces), so a gap shows as a clear failure, never as a silent
// undefined, also where the host swallows errors of work it only starts in the background.
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
    return new Uri(
      c.scheme ?? this.scheme,
      this.authority,
      c.path ?? this.path,
      c.query ?? this.query,
      c.fragment ?? this.fragment,
    );
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
export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
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
  /** A modal dialog (rather than a notification), and its detail text. */
  modal?: boolean;
  detail?: string;
}
export interface QuickPickItem {
  label: string;
  kind?: QuickPickItemKind;
  description?: string;
  detail?: string;
}
/** One quick pick the host showed (showQuickPick or createQuickPick): what it asked and offered. */
export interface PickQuestion {
  title?: string;
  placeholder?: string;
  items: readonly QuickPickItem[];
}
/** One withProgress the host showed: its options, what it reported, and its Cancel (a test presses it). */
export interface ProgressShown {
  options: { location?: ProgressLocation; title?: string; cancellable?: boolean };
  reports: { message?: string; increment?: number }[];
  /** The user's Cancel on the notification (its token is cancelled). */
  cancel(): void;
  /** The task has settled (the notification is gone). */
  done: boolean;
}
export interface MockDocument {
  uri: Uri;
  fileName: string;
  isUntitled: boolean;
  languageId: string;
  getText(): string;
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
  /**
   * Answers to quick picks (showQuickPick and createQuickPick alike), by a test: given the items and the
   * question, the item picked (undefined: dismissed). `pickInOrder` answers by label.
   */
  quickPick: (_items: unknown[], _q: PickQuestion): unknown => undefined,
  /** The quick picks asked, in order. */
  picks: [] as PickQuestion[],
  /** The quick picks createQuickPick made (a test checks each was disposed). */
  quickPicks: [] as MockQuickPick<QuickPickItem>[],
  inputBox: (_o: unknown): string | undefined => undefined,
  /** The input boxes asked (their options), in order. */
  inputBoxes: [] as unknown[],
  /** The progress notifications (withProgress) shown, in order; each also emitted as `progress` on `events`. */
  progress: [] as ProgressShown[],
  settings: new Map<string, unknown>(),
  trusted: true,
  workspaceFolders: [] as { uri: Uri; name: string; index: number }[],
  treeViews: new Map<string, MockTreeView>(),
  /** The tabs of the one editor group (a test's builtin that opens an editor adds its tab). */
  tabs: [] as { label: string }[],
  /** The providers of registerTextDocumentContentProvider, by scheme (openTextDocument reads them). */
  contentProviders: new Map<string, { provideTextDocumentContent(uri: Uri): string | undefined | null }>(),
  /** The documents openTextDocument opened, in order. */
  documents: [] as MockDocument[],
  /** What showTextDocument showed, in order. */
  editors: [] as Uri[],
  clipboard: '',
  /**
   * Answers to notifications whose message matches, taken in order before `answer` is asked (a restore's
   * choice, say, while `answer` answers the other questions of a test). See `answerInOrder`.
   */
  queued: [] as { match: RegExp; answers: (string | undefined)[] }[],
  /** The file decoration providers registered. */
  decorations: [] as { provideFileDecoration(uri: Uri): unknown }[],
  /** The status bar messages shown (setStatusBarMessage), in order. */
  statusMessages: [] as string[],
  /** The status bar items the host made (disposed ones stay, marked). */
  statusItems: [] as MockStatusBarItem[],
  logs: [] as string[],
  events: new NodeEmitter(),
  configChanged: new EventEmitter<{ affectsConfiguration(s: string): boolean }>(),
  foldersChanged: new EventEmitter<unknown>(),
  /** Tabs opened, closed (by the host's close() or a test's closeTab()) or changed. */
  tabsChanged: new EventEmitter<{
    opened: { label: string }[];
    closed: { label: string }[];
    changed: { label: string }[];
  }>(),
  trustGranted: new EventEmitter<void>(),
  reset(): void {
    this.commands.clear();
    this.builtins.clear();
    this.contexts.clear();
    this.shown = [];
    this.answer = () => undefined;
    this.quickPick = () => undefined;
    this.picks = [];
    this.quickPicks = [];
    this.inputBox = () => undefined;
    this.inputBoxes = [];
    this.progress = [];
    this.settings.clear();
    this.trusted = true;
    this.workspaceFolders = [];
    this.treeViews.clear();
    this.tabs = [];
    this.contentProviders.clear();
    this.documents = [];
    this.editors = [];
    this.clipboard = '';
    this.statusItems = [];
    this.statusMessages = [];
    this.queued = [];
    this.decorations = [];
    this.logs = [];
  },
  /** Sets a setting and fires onDidChangeConfiguration as VS Code does. */
  setSetting(key: string, value: unknown): void {
    this.settings.set(key, value);
    this.configChanged.fire({ affectsConfiguration: (s: string) => key === s || key.startsWith(`${s}.`) });
  },
};

/** Notifications matching `match` are answered with `answers`, one each, in order (undefined: closed). */
/** Closes tabs as the user does (their close buttons): gone from the group, told to onDidChangeTabs. */
export function closeTabs(tabs: readonly { label: string }[]): void {
  const gone = new Set(tabs);
  mock.tabs = mock.tabs.filter((t) => !gone.has(t));
  mock.tabsChanged.fire({ opened: [], closed: [...gone], changed: [] });
}

export function answerInOrder(match: RegExp, ...answers: (string | undefined)[]): void {
  mock.queued.push({ match, answers });
}

/** A label as the user reads it: without its leading `$(icon)`. */
const shownLabel = (i: QuickPickItem) => i.label.replace(/^\$\([\w-]+\)\s*/, '');

/**
 * A `mock.quickPick` that answers the quick picks in turn: each by the item whose label (without its
 * icon) starts with the string or matches the pattern; undefined dismisses that one. A question with no
 * such item, or one more than it was given, throws with what was offered.
 */
export function pickInOrder(...wanted: (string | RegExp | undefined)[]): typeof mock.quickPick {
  let n = 0;
  return (items, q) => {
    if (n >= wanted.length) throw new Error(`quick pick ${n + 1} (${q.title ?? q.placeholder}) was not expected`);
    const w = wanted[n++];
    if (w === undefined) return undefined;
    const list = items as QuickPickItem[];
    const hit = list.find(
      (i) =>
        i.kind !== QuickPickItemKind.Separator &&
        (typeof w === 'string' ? shownLabel(i).startsWith(w) : w.test(shownLabel(i))),
    );
    if (!hit)
      throw new Error(
        `quick pick "${q.title ?? q.placeholder}" offers no ${String(w)}: ${list.map((i) => JSON.stringify(shownLabel(i))).join(', ')}`,
      );
    return hit;
  };
}

/** package.json's contributed settings: their defaults, as VS Code reads them. */
const contributed: Record<string, { default?: unknown }> = (() => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
  const conf = pkg.contributes.configuration;
  return Object.assign({}, ...(Array.isArray(conf) ? conf : [conf]).map((c: { properties: object }) => c.properties));
})();

export const StatusBarAlignment = { Left: 1, Right: 2 } as const;

/** A status bar item: what it says and does, whether it shows. */
export class MockStatusBarItem {
  text = '';
  name?: string;
  tooltip?: unknown;
  accessibilityInformation?: { label: string; role?: string };
  command?: { command: string; title: string; arguments?: unknown[] };
  shown = false;
  disposed = false;
  constructor(
    readonly id: string,
    readonly alignment: number,
    readonly priority: number,
  ) {}
  show(): void {
    this.shown = true;
  }
  hide(): void {
    this.shown = false;
  }
  dispose(): void {
    this.shown = false;
    this.disposed = true;
  }
}

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
    readonly provider: {
      getChildren(e?: unknown): unknown;
      getTreeItem(e: unknown): unknown;
      onDidChangeTreeData?: unknown;
    },
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
    const o = rest.find((r): r is { modal?: boolean; detail?: string } => !!r && typeof r === 'object');
    const s: Shown = {
      level,
      message,
      items,
      ...(o?.modal ? { modal: true } : {}),
      ...(o?.detail !== undefined ? { detail: o.detail } : {}),
    };
    mock.shown.push(s);
    mock.events.emit('shown', s);
    const q = mock.queued.find((x) => x.match.test(message) && x.answers.length);
    if (q) return q.answers.shift();
    return mock.answer(s);
  };

/**
 * createQuickPick's pick: once shown, `mock.quickPick` answers it (after the caller's current turn, as
 * the user would): an item is selected and accepted, undefined hides it. A pick still open after an
 * accept (a row that only informs) is asked again.
 */
export class MockQuickPick<T extends QuickPickItem> {
  title?: string;
  placeholder?: string;
  items: readonly T[] = [];
  selectedItems: readonly T[] = [];
  activeItems: readonly T[] = [];
  value = '';
  ignoreFocusOut = false;
  matchOnDetail = false;
  matchOnDescription = false;
  canSelectMany = false;
  busy = false;
  enabled = true;
  visible = false;
  disposed = false;
  private readonly accepted = new EventEmitter<void>();
  private readonly hidden = new EventEmitter<void>();
  readonly onDidAccept = this.accepted.event;
  readonly onDidHide = this.hidden.event;
  private asked = 0;

  show(): void {
    if (this.visible || this.disposed) return;
    this.visible = true;
    setImmediate(() => this.ask());
  }
  private ask(): void {
    if (!this.visible) return;
    if (++this.asked > 20) throw new Error(`quick pick "${this.title}" is still open after 20 answers`);
    const q: PickQuestion = { title: this.title, placeholder: this.placeholder, items: [...this.items] };
    mock.picks.push(q);
    const picked = mock.quickPick([...this.items], q) as T | undefined;
    if (picked === undefined) return this.hide();
    if (!this.items.includes(picked)) throw new Error(`quick pick "${this.title}": the answer is not one of its items`);
    this.selectedItems = [picked];
    this.activeItems = [picked];
    this.accepted.fire();
    if (this.visible) setImmediate(() => this.ask());
  }
  hide(): void {
    if (!this.visible) return;
    this.visible = false;
    this.hidden.fire();
  }
  dispose(): void {
    this.hide();
    this.disposed = true;
    this.accepted.dispose();
    this.hidden.dispose();
  }
}

/** A namespace of the module whose missing members throw with their name, as install.ts makes the module's own. */
function strict<T extends object>(name: string, o: T): T {
  return new Proxy(o, {
    get(target, key, receiver) {
      if (typeof key === 'symbol' || key in target || key === 'then' || key === 'toJSON')
        return Reflect.get(target, key, receiver);
      throw new Error(`the vscode mock (test/support/vscode/api.ts) has no '${name}.${key}'`);
    },
  });
}

/** A document with `text` (VS Code's TextDocument, the little of it the host reads). */
function documentOf(uri: Uri, text: string, languageId = 'plaintext', isUntitled = false): MockDocument {
  const doc = { uri, fileName: uri.fsPath, isUntitled, languageId, getText: () => text };
  mock.documents.push(doc);
  return doc;
}

/** openTextDocument: a file's text from disk (rejects when it is missing, as VS Code does), a scheme's from its provider, or an untitled one. */
async function openTextDocument(what: Uri | string | { language?: string; content?: string }): Promise<MockDocument> {
  if (typeof what === 'string') return documentOf(Uri.file(what), readFileSync(what, 'utf8'));
  if (!(what instanceof Uri))
    return documentOf(
      Uri.from({ scheme: 'untitled', path: `Untitled-${mock.documents.length + 1}` }),
      what.content ?? '',
      what.language,
      true,
    );
  if (what.scheme === 'file') return documentOf(what, readFileSync(what.fsPath, 'utf8'));
  const provider = mock.contentProviders.get(what.scheme);
  if (!provider) throw new Error(`no content provider for the scheme '${what.scheme}'`);
  return documentOf(what, provider.provideTextDocumentContent(what) ?? '');
}

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

export const window = strict('window', {
  showInformationMessage: show('info'),
  showWarningMessage: show('warning'),
  showErrorMessage: show('error'),
  showQuickPick: async (items: unknown, o?: { title?: string; placeHolder?: string }) => {
    const list = (await items) as QuickPickItem[];
    const q: PickQuestion = { title: o?.title, placeholder: o?.placeHolder, items: list };
    mock.picks.push(q);
    return mock.quickPick(list, q);
  },
  createQuickPick: <T extends QuickPickItem>() => {
    const qp = new MockQuickPick<T>();
    mock.quickPicks.push(qp as unknown as MockQuickPick<QuickPickItem>);
    return qp;
  },
  showTextDocument: async (what: Uri | MockDocument) => {
    const uri = what instanceof Uri ? what : what.uri;
    mock.editors.push(uri);
    return { document: what instanceof Uri ? await openTextDocument(what) : what };
  },
  showInputBox: async (o: unknown) => {
    mock.inputBoxes.push(o);
    return mock.inputBox(o);
  },
  withProgress: async <T>(
    o: ProgressShown['options'],
    task: (
      p: { report(v: ProgressShown['reports'][number]): void },
      t: CancellationTokenSource['token'],
    ) => Thenable<T>,
  ) => {
    const cts = new CancellationTokenSource();
    const shown: ProgressShown = { options: o, reports: [], cancel: () => cts.cancel(), done: false };
    mock.progress.push(shown);
    mock.events.emit('progress', shown);
    try {
      return await task({ report: (v) => void shown.reports.push(v) }, cts.token);
    } finally {
      shown.done = true;
    }
  },
  createOutputChannel: (name: string) => logChannel(name),
  createTreeView: (id: string, o: { treeDataProvider: MockTreeView['provider'] }) => {
    const v = new MockTreeView(id, o.treeDataProvider);
    mock.treeViews.set(id, v);
    mock.events.emit('treeView', id);
    return v;
  },
  registerFileDecorationProvider: (p: { provideFileDecoration(uri: Uri): unknown }) => {
    mock.decorations.push(p);
    return new Disposable(() => (mock.decorations = mock.decorations.filter((x) => x !== p)));
  },
  setStatusBarMessage: (text: string) => {
    mock.statusMessages.push(text);
    return new Disposable(() => undefined);
  },
  createStatusBarItem: (id: string, alignment: number, priority: number) => {
    const item = new MockStatusBarItem(id, alignment, priority);
    mock.statusItems.push(item);
    return item;
  },
  registerWebviewPanelSerializer: () => new Disposable(() => undefined),
  registerCustomEditorProvider: () => new Disposable(() => undefined),
  tabGroups: strict('window.tabGroups', {
    get all() {
      return [{ tabs: mock.tabs }];
    },
    close: async (tabs: { label: string } | readonly { label: string }[]) => {
      closeTabs(Array.isArray(tabs) ? tabs : [tabs]);
      return true;
    },
    onDidChangeTabs: mock.tabsChanged.event,
  }),
  activeTextEditor: undefined,
});

const configuration = (section: string) => ({
  get<T>(key: string, fallback?: T): T | undefined {
    const full = `${section}.${key}`;
    if (mock.settings.has(full)) return mock.settings.get(full) as T;
    return full in contributed && contributed[full].default !== undefined ? (contributed[full].default as T) : fallback;
  },
  has: (key: string) => mock.settings.has(`${section}.${key}`) || `${section}.${key}` in contributed,
  inspect: (key: string) => ({
    key: `${section}.${key}`,
    defaultValue: contributed[`${section}.${key}`]?.default,
    globalValue: mock.settings.get(`${section}.${key}`),
  }),
  update: async (key: string, value: unknown) => mock.setSetting(`${section}.${key}`, value),
});

export const workspace = strict('workspace', {
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
  registerTextDocumentContentProvider: (
    scheme: string,
    provider: { provideTextDocumentContent(uri: Uri): string | undefined | null },
  ) => {
    mock.contentProviders.set(scheme, provider);
    return new Disposable(() => mock.contentProviders.get(scheme) === provider && mock.contentProviders.delete(scheme));
  },
  openTextDocument,
});

export const commands = strict('commands', {
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
});

export const languages = strict('languages', { registerCodeLensProvider: () => new Disposable(() => undefined) });
export const env = strict('env', {
  clipboard: {
    readText: async () => mock.clipboard,
    writeText: async (t: string) => void (mock.clipboard = t),
  },
});
export const lm = strict('lm', {
  selectChatModels: async () => [],
  onDidChangeChatModels: new EventEmitter<void>().event,
});
export const l10n = strict('l10n', { t: (s: string) => s });

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
