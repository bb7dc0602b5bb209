// The bundle's text for the webview's HTML: read from the build, read again after a new build, and
// refused (the document links the files instead) when missing or when it would end its element.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codiconCss, readWebviewBundle, scriptWithMap } from '../../../src/host/panels/webviewBundle';

function dist(
  script: string,
  css = '.a{}',
  codicon = '@font-face{src:url("./codicon.ttf?abc") format("truetype")}',
): string {
  const d = mkdtempSync(join(tmpdir(), 'pi-tree-bundle-'));
  mkdirSync(join(d, 'codicons'));
  writeFileSync(join(d, 'webview.js'), script);
  writeFileSync(join(d, 'webview.css'), css);
  writeFileSync(join(d, 'codicons', 'codicon.css'), codicon);
  writeFileSync(join(d, 'codicons', 'codicon.ttf'), Buffer.from([0, 1, 0, 0, 0xff]));
  return d;
}

test('the shipped build reads as a bundle that can go into the document', () => {
  const root = join(__dirname, '..', '..', '..', 'dist');
  const b = readWebviewBundle(root);
  assert.ok(b, 'dist/webview.js, webview.css and codicons/codicon.css are read');
  assert.equal(b.script, readFileSync(join(root, 'webview.js'), 'utf8'));
  // The font goes into the sheet as a data: URI (the whole url(), its ?hash too); nothing else changes.
  const ttf = readFileSync(join(root, 'codicons', 'codicon.ttf'));
  assert.equal(b.font, `data:font/ttf;base64,${ttf.toString('base64')}`);
  const css = codiconCss(b.codicon, b.font);
  const url = /url\("([^"]+)"\)/.exec(css)![1];
  assert.equal(url, b.font);
  assert.deepEqual(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64'), ttf);
  assert.doesNotMatch(css, /\.\/codicon\.ttf|\?[0-9a-f]{32}/);
  const hashed = /url\("\.\/codicon\.ttf[^"]*"\)/.exec(b.codicon)![0];
  assert.equal(css, b.codicon.replace(hashed, `url("${b.font}")`));
  assert.equal(
    codiconCss("@font-face{src:url(./codicon.ttf?x) format('truetype')}", 'data:a'),
    "@font-face{src:url(data:a) format('truetype')}",
    'unquoted',
  );
});

test('read once per build: the same text until webview.js changes', () => {
  const d = dist('one();\n//# sourceMappingURL=webview.js.map\n');
  try {
    const a = readWebviewBundle(d)!;
    assert.equal(readWebviewBundle(d), a, 'cached');
    writeFileSync(join(d, 'webview.js'), 'two();');
    utimesSync(join(d, 'webview.js'), new Date(), new Date(Date.now() + 5000));
    assert.equal(readWebviewBundle(d)!.script, 'two();');
    assert.equal(
      scriptWithMap(a.script, 'https://x.example/dist/webview.js.map'),
      'one();\n//# sourceMappingURL=https://x.example/dist/webview.js.map\n',
    );
    assert.equal(scriptWithMap('two();', 'https://x.example/m'), 'two();', 'no map named: left as it is');
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('missing files, or text that would end its element: no bundle (the files are linked)', () => {
  const bad = [
    dist('a = "</script>"'),
    dist('a = "<!--" + "<script>"'),
    dist('ok()', 'a{}</STYLE>'),
    dist('ok()', 'a{}', '</style>'),
  ];
  const missing = dist('ok()');
  rmSync(join(missing, 'webview.css'));
  try {
    for (const d of bad) assert.equal(readWebviewBundle(d), undefined, d);
    assert.equal(readWebviewBundle(missing), undefined);
    assert.equal(readWebviewBundle(join(missing, 'nowhere')), undefined);
  } finally {
    for (const d of [...bad, missing]) rmSync(d, { recursive: true, force: true });
  }
});
