// The webview bundle's files as text, to be put into the webview's HTML rather than fetched by it: in
// a window that has not loaded them yet, VS Code's resource loader took ~250 ms of the time from the
// click to the first graph node to fetch them (click bench, 2026-12-01). Read once per build (a new
// build, e.g. from `npm run watch`, is read again); undefined when a file is missing or its text could
// end the element it goes into (webviewHtml.ts inlineSafe), and the document then links the files as before.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inlineSafe } from './webviewHtml.js';

export interface WebviewBundle {
  /** dist/webview.js */
  script: string;
  /** dist/webview.css */
  css: string;
  /** dist/codicons/codicon.css, its font still relative ("./codicon.ttf"). */
  codicon: string;
  /** dist/codicons/codicon.ttf as a data: URI, for codiconCss. */
  font: string;
}

let cached: { dist: string; stamp: number; bundle: WebviewBundle | undefined } | undefined;

export function readWebviewBundle(dist: string): WebviewBundle | undefined {
  let stamp: number;
  try {
    stamp = statSync(join(dist, 'webview.js')).mtimeMs;
  } catch {
    return undefined;
  }
  if (cached?.dist !== dist || cached.stamp !== stamp) cached = { dist, stamp, bundle: load(dist) };
  return cached.bundle;
}

function load(dist: string): WebviewBundle | undefined {
  try {
    const script = readFileSync(join(dist, 'webview.js'), 'utf8');
    const css = readFileSync(join(dist, 'webview.css'), 'utf8');
    const codicon = readFileSync(join(dist, 'codicons', 'codicon.css'), 'utf8');
    const font = `data:font/ttf;base64,${readFileSync(join(dist, 'codicons', 'codicon.ttf')).toString('base64')}`;
    if (!inlineSafe(script, [css, codicon])) return undefined;
    return { script, css, codicon, font };
  } catch {
    return undefined;
  }
}

/** The script with its source map named by `mapUri` (a relative name would resolve against the webview's document). */
export function scriptWithMap(script: string, mapUri: string): string {
  return script.replace(/\n\/\/# sourceMappingURL=webview\.js\.map\s*$/, `\n//# sourceMappingURL=${mapUri}\n`);
}

/**
 * codicon.css with its font at `fontUri` (the style sheet is no longer next to the font): the bundle's
 * data: URI, so that the document fetches nothing before its load event (see webviewHtml.ts).
 */
export function codiconCss(codicon: string, fontUri: string): string {
  return codicon.replace(/url\((["']?)\.\/codicon\.ttf[^"')]*\1\)/g, (_m, q: string) => `url(${q}${fontUri}${q})`);
}
