// A pi-tree webview panel's document (the tree, the compare view and the variants view share the bundle): what the
// webview may load, and its HTML with the bundle put into it (webviewBundle.ts), or linked when the
// bundle cannot be read.
import { nanoid } from 'nanoid';
import * as vscode from 'vscode';
import { codiconCss, readWebviewBundle, scriptWithMap } from './webviewBundle.js';
import { renderWebviewHtml } from './webviewHtml.js';

export function setPanelDocument(
  panel: vscode.WebviewPanel,
  extensionUri: vscode.Uri,
  title: string,
  view?: 'compare' | 'variants',
): void {
  const dist = vscode.Uri.joinPath(extensionUri, 'dist');
  panel.webview.options = {
    enableScripts: true,
    localResourceRoots: [dist, vscode.Uri.joinPath(extensionUri, 'media')],
  };
  const uri = (...path: string[]) => panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, ...path)).toString();
  const bundle = readWebviewBundle(dist.fsPath);
  panel.webview.html = renderWebviewHtml({
    cspSource: panel.webview.cspSource,
    nonce: nanoid(24), // 144 bits
    scriptUri: uri('webview.js'),
    styleUris: [uri('webview.css')],
    codiconUri: uri('codicons', 'codicon.css'),
    title,
    view,
    inline: bundle && {
      script: scriptWithMap(bundle.script, uri('webview.js.map')),
      styles: [codiconCss(bundle.codicon, bundle.font), bundle.css],
    },
  });
}
