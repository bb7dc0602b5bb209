// The packaged extension: `npm run package` makes a small .vsix holding only what runs (the README's
// screenshots stay out: they were 444 of its 771 KB, #34 item 11), and that .vsix, installed with
// code-server's own --install-extension (what `code --install-extension` does) or through the
// Extensions view's "Install from VSIX…", activates in a real VS Code and draws a session's tree.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { repoRoot } from '../../scripts/lib/codeServer.js';
import { contributed, scenario } from './harness.js';
import * as sel from './selectors.js';
import { openTree, until } from './uxHelpers.js';

/** One file of a zip file, by name (stored or deflated), read through its central directory entry. */
function zipRead(zip: Buffer, name: string): Buffer {
  let eocd = zip.length - 22;
  while (eocd >= 0 && zip.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  let p = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < zip.readUInt16LE(eocd + 10); i++) {
    const nameLen = zip.readUInt16LE(p + 28);
    if (zip.toString('utf8', p + 46, p + 46 + nameLen) === name) {
      const method = zip.readUInt16LE(p + 10);
      const size = zip.readUInt32LE(p + 20);
      const local = zip.readUInt32LE(p + 42);
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + size);
      return method === 8 ? inflateRawSync(data) : Buffer.from(data);
    }
    p += 46 + nameLen + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
  }
  throw new Error(`${name} is not in the zip file`);
}

/** Names of the entries of a zip file, read from its central directory. */
function zipEntries(zip: Buffer): string[] {
  let eocd = zip.length - 22;
  while (eocd >= 0 && zip.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error('not a zip file');
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error('bad central directory');
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    names.push(zip.toString('utf8', p + 46, p + 46 + nameLen));
    p += 46 + nameLen + extraLen + commentLen;
  }
  return names;
}

const dir = mkdtempSync(join(tmpdir(), 'pi-tree-vsix-'));
const vsix = join(dir, 'pi-tree.vsix');
after(() => rmSync(dir, { recursive: true, force: true }));

describe('packaged .vsix', () => {
  before(() => {
    const r = spawnSync(process.execPath, [join(repoRoot, 'scripts/package.mjs'), '--out', vsix, '--quiet'], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, `npm run package failed:\n${r.stdout}${r.stderr}`);
  });

  it('holds only what runs, without the screenshots, and stays under 520 KB; its README links only to what it holds', () => {
    const zip = readFileSync(vsix);
    // 348 KB when the screenshots left (771 KB with them); checkpoints' code (host, bridge and core) took it
    // to 416 KB and the README's move to docs/ back to 400 KB; Ask from here and the variants (run core,
    // view, adopt) to 479 KB. A screenshot (60-150 KB) does not fit.
    assert.ok(zip.length < 520 * 1024, `${zip.length} bytes`);
    const files = zipEntries(zip).filter((f) => f.startsWith('extension/'));
    assert.ok(files.includes('extension/package.json'));
    assert.ok(files.includes('extension/dist/extension.js'));
    for (const f of [
      'projector.js',
      'webview.js',
      'webview.css',
      'codicons/codicon.css',
      'codicons/codicon.ttf',
      'pi-bridge.js',
    ])
      assert.ok(
        files.includes(`extension/dist/${f}`),
        `${f} is what the explorer loads (projector.js: its worker thread; pi-bridge.js: the extension pi loads)`,
      );
    assert.ok(files.some((f) => /^extension\/license/i.test(f)));
    assert.ok(files.some((f) => f.startsWith('extension/media/')));
    assert.ok(files.includes('extension/media/icon.png'), 'the Marketplace icon (package.json icon) is in the package');
    assert.deepEqual(
      files.filter((f) => /screenshot/i.test(f)),
      [],
      "the README's screenshots stay in the repository",
    );
    // The README shown on the extension's page: no image or link to a file the package does not hold.
    const readme = zipRead(zip, 'extension/readme.md').toString('utf8');
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^([a-z]+:|#)/i.test(t));
    assert.deepEqual(
      targets.filter((t) => !files.includes(`extension/${t.split('#')[0]}`)),
      [],
      'relative links of the packaged README',
    );
    assert.match(readme, /## Quick start/);
    const stray = files.filter(
      (f) =>
        !/^extension\/(package\.json|readme\.md|changelog\.md|license(\.txt)?|dist\/(codicons\/)?[^/]+\.(js|css|ttf|woff2)|media\/.+)$/i.test(
          f,
        ),
    );
    assert.deepEqual(stray, [], 'unexpected files in the .vsix');
    assert.ok(!files.some((f) => f.endsWith('.map')), 'no source maps in the production package');
    assert.ok(!files.includes('extension/dist/cli.js'), 'the CLI does not run in the extension');
  });

  scenario(
    'vsix installs with --install-extension and activates',
    async (vs) => {
      const installed = vs.server.extensionPath!;
      assert.ok(!lstatSync(installed).isSymbolicLink(), 'the extension must come from the .vsix, not the checkout');
      assert.match(installed, new RegExp(`${contributed.extensionId}-\\d+\\.\\d+\\.\\d+$`));
      await vs.activityItem().waitFor({ state: 'visible', timeout: 60_000 });
      await vs.waitForOutput('pi-tree activated');
      await vs.openContainer();
      await vs.view().waitFor({ state: 'visible' });
      // The shipped (production) bundle, put into the webview's document, draws a tree under the CSP.
      const wv = await openTree(vs, 'Stream the JSONL reader');
      await wv.locator('svg.scene g.node').first().waitFor();
      assert.equal(await wv.locator('script[src]').count(), 0, 'the bundle came in the document');
      assert.deepEqual(
        vs.consoleErrors.filter((e) => /Content Security Policy/i.test(e)),
        [],
      );
    },
    { extension: { vsix } },
  );

  scenario(
    'vsix installs through "Install from VSIX…" and opens a session',
    async (vs) => {
      // No pi-tree yet: the user installs the file from VS Code's Extensions view command.
      await vs.runCommand('Extensions: Install from VSIX...', { thenInput: true });
      // VS Code's own file picker (a quick input in the browser): the folder, then the file in its list.
      // The picker writes its starting folder into the box once it has listed it; typed before that, the
      // two run together ('/root//tmp/…'). Type once it shows a folder, and again if it still lost the race.
      const input = vs.page.locator(sel.quickInput.input);
      const row = vs.page.locator(sel.quickInput.row).filter({ hasText: 'pi-tree.vsix' });
      await until(
        async () => ((await input.inputValue()).endsWith('/') ? true : undefined),
        60_000,
        'the picker showing its starting folder',
      );
      for (let attempt = 0; ; attempt++) {
        await input.fill(`${dir}/`);
        const shown = await row.waitFor({ timeout: 15_000 }).then(
          () => true,
          () => false,
        );
        if (shown) break;
        if (attempt === 2)
          throw new Error(`the file picker never listed ${dir}/ (its box says ${await input.inputValue()})`);
      }
      await row.click();
      await vs
        .notifications()
        .filter({ hasText: /Completed installing/i })
        .waitFor({ timeout: 120_000 });
      await vs.activityItem().waitFor({ state: 'visible', timeout: 60_000 });
      await vs.waitForOutput('pi-tree activated');
      const wv = await openTree(vs, 'Stream the JSONL reader');
      await wv.locator('svg.scene g.node').first().waitFor();
      await vs.screenshot('installed');
    },
    { extension: 'none' },
  );
});
