// Discovery without pi: records written by hand beside a real bridge socket server (src/piExtension/server.ts),
// dead pids from real exited processes, leftover sockets from a killed listener, a listener that never
// accepts (its event loop blocked).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BridgeClient } from '../../../src/core/piClient/client.js';
import { checkLiveness, findBridge, scanBridges, readRecords } from '../../../src/core/piClient/discovery.js';
import { ensurePrivateDir } from '../../../src/core/platform/privateDir.js';
import type { BridgeRecord, StateData } from '../../../src/core/piClient/protocol.js';
import { BridgeServer } from '../../../src/piExtension/server.js';
import { tempDir } from '../../support/tmp.js';
import { fillAcceptQueue } from '../../piExtension/helpers.js';

const TOKEN = 'cd'.repeat(32);

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const p = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => p.on('exit', r));
  return p.pid!;
}

/** A socket file left behind by a listener killed with SIGKILL. */
async function leftoverSocket(path: string): Promise<number> {
  const p = spawn(
    process.execPath,
    ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((r) => p.stdout!.once('data', () => r()));
  p.kill('SIGKILL');
  await new Promise((r) => p.on('exit', r));
  return p.pid!;
}

/** A process listening at `<dir>/<its pid>-0000abcd.sock` whose event loop blocks once it has said so: it never accepts. */
async function blockedListener(dir: string): Promise<{ pid: number; stem: string; kill: () => Promise<void> }> {
  const script = `const p=require('path').join(process.argv[1], process.pid + '-0000abcd.sock');require('net').createServer().listen(p, () => process.stdout.write('up\\n', () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)))`;
  const p = spawn(process.execPath, ['-e', script, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((r) => p.stdout!.once('data', () => r()));
  const exited = new Promise((r) => p.on('exit', r));
  return {
    pid: p.pid!,
    stem: `${p.pid}-0000abcd`,
    kill: async () => {
      p.kill('SIGKILL');
      await exited;
    },
  };
}

function writeRec(dir: string, stem: string, rec: Partial<BridgeRecord>, mode = 0o600): string {
  const file = join(dir, `${stem}.json`);
  const full: BridgeRecord = {
    protocol: 1,
    pid: Number(stem.split('-')[0]),
    piVersion: '1.6.0',
    sessionFile: '/nowhere.jsonl',
    sessionId: 's',
    endpoint: join(dir, `${stem}.sock`),
    token: TOKEN,
    startedAt: Date.now(),
    ...rec,
  };
  writeFileSync(file, JSON.stringify(full), { mode });
  chmodSync(file, mode);
  return file;
}

describe('bridge discovery', () => {
  const root = tempDir('pi-tree-disc-');
  const dir = join(root, 'bridges');
  const env = { ...process.env, PI_TREE_BRIDGE_DIR: dir, PI_CODING_AGENT_DIR: join(root, 'agent') };
  const session = join(root, 'real.jsonl');
  const stem = `${process.pid}-0000aaaa`;
  let server: BridgeServer;

  before(async () => {
    ensurePrivateDir(dir);
    writeFileSync(session, '');
    const state: StateData = {
      protocol: 1,
      piVersion: '1.6.0',
      pid: process.pid,
      sessionFile: session,
      sessionId: 's',
      leafId: null,
      busy: false,
    };
    server = new BridgeServer(TOKEN, async (req) => (req.op === 'state' ? state : undefined));
    await server.listen(join(dir, `${stem}.sock`));
    writeRec(dir, stem, { sessionFile: session });
  });

  after(() => server.close(join(dir, `${stem}.sock`)));

  it("finds a live bridge by the session's real path (through a symlink too)", async () => {
    const link = join(root, 'link.jsonl');
    symlinkSync(session, link);
    const info = await findBridge(link, { env });
    assert.equal(info?.record.pid, process.pid);
    assert.equal(info?.state.sessionFile, session);
    assert.equal(await findBridge(join(root, 'other.jsonl'), { env }), undefined);
    const c = await BridgeClient.connect(info!.record);
    assert.equal((await c.state()).pid, process.pid);
    c.close();
  });

  it('removes the record and socket of a dead pi, and a record whose socket nobody serves', async () => {
    const deadStem = `${await leftoverSocket(join(dir, 'tmp.sock'))}-0000bbbb`;
    // the killed listener's socket, renamed to the dead stem's name: exactly what a crashed pi leaves
    renameSync(join(dir, 'tmp.sock'), join(dir, `${deadStem}.sock`));
    const deadRecord = writeRec(dir, deadStem, {});
    // alive pid (ours), but nothing listens on its socket: a pid reused after a crash
    const orphan = writeRec(dir, `${process.pid}-0000cccc`, {});
    const tmp = join(dir, `.${await deadPid()}-0000dddd.12345678.tmp`);
    writeFileSync(tmp, '{', { mode: 0o600 });
    const live = (await scanBridges({ env })).live;
    assert.deepEqual(
      live.map((b) => b.stem),
      [stem],
    );
    assert.equal(existsSync(deadRecord), false);
    assert.equal(existsSync(join(dir, `${deadStem}.sock`)), false);
    assert.equal(existsSync(orphan), false);
    assert.equal(existsSync(tmp), false, "a dead writer's temp file is removed");
    assert.equal(existsSync(join(dir, `${stem}.json`)), true, 'the live record stays');
  });

  it('a live pid whose listener takes no more connections (EAGAIN) is unresponsive, not stale: its record and socket stay', async () => {
    const blocked = await blockedListener(dir);
    const file = writeRec(dir, blocked.stem, { sessionFile: join(root, 'blocked.jsonl') });
    const sock = join(dir, `${blocked.stem}.sock`);
    try {
      const filled = await fillAcceptQueue(sock);
      assert.equal(filled.code, 'EAGAIN', `the queue took ${filled.queued}`);
      const [found] = readRecords({ env }).filter((f) => f.stem === blocked.stem);
      const l = await checkLiveness(found, 300);
      assert.equal(l.status, 'unresponsive', JSON.stringify(l));
      assert.deepEqual(
        (await scanBridges({ env, probeTimeoutMs: 300 })).live.map((b) => b.stem),
        [stem],
      );
      assert.ok(existsSync(file) && existsSync(sock), 'the record and its socket stay');
      await blocked.kill();
      await scanBridges({ env, probeTimeoutMs: 300 });
      assert.ok(!existsSync(file) && !existsSync(sock), 'once its pid is gone they are removed');
    } finally {
      await blocked.kill();
      rmSync(file, { force: true });
      rmSync(sock, { force: true });
    }
  });

  it('ignores records it should not believe, and never deletes what they point at', async () => {
    const pid = await deadPid();
    const victim = join(root, 'victim.sock');
    await leftoverSocket(victim);
    const files = [
      writeRec(dir, `${pid}-0000eeee`, {}, 0o644), // readable by others
      writeRec(dir, `${pid}-0000ffff`, { endpoint: victim }), // endpoint outside the allowed places
      writeRec(dir, `${pid + 1}-00001111`, { pid }), // pid does not match its name
      writeRec(dir, `not-a-stem`, {}),
    ];
    assert.deepEqual(
      readRecords({ env }).map((r) => r.stem),
      [stem],
    );
    await scanBridges({ env });
    for (const f of files) assert.equal(existsSync(f), true, `${f} is left alone`);
    assert.equal(existsSync(victim), true, 'a socket a record points at outside our places is never removed');

    // A directory other users can write to is not read at all.
    const open = join(root, 'open');
    mkdirSync(open, { mode: 0o755 });
    chmodSync(open, 0o755);
    writeRec(open, `${process.pid}-00002222`, {
      sessionFile: session,
      endpoint: join(open, `${process.pid}-00002222.sock`),
    });
    assert.deepEqual(
      readRecords({ env, dirs: [open] }).map((r) => r.stem),
      [stem],
    );
  });
});
