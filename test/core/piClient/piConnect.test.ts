// "Connect pi to pi-tree" on a temp pi agent dir: the real pi 1.6.0 loads the bridge from its settings
// (no -e), and "Disconnect" leaves settings.json byte-identical, whatever its layout.
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  connectPi,
  connectPaths,
  connectStatus,
  disconnectPi,
  PiSettingsError,
  refreshBridgeCopy,
} from '../../../src/core/piClient/piConnect.js';
import { completionSse, startLoopback, type Loopback } from '../../support/loopbackOpenAI.js';
import { assistantOf, BRIDGE, makePiEnv, PiRpc, sessionBuilder, writeSession } from '../../support/piRpc.js';
import { tempDir } from '../../support/tmp.js';
import { waitForBridge } from '../../piExtension/helpers.js';

const envFor = (agentDir: string): NodeJS.ProcessEnv => ({ PI_CODING_AGENT_DIR: agentDir });

/** settings.json's text as pi reads it (its byte-order mark taken off). */
const asPi = (text: string) => (text.startsWith('\uFEFF') ? text.slice(1) : text);

function roundTrip(settings: string | undefined): {
  during: string | undefined;
  after: string | undefined;
  exact: boolean;
} {
  const agentDir = tempDir('pi-tree-agent-');
  const file = join(agentDir, 'settings.json');
  if (settings !== undefined) writeFileSync(file, settings);
  const paths = connectPi(BRIDGE, envFor(agentDir));
  const during = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  assert.ok(
    (JSON.parse(asPi(during!)) as { packages: string[] }).packages.includes(paths.bridgeCopy),
    'the copy is listed in packages',
  );
  if (settings?.startsWith('\uFEFF')) assert.ok(during!.startsWith('\uFEFF{'), 'the byte-order mark is kept');
  assert.deepEqual(readFileSync(paths.bridgeCopy), readFileSync(BRIDGE), 'the stable copy is the bundle');
  const r = disconnectPi(envFor(agentDir))!;
  assert.ok(!existsSync(paths.dir), 'the copy, its record and the folder are gone');
  return { during, after: existsSync(file) ? readFileSync(file, 'utf8') : undefined, exact: r.exact };
}

describe('connect pi to pi-tree', () => {
  let lb: Loopback;
  before(async () => {
    lb = await startLoopback((_req, n) => completionSse(`answer ${n}`));
  });
  after(async () => {
    await lb?.close();
  });

  it('pi loads the bridge from its settings for every session; disconnect restores settings.json byte for byte', async () => {
    const pe = makePiEnv(lb);
    const settingsFile = join(pe.agentDir, 'settings.json');
    // pi's own layout, with other content the user has
    const original = `${JSON.stringify({ ...JSON.parse(readFileSync(settingsFile, 'utf8')), theme: 'dark', extensions: ['/opt/other-ext.js'], packages: ['npm:@example/tools@1.0.0'] }, null, 2)}\n`;
    writeFileSync(settingsFile, original);
    const b = sessionBuilder(pe.workDir);
    b.user('hello');
    assistantOf(b, 'hi');
    const file = writeSession(b, join(pe.workDir, 'connected.jsonl'));

    assert.equal(connectStatus(BRIDGE, pe.env).connected, false);
    const paths = connectPi(BRIDGE, pe.env);
    assert.equal(paths.agentDir, pe.agentDir);
    const st = connectStatus(BRIDGE, pe.env);
    assert.ok(st.connected && st.listed && st.upToDate);
    assert.deepEqual(JSON.parse(readFileSync(settingsFile, 'utf8')).packages, [
      'npm:@example/tools@1.0.0',
      paths.bridgeCopy,
    ]);
    // connecting again changes nothing
    const once = readFileSync(settingsFile, 'utf8');
    connectPi(BRIDGE, pe.env);
    assert.equal(readFileSync(settingsFile, 'utf8'), once);

    const pi = PiRpc.start(file, pe, { bridge: false });
    try {
      const info = await waitForBridge(file, pe.env, pi);
      assert.equal(info.record.pid, pi.pid, 'pi started without -e opened the bridge');
    } finally {
      await pi.stop();
    }
    const r = disconnectPi(pe.env)!;
    assert.equal(r.exact, true);
    assert.equal(readFileSync(settingsFile, 'utf8'), original, 'settings.json is byte-identical');
    assert.equal(existsSync(paths.bridgeCopy), false);
    assert.equal(disconnectPi(pe.env), undefined, 'a second disconnect has nothing to undo');
  });

  it('every layout comes back byte-identical', () => {
    const layouts = [
      '{\n  "defaultModel": "x",\n  "theme": "dark"\n}\n',
      '{\n  "defaultModel": "x",\n  "packages": [\n    "npm:foo"\n  ]\n}',
      '{"a":1,"packages":["npm:foo"]}',
      '{"a":1}',
      '{\n\t"a": 1,\n\t"packages": []\n}\n',
      '{}',
      '  {  }  \n',
      '{\r\n    "a": [1,2],   "packages" : [ "x" , "y" ] ,"z":{"q":true}\r\n}\r\n',
      '{\n  "s": "packages \\"quoted\\" ü ☃"\n}',
      // a byte-order mark, which pi's settings loader takes off (stripBom): kept
      '\uFEFF{\n  "theme": "dark"\n}\n',
      '\uFEFF{"packages":["npm:foo"]}',
      '\uFEFF{}',
    ];
    for (const text of layouts) {
      const r = roundTrip(text);
      assert.equal(r.after, text, `round trip of ${JSON.stringify(text)} (connected: ${JSON.stringify(r.during)})`);
      assert.equal(r.exact, true);
    }
  });

  it('a missing settings.json is created and removed again', () => {
    const r = roundTrip(undefined);
    assert.ok(r.during);
    assert.equal(r.after, undefined);
  });

  it("when pi rewrote its settings meanwhile, only pi-tree's entry is taken out", () => {
    const agentDir = tempDir('pi-tree-agent-');
    const file = join(agentDir, 'settings.json');
    writeFileSync(file, '{"defaultModel":"a","packages":["npm:foo"]}');
    const paths = connectPi(BRIDGE, envFor(agentDir));
    // pi saves a changed setting in its own layout
    const v = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(
      file,
      `${JSON.stringify({ ...v, defaultModel: 'b', packages: [...v.packages, 'npm:bar'] }, null, 2)}\n`,
    );
    const r = disconnectPi(envFor(agentDir))!;
    assert.equal(r.exact, false);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { defaultModel: 'b', packages: ['npm:foo', 'npm:bar'] });
    assert.equal(existsSync(paths.bridgeCopy), false);
  });

  it('an entry the user listed already stays when disconnecting; broken settings are refused untouched', () => {
    const agentDir = tempDir('pi-tree-agent-');
    const file = join(agentDir, 'settings.json');
    const listed = `{"packages":[${JSON.stringify(connectPaths(envFor(agentDir)).bridgeCopy)}]}`;
    writeFileSync(file, listed);
    connectPi(BRIDGE, envFor(agentDir));
    assert.equal(readFileSync(file, 'utf8'), listed);
    disconnectPi(envFor(agentDir));
    assert.equal(readFileSync(file, 'utf8'), listed);

    const broken = tempDir('pi-tree-agent-');
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, 'settings.json'), '{"packages": [,]}');
    assert.throws(() => connectPi(BRIDGE, envFor(broken)), PiSettingsError);
    assert.equal(readFileSync(join(broken, 'settings.json'), 'utf8'), '{"packages": [,]}');
    assert.equal(existsSync(connectPaths(envFor(broken)).dir), false);
    writeFileSync(join(broken, 'settings.json'), '{"packages": "npm:foo"}');
    assert.throws(() => connectPi(BRIDGE, envFor(broken)), /not a list/);
  });

  it('a settings.json that is a symlink (a dotfiles repo) stays one: its target gets the change, keeps its mode, and its bytes before are kept', () => {
    const agentDir = tempDir('pi-tree-agent-');
    const dotfiles = tempDir('pi-tree-dotfiles-');
    const target = join(dotfiles, 'pi-settings.json');
    const original = `${JSON.stringify({ theme: 'dark' }, null, 2)}\n`;
    writeFileSync(target, original);
    chmodSync(target, 0o644);
    const link = join(agentDir, 'settings.json');
    symlinkSync(target, link);
    const paths = connectPi(BRIDGE, envFor(agentDir));
    assert.ok(lstatSync(link).isSymbolicLink(), 'still a link');
    assert.ok(
      (JSON.parse(readFileSync(target, 'utf8')) as { packages: string[] }).packages.includes(paths.bridgeCopy),
      'the target has the entry',
    );
    assert.equal(statSync(target).mode & 0o777, 0o644, 'its mode is kept');
    assert.equal(readFileSync(`${target}.pi-tree.bak`, 'utf8'), original, 'the bytes before, beside it');
    disconnectPi(envFor(agentDir));
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(readFileSync(target, 'utf8'), original);
    assert.equal(statSync(target).mode & 0o777, 0o644);
  });

  it("a symlink planted under the backup's name is replaced, never written through (nor a dangling one created)", () => {
    const agentDir = tempDir('pi-tree-agent-');
    const elsewhere = tempDir('pi-tree-victim-');
    const file = join(agentDir, 'settings.json');
    const original = '{"theme":"dark"}\n';
    writeFileSync(file, original);
    const victim = join(elsewhere, 'precious');
    writeFileSync(victim, 'precious bytes\n');
    const bak = `${file}.pi-tree.bak`;
    symlinkSync(victim, bak);
    connectPi(BRIDGE, envFor(agentDir));
    assert.equal(readFileSync(victim, 'utf8'), 'precious bytes\n', 'the file the link named is untouched');
    assert.ok(!lstatSync(bak).isSymbolicLink(), 'the link itself was replaced');
    assert.equal(readFileSync(bak, 'utf8'), original, 'by the backup');
    // a dangling link: writing through it would create the file it names
    const missing = join(elsewhere, 'created-through-link');
    rmSync(bak);
    symlinkSync(missing, bak);
    disconnectPi(envFor(agentDir));
    assert.equal(existsSync(missing), false, 'nothing was created through the dangling link');
    assert.ok(!lstatSync(bak).isSymbolicLink());
    assert.equal(readFileSync(file, 'utf8'), original);
  });

  it('a settings.json that starts with a byte-order mark (pi reads it) is connected, keeps its mark, and pi loads the bridge from it', async () => {
    const pe = makePiEnv(lb);
    const settingsFile = join(pe.agentDir, 'settings.json');
    const original = `\uFEFF${JSON.stringify({ ...JSON.parse(readFileSync(settingsFile, 'utf8')), packages: ['npm:@example/tools@1.0.0'] }, null, 2)}\n`;
    writeFileSync(settingsFile, original);
    const b = sessionBuilder(pe.workDir);
    b.user('hello');
    assistantOf(b, 'hi');
    const file = writeSession(b, join(pe.workDir, 'bom.jsonl'));
    const paths = connectPi(BRIDGE, pe.env);
    const during = readFileSync(settingsFile, 'utf8');
    assert.ok(during.startsWith('\uFEFF{'), 'the mark is kept');
    assert.deepEqual(JSON.parse(asPi(during)).packages, ['npm:@example/tools@1.0.0', paths.bridgeCopy]);
    const st = connectStatus(BRIDGE, pe.env);
    assert.ok(st.connected && st.listed, 'connectStatus reads the file as pi does');
    const pi = PiRpc.start(file, pe, { bridge: false });
    try {
      const info = await waitForBridge(file, pe.env, pi);
      assert.equal(info.record.pid, pi.pid, 'pi read the settings with their mark and loaded the bridge');
    } finally {
      await pi.stop();
    }
    assert.equal(disconnectPi(pe.env)!.exact, true);
    assert.equal(readFileSync(settingsFile, 'utf8'), original, 'byte-identical, mark included');
  });

  it('an updated pi-tree refreshes the stable copy', () => {
    const agentDir = tempDir('pi-tree-agent-');
    const paths = connectPi(BRIDGE, envFor(agentDir));
    writeFileSync(paths.bridgeCopy, '// an older bridge\n');
    assert.equal(
      connectStatus(BRIDGE, envFor(agentDir)).connected &&
        (connectStatus(BRIDGE, envFor(agentDir)) as { upToDate: boolean }).upToDate,
      false,
    );
    assert.equal(refreshBridgeCopy(BRIDGE, envFor(agentDir)), true);
    assert.deepEqual(readFileSync(paths.bridgeCopy), readFileSync(BRIDGE));
    assert.equal(refreshBridgeCopy(BRIDGE, envFor(agentDir)), false);
  });
});
