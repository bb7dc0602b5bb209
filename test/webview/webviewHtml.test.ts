// renderWebviewHtml (pure): strict CSP, nonce on the one script (linked or put in), no remote origins; and the codicon
// code points the SVG nodes use match the shipped font's map.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderWebviewHtml, contentSecurityPolicy, errorHtml, textHtml } from '../../src/host/panels/webviewHtml';
import { CODICON_POINTS } from '../../webview/ui/icons';

const opts = {
  cspSource: 'https://*.vscode-cdn.net',
  nonce: 'AbCdEfGhIjKlMnOpQrStUv12',
  scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.js',
  styleUris: ['https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.css'],
  codiconUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/codicons/codicon.css',
  title: 'My <session> & "friends"',
};

test('the document carries a strict CSP and loads only by nonce and from the webview origin', () => {
  const html = renderWebviewHtml(opts);
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1];
  const dirs = Object.fromEntries(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([k, ...v]) => [k, v]),
  );
  assert.deepEqual(dirs['default-src'], ["'none'"]);
  assert.deepEqual(dirs['script-src'], [`'nonce-${opts.nonce}'`]);
  assert.deepEqual(dirs['style-src'], [opts.cspSource, `'nonce-${opts.nonce}'`]);
  assert.deepEqual(dirs['font-src'], [opts.cspSource, 'data:']);
  assert.deepEqual(dirs['img-src'], [opts.cspSource, 'data:']);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|http:|\*\s|'self'/);
  assert.equal(csp, contentSecurityPolicy(opts.cspSource, opts.nonce));
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  assert.deepEqual(scripts, [`<script nonce="${opts.nonce}" src="${opts.scriptUri}">`]);
  assert.match(
    html,
    /<link rel="stylesheet" id="vscode-codicon-stylesheet" href="https:\/\/file\+\.vscode-resource\.vscode-cdn\.net\/ext\/dist\/codicons\/codicon\.css">/,
  );
  assert.match(
    html,
    /<link rel="stylesheet" href="https:\/\/file\+\.vscode-resource\.vscode-cdn\.net\/ext\/dist\/webview\.css">/,
  );
  assert.match(html, /<title>My &lt;session&gt; &amp; &quot;friends&quot;<\/title>/);
  assert.doesNotMatch(html, /style="/, 'no inline styles');
  assert.match(html, /<div id="app"/);
});

test('the bundle put into the document: script and style elements by nonce, codicon.css only named for the UI kit', () => {
  const html = renderWebviewHtml({
    ...opts,
    inline: { script: 'window.x = 1 < 2;', styles: ['@font-face{}', '.a{color:red}'] },
  });
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1];
  assert.equal(csp, contentSecurityPolicy(opts.cspSource, opts.nonce));
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.deepEqual(
    [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]),
    [`<script nonce="${opts.nonce}">`],
  );
  assert.match(html, /<script nonce="[^"]+">window\.x = 1 < 2;<\/script>/);
  assert.deepEqual(
    [...html.matchAll(/<style\b[^>]*>([^<]*)<\/style>/g)].map((m) => m[1]),
    ['@font-face{}', '.a{color:red}'],
  );
  assert.equal([...html.matchAll(/<style nonce="AbCdEfGhIjKlMnOpQrStUv12">/g)].length, 2);
  // Nothing is fetched before the load event (VS Code shows the webview and hands it messages then):
  // codicon.css is only named, for the UI kit, by a rel nothing fetches.
  assert.doesNotMatch(html, /rel="(stylesheet|preload|prefetch|modulepreload)"/);
  assert.match(
    html,
    /<link rel="x-codicon-stylesheet" id="vscode-codicon-stylesheet" href="https:\/\/file\+\.vscode-resource\.vscode-cdn\.net\/ext\/dist\/codicons\/codicon\.css">/,
  );
  assert.doesNotMatch(html, /webview\.js|webview\.css/);
  // Text that would end its element is refused, not escaped into something else.
  assert.throws(
    () => renderWebviewHtml({ ...opts, inline: { script: 'a = "</SCRIPT><script>alert(1)"', styles: [] } }),
    /inline bundle/,
  );
  assert.throws(
    () => renderWebviewHtml({ ...opts, inline: { script: '', styles: ['a{}</style><script>alert(1)</script>'] } }),
    /inline bundle/,
  );
  // "<!--" then "<script" would put the parser in a state where </script> no longer ends the element.
  assert.throws(
    () => renderWebviewHtml({ ...opts, inline: { script: 'a = "<!--"; b = "<SCRIPT>"', styles: [] } }),
    /inline bundle/,
  );
  assert.doesNotThrow(() => renderWebviewHtml({ ...opts, inline: { script: 'a = "<!--"', styles: [] } }));
});

test('bad inputs are refused instead of weakening the policy', () => {
  assert.throws(() => renderWebviewHtml({ ...opts, nonce: 'short' }), /nonce/);
  assert.throws(() => renderWebviewHtml({ ...opts, nonce: "abc'; script-src *; x='123456" }), /nonce/);
  assert.throws(() => renderWebviewHtml({ ...opts, cspSource: "'unsafe-inline'" }), /cspSource/);
  assert.throws(() => renderWebviewHtml({ ...opts, cspSource: 'https://a.b; script-src *' }), /cspSource/);
  assert.throws(() => renderWebviewHtml({ ...opts, scriptUri: 'javascript:alert(1)' }), /scriptUri/);
  assert.throws(() => renderWebviewHtml({ ...opts, styleUris: ['x" onload="alert(1)'] }), /styleUri/);
  // Local origins used by tests and code-server are fine.
  assert.doesNotThrow(() => renderWebviewHtml({ ...opts, cspSource: 'http://127.0.0.1:8123' }));
  assert.doesNotThrow(
    () => renderWebviewHtml({ ...opts, cspSource: "'self' https://*.vscode-cdn.net" }),
    "code-server's form",
  );
  assert.throws(() => renderWebviewHtml({ ...opts, cspSource: "'self' 'unsafe-eval'" }), /cspSource/);
});

test('a file that cannot be shown: its reason as text, in a document that runs nothing', () => {
  const html = errorHtml('bad line 3: <img src=x onerror="alert(1)"> & more');
  assert.match(html, /content="default-src 'none'"/);
  assert.match(html, /bad line 3: &lt;img src=x onerror=&quot;alert\(1\)&quot;&gt; &amp; more/);
  assert.doesNotMatch(html, /<img|<script/);
});

test("a compare panel's failure: each paragraph as text, the heading too, nothing that runs", () => {
  const html = textHtml(['<script>x()</script>', "it's 'quoted'"], 'a <b>heading</b>');
  assert.match(html, /content="default-src 'none'"/);
  assert.match(
    html,
    /<h3>a &lt;b&gt;heading&lt;\/b&gt;<\/h3><p>&lt;script&gt;x\(\)&lt;\/script&gt;<\/p><p>it&#39;s &#39;quoted&#39;<\/p>/,
  );
  assert.doesNotMatch(html, /<script|<b>/);
});

test('codicon code points used in SVG match @vscode/codicons', () => {
  const csv = readFileSync(
    join(__dirname, '..', '..', 'node_modules', '@vscode', 'codicons', 'dist', 'codicon.csv'),
    'utf8',
  );
  const map = new Map(
    csv
      .split('\n')
      .slice(1)
      .map((l) => l.split(','))
      .map(([name, , hex]) => [name, parseInt(hex, 16)]),
  );
  for (const [name, cp] of Object.entries(CODICON_POINTS)) assert.equal(map.get(name), cp, name);
});
