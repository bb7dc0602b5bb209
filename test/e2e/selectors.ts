// Every VS Code-internal CSS selector the e2e tests use, in one place: they are not API and change
// between VS Code versions. Checked against code-server 4.139.1 (Code 1.139.1). Scenarios should use
// these (or the helpers in harness.ts), never raw workbench class names.

export const workbench = {
  /** Present and visible once the workbench has rendered. */
  ready: '.monaco-workbench .part.activitybar',
  activityBar: '.monaco-workbench .part.activitybar',
  sideBar: '.monaco-workbench .part.sidebar',
  /** The side bar's title, e.g. "pi Sessions: Sessions" when the container has one view. */
  sideBarTitle: '.monaco-workbench .part.sidebar .composite.title h2',
  /** Title-bar actions of the side bar (a lone view's view/title menu shows here); aria-label = command title. */
  sideBarAction: '.monaco-workbench .part.sidebar .composite.title .title-actions .action-label',
  panel: '.monaco-workbench .part.panel',
  editorArea: '.monaco-workbench .part.editor',
  statusBar: '.monaco-workbench .part.statusbar',
  /** The "Activating Extensions..." status entry; gone when every extension has activated. */
  statusBarItem: '.monaco-workbench .part.statusbar .statusbar-item',
} as const;

const activityClass = (containerId: string) =>
  `a.action-label[class*="activity-workbench-view-extension-${containerId}-"]`;

/** The activity-bar entry of a view container contributed as `viewsContainers.activitybar[].id`. */
export function activityBarItem(containerId: string): string {
  return `${workbench.activityBar} ${activityClass(containerId)}`;
}

/** The view container's body in the side bar. */
export function viewContainer(containerId: string): string {
  return `${workbench.sideBar} [id="workbench.view.extension.${containerId}"]`;
}

/** One view (pane) of a container, found by its header's accessible name "<view name> Section". */
export function viewPane(containerId: string, viewName: string): string {
  return `${viewContainer(containerId)} .pane:has(> .pane-header[aria-label="${viewName} Section"])`;
}

export const pane = {
  header: '.pane-header',
  body: '.pane-body',
  /** Welcome content (viewsWelcome, or "no data provider" before the view is registered). */
  welcome: '.pane-body .welcome-view-content',
  /** Rows of a TreeView; each row's aria-label is the item's label (plus description). */
  treeRow: '.pane-body .monaco-list-row',
  /** The label of a TreeView row (without its description). */
  rowLabel: '.monaco-icon-label .label-name',
  /** Title-bar actions of a pane (view/title menu). */
  action: '.pane-header .actions .action-label',
} as const;

export const quickInput = {
  widget: '.quick-input-widget',
  input: '.quick-input-widget .quick-input-box input',
  /** The input while it is the command palette (its aria-label names commands). */
  commandInput: '.quick-input-widget .quick-input-box input[aria-label="Type the name of a command to run."]',
  row: '.quick-input-widget .quick-input-list .monaco-list-row',
  focusedRow: '.quick-input-widget .quick-input-list .monaco-list-row.focused',
} as const;

export const extensions = {
  /** A row of the Extensions view's lists (installed, recommended, ...); filter by the extension's display name. */
  row: '.monaco-workbench .part.sidebar .extensions-list .monaco-list-row',
} as const;

export const notifications = {
  toast: '.notifications-toasts .notification-toast',
  message: '.notification-list-item-message',
  button: '.notification-list-item-buttons-container .monaco-button',
} as const;

export const editor = {
  tab: '.monaco-workbench .part.editor .tabs-container .tab',
  activeTab: '.monaco-workbench .part.editor .tabs-container .tab.active',
  /** The visible lines of the text editors (Monaco) in the editor area. */
  textLines: '.monaco-workbench .part.editor .monaco-editor .view-lines',
} as const;

/** VS Code's diff editor (vscode.diff): each side is a Monaco editor whose visible lines are in .view-lines. */
export const diffEditor = {
  root: '.monaco-workbench .part.editor .monaco-diff-editor',
  original: '.monaco-workbench .part.editor .monaco-diff-editor .editor.original .view-lines',
  modified: '.monaco-workbench .part.editor .monaco-diff-editor .editor.modified .view-lines',
} as const;

/** VS Code's multi-file diff editor (vscode.changes): one entry per file. */
export const multiDiff = {
  root: '.monaco-workbench .part.editor .monaco-component.multiDiffEditor',
  entry: '.monaco-workbench .part.editor .monaco-component.multiDiffEditor .multiDiffEntry',
} as const;

export const codeLens = {
  /** A CodeLens link above a line of a text editor. */
  link: '.monaco-editor .codelens-decoration a',
} as const;

export const dialog = {
  /** A modal dialog's buttons (showWarningMessage with modal: true). */
  button: '.monaco-dialog-box .dialog-buttons .monaco-button',
} as const;

export const contextMenu = {
  menu: '.context-view .monaco-menu',
  item: '.context-view .monaco-menu .action-item .action-label',
} as const;

/**
 * A webview panel or view of one extension. Webviews are two iframes deep and same-origin in
 * code-server; the outer iframe's src carries `extensionId=<publisher>.<name>`. Other webviews (e.g.
 * release notes) use the same classes, so always filter on the extension.
 */
export const webview = {
  outer: (extensionId: string) => `iframe.webview.ready[src*="extensionId=${extensionId}"]`,
  inner: 'iframe#active-frame',
} as const;
