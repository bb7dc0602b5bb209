// The tree webview's HTML document (pure: no `vscode` import, so it is unit-tested in Node). The CSP
// allows nothing by default: scripts and style elements only by nonce (the bundle, put into the
// document), style sheets and fonts from the extension's own webview origin, images from there or
// inline `data:` (pasted screenshots in messages). No remote origins, no style attributes, no eval.

export interface WebviewHtmlOptions {
  /** `webview.cspSource` */
  cspSource: string;
  /** Fresh per render, [A-Za-z0-9+/=_-], at least 16 characters. */
  nonce: string;
  /** `asWebviewUri(dist/webview.js)` */
  scriptUri: string;
  /** `asWebviewUri(dist/webview.css)` (and any more style sheets). */
  styleUris: string[];
  /** `asWebviewUri(dist/codicons/codicon.css)` */
  codiconUri: string;
  /** Tab / document title (the session name). */
  title: string;
  /** Which app the bundle starts: the session tree (default), the compare view or the variants view. */
  view?: 'tree' | 'compare' | 'variants';
  /**
   * The bundle's text, put into the document (no fetch before the app starts): the script and the style
   * sheets in order. The URIs above are then only named: codicon.css for the UI kit's icons, which
   * link it into their own shadow roots.
   */
  inline?: { script: string; styles: string[] };
}

const NONCE_RE = /^[A-Za-z0-9+/=_-]{16,}$/;
// A CSP source expression: a scheme-host(-port) with optional wildcard label, no separators or quotes.
const SOURCE_RE = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*\.)?[A-Za-z0-9._~%:[\]-]+(?::\d+)?(?:\/[^\s;,'"]*)?$/;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** For double-quoted attribute values (the CSP keeps its single quotes readable). */
function escapeAttr(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

function checkUri(u: string, what: string): string {
  if (/[\s"'<>]/.test(u) || /^\s*(javascript|data):/i.test(u))
    throw new Error(`renderWebviewHtml: ${what} is not a plain URI`);
  return escapeHtml(u);
}

/**
 * Whether the text can sit inside its element: no `</script` or `</style` that would end it early, and
 * not both `<!--` and `<script` in the script (HTML's "double escaped" script state, where `</script>`
 * no longer ends the element).
 */
export function inlineSafe(script: string, styles: string[]): boolean {
  if (/<\/script/i.test(script) || (/<!--/.test(script) && /<script/i.test(script))) return false;
  return !styles.some((x) => /<\/style/i.test(x));
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    // data: for the codicon font put into the document (webviewBundle.ts): no fetch before the load event.
    `font-src ${cspSource} data:`,
    `img-src ${cspSource} data:`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-src 'none'",
  ].join('; ');
}

export function renderWebviewHtml(o: WebviewHtmlOptions): string {
  if (!NONCE_RE.test(o.nonce)) throw new Error('renderWebviewHtml: nonce must be 16+ characters of [A-Za-z0-9+/=_-]');
  const sources = o.cspSource.split(/\s+/).filter(Boolean);
  // VS Code's webview.cspSource is one or more host sources; code-server's also carries 'self'. Any
  // other quoted keyword ('unsafe-inline' …) or a separator is refused.
  if (!sources.length || sources.some((s) => s !== "'self'" && (!SOURCE_RE.test(s) || s.includes("'"))))
    throw new Error('renderWebviewHtml: cspSource is not a CSP source expression');
  const csp = contentSecurityPolicy(sources.join(' '), o.nonce);
  const nonce = escapeHtml(o.nonce);
  const codicon = checkUri(o.codiconUri, 'codiconUri');
  const styleUris = o.styleUris.map((u) => checkUri(u, 'styleUri'));
  const scriptUri = checkUri(o.scriptUri, 'scriptUri');
  const inline = o.inline;
  if (inline && !inlineSafe(inline.script, inline.styles))
    throw new Error('renderWebviewHtml: the inline bundle would end its element');
  const styles = inline
    ? // codicon.css only named (an unknown rel is not fetched): any fetch holds the document's load event,
      // and VS Code shows the webview and hands it the host's messages only then (or 200 ms after).
      [
        `<link rel="x-codicon-stylesheet" id="vscode-codicon-stylesheet" href="${codicon}">`,
        ...inline.styles.map((x) => `<style nonce="${nonce}">${x}</style>`),
      ]
    : [
        `<link rel="stylesheet" id="vscode-codicon-stylesheet" href="${codicon}">`,
        ...styleUris.map((u) => `<link rel="stylesheet" href="${u}">`),
      ];
  const script = inline
    ? `<script nonce="${nonce}">${inline.script}</script>`
    : `<script nonce="${nonce}" src="${scriptUri}"></script>`;
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(o.title)}</title>
    ${styles.join('\n    ')}
  </head>
  <body${o.view === 'compare' || o.view === 'variants' ? ` data-view="${o.view}"` : ''}>
    <div id="app" class="app"></div>
    ${script}
  </body>
</html>
`;
}

/** A document of text alone, no script at all: what a panel shows when it cannot show its content. */
export function textHtml(paragraphs: readonly string[], heading?: string): string {
  const body = [
    ...(heading ? [`<h3>${escapeHtml(heading)}</h3>`] : []),
    ...paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
  ];
  return `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head><body>${body.join('')}</body></html>`;
}

/** The document of a panel whose file cannot be shown: the reason, as text. */
export function errorHtml(message: string): string {
  return textHtml([message, 'The file was not changed.'], 'This file cannot be shown as a pi session tree');
}
