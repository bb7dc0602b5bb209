// `pi-tree connect` / `disconnect` for users without VS Code, run as users run them (the built
// dist/cli.js in its own process) against a temp PI_CODING_AGENT_DIR: a real pi 1.6.0 started afterwards
// without -e loads the bridge from its settings, and disconnect leaves settings.json byte for byte as it was.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitForBridge } from '../piExtension/helpers.js';
import { completionSse, startLoopback, type Loopback } from '../support/loopbackOpenAI.js';
import { assistantOf, BRIDGE, makePiEnv, PiRpc, sessionBuilder, writeSession } from '../support/piRpc.js';
import { tempDir } from '../support/tmp.js';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');
const cli = (args: string[], env: NodeJS.ProcessEnv) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('pi-tree connect / disconnect', () => {
  let lb: Loopback;
  before(async () => {
    lb = await startLoopback((_req, n) => completionSse(`answer ${n}`));
  });
  after(async () => {
    await lb?.close();
  });

  it('connect makes every pi load the bridge; disconnect gives settings.json back byte for byte', async () => {
    const pe = makePiEnv(lb);
    const settingsFile = join(pe.agentDir, 'settings.json');
    const original = `${JSON.stringify({ ...JSON.parse(readFileSync(settingsFile, 'utf8')), theme: 'dark', packages: ['npm:@example/tools@1.0.0'] }, null, 2)}\n`;
    writeFileSync(settingsFile, original);
    const b = sessionBuilder(pe.workDir);
    b.user('hello');
    assistantOf(b, 'hi');
    const file = writeSession(b, join(pe.workDir, 'connected.jsonl'));

    assert.match(cli(['connect', '--status'], pe.env).out, /^not connected/);
    const c = cli(['connect'], pe.env);
    assert.equal(c.code, 0, c.err);
    const copy = join(pe.agentDir, 'pi-tree', 'pi-bridge.js');
    assert.equal(
      c.out,
      `connected: pi loads the pi-tree bridge from ${copy}, listed in "packages" of ${settingsFile} (its bytes before are in settings.json.pi-tree.bak). New pi sessions load it; running ones after /reload or a restart. "pi-tree disconnect" takes it out again.\n`,
    );
    assert.deepEqual(JSON.parse(readFileSync(settingsFile, 'utf8')).packages, ['npm:@example/tools@1.0.0', copy]);
    assert.deepEqual(readFileSync(copy), readFileSync(BRIDGE), 'the copy is the bridge shipped beside the CLI');
    assert.match(cli(['connect', '--status'], pe.env).out, /^connected: .* lists /);
    // again: nothing more changes
    const once = readFileSync(settingsFile, 'utf8');
    assert.match(cli(['connect'], pe.env).out, /^already connected/);
    assert.equal(readFileSync(settingsFile, 'utf8'), once);

    // A real pi, started without -e, opens the bridge from its settings.
    const pi = PiRpc.start(file, pe, { bridge: false });
    try {
      const info = await waitForBridge(file, pe.env, pi);
      assert.equal(info.record.pid, pi.pid);
    } finally {
      await pi.stop();
    }

    const d = cli(['disconnect'], pe.env);
    assert.equal(d.code, 0, d.err);
    assert.match(d.out, /^disconnected: .* is back as it was/);
    assert.equal(readFileSync(settingsFile, 'utf8'), original, 'settings.json is byte-identical');
    assert.equal(existsSync(copy), false);
    assert.match(cli(['disconnect'], pe.env).out, /^not connected: .*nothing to do/);
  });

  it('a missing settings.json is made and removed again; broken settings are refused with one line, untouched', () => {
    const agentDir = tempDir('pi-tree-agent-');
    const env = { ...process.env, PI_CODING_AGENT_DIR: agentDir };
    assert.match(cli(['connect'], env).out, /\(made for it\)/);
    assert.ok(existsSync(join(agentDir, 'settings.json')));
    cli(['disconnect'], env);
    assert.equal(existsSync(join(agentDir, 'settings.json')), false);
    writeFileSync(join(agentDir, 'settings.json'), '{ "packages": [');
    const r = cli(['connect'], env);
    assert.equal(r.code, 1);
    assert.match(r.err, /^pi-tree connect: .*settings\.json is not valid JSON/);
    assert.equal(r.err.trim().split('\n').length, 1);
    assert.equal(readFileSync(join(agentDir, 'settings.json'), 'utf8'), '{ "packages": [');
    assert.equal(cli(['connect', 'extra'], env).code, 2, 'usage error');
  });
});
