// Owns every tree webview: panels opened from the sidebar, panels VS Code restores after a restart
// (by an opaque token kept in the webview's state, never a path), and the custom editor of .jsonl files.
import * as vscode from 'vscode';
import { resolvePath, samePath } from '../../core/session/repository.js';
import { unreadTitle } from './sessionTitles.js';
import { errorHtml } from './webviewHtml.js';
import { WorkspaceState } from '../platform/workspaceState.js';
import { EDITOR_VIEW_TYPE, PANEL_VIEW_TYPE, TreeController, type TreeDeps } from './treeController.js';

export class TreePanelManager implements vscode.Disposable {
  private readonly controllers = new Set<TreeController>();
  private readonly restoreMap: Record<string, string>;
  private readonly registrations: vscode.Disposable[];
  private readonly state: WorkspaceState;

  constructor(
    context: vscode.ExtensionContext,
    private readonly deps: Omit<TreeDeps, 'openTree'>,
  ) {
    this.state = new WorkspaceState(context.workspaceState);
    this.restoreMap = this.state.get('panels', {});
    this.registrations = [
      vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state: unknown) => {
          const token = (state as { restoreToken?: unknown } | undefined)?.restoreToken;
          const file =
            typeof token === 'string' && Object.prototype.hasOwnProperty.call(this.restoreMap, token)
              ? this.restoreMap[token]
              : undefined;
          if (!file) return panel.dispose();
          delete this.restoreMap[token as string];
          this.track(new TreeController(panel, file, this.treeDeps));
        },
      }),
      vscode.window.registerCustomEditorProvider(
        EDITOR_VIEW_TYPE,
        {
          openCustomDocument: (uri) => ({ uri, dispose: () => {} }),
          resolveCustomEditor: async (doc, panel) => {
            // A file on disk only: a git revision or another scheme's document has an fsPath too, of the
            // working file, which a move or label would then write.
            if (doc.uri.scheme !== 'file') {
              panel.webview.html = errorHtml(
                `It is a ${doc.uri.scheme}: document, not a session file on disk (pi-tree opens and changes only those); open the file itself to see its tree.`,
              );
              return;
            }
            this.track(new TreeController(panel, doc.uri.fsPath, this.treeDeps));
          },
        } satisfies vscode.CustomReadonlyEditorProvider,
        { webviewOptions: { retainContextWhenHidden: false }, supportsMultipleEditorsPerDocument: true },
      ),
    ];
  }

  private get treeDeps(): TreeDeps {
    return { ...this.deps, openTree: async (file, opts) => void (await this.open(file, undefined, opts)) };
  }

  private track(c: TreeController): TreeController {
    this.controllers.add(c);
    this.restoreMap[c.restoreToken] = c.file;
    void this.state.update('panels', this.restoreMap);
    c.onDidDispose = () => {
      this.controllers.delete(c);
      delete this.restoreMap[c.restoreToken];
      void this.state.update('panels', this.restoreMap);
    };
    return c;
  }

  /**
   * Opens (or reveals) the tree panel of `file`; `select` is selected once the webview is ready, and
   * `editorText` (a forked message) is offered there for re-editing. `preserveFocus`: shown without
   * taking the keyboard (a single click on a sidebar row, as VS Code's preview editors open).
   */
  async open(
    file: string,
    select?: string,
    opts: { editorText?: string; preserveFocus?: boolean } = {},
  ): Promise<TreeController> {
    const path = resolvePath(file);
    const preserveFocus = !!opts.preserveFocus;
    const existing = [...this.controllers].find((c) => c.panel.viewType === PANEL_VIEW_TYPE && c.file === path);
    const c =
      existing ??
      this.track(
        new TreeController(
          vscode.window.createWebviewPanel(
            PANEL_VIEW_TYPE,
            unreadTitle(path, this.deps.listedTitle),
            { viewColumn: vscode.ViewColumn.Active, preserveFocus },
            { retainContextWhenHidden: false, enableFindWidget: false },
          ),
          path,
          this.treeDeps,
        ),
      );
    if (existing) existing.panel.reveal(undefined, preserveFocus);
    if (select) c.invoke('select', select);
    if (opts.editorText) c.invoke('editorText', undefined, opts.editorText);
    return c;
  }

  /** The tree whose webview carries this token (its native context menu names it), if open. */
  byToken(token: string): TreeController | undefined {
    return [...this.controllers].find((c) => c.restoreToken === token);
  }

  /** The tree the user is looking at: the active one, else a visible one. */
  active(): TreeController | undefined {
    const all = [...this.controllers];
    return all.find((c) => c.panel.active) ?? all.find((c) => c.panel.visible);
  }

  /** The session lists changed: every tree's title follows what its session is called now. */
  retitle(): void {
    for (const c of this.controllers) c.retitle();
  }

  /** Settings changed (summary model, click action …): every tree gets its meta again. */
  refreshMeta(): void {
    for (const c of this.controllers) c.sendMeta();
  }

  /** Every panel and editor showing `file`. */
  showing(file: string): TreeController[] {
    return [...this.controllers].filter((c) => samePath(c.file, file));
  }

  /** Closes every panel and editor of a file that is gone (deleted to the trash). */
  closeFile(file: string): void {
    for (const c of this.showing(file)) c.panel.dispose();
  }

  dispose(): void {
    for (const c of [...this.controllers]) c.dispose();
    for (const r of this.registrations) r.dispose();
  }
}
