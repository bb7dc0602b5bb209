// The bridge's socket is private and authenticated: wrong or missing token, malformed and oversized
// lines are refused (and the connection closed), the directory, record and socket are 0700/0600, and
// request fields are ids and texts, never paths.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BridgeClient, BridgeError } from '../../src/core/piClient/client.js';
import type { LiveBridgeInfo } from '../../src/core/piClient/discovery.js';
import { completionSse, startLoopback, type Loopback } from '../support/loopbackOpenAI.js';
import {
  assistantOf,
  makePiEnv,
  PI_REPLY_MS,
  PiRpc,
  sessionBuilder,
  writeSession,
  type PiEnv,
} from '../support/piRpc.js';
import { until } from '../../scripts/lib/until.js';
import { fileEntries, waitForBridge } from './helpers.js';

/**
 * Sends raw bytes on a fresh connection; resolves with every line received once the server closed it,
 * or once `enough` lines came (then the test hangs up: `closed` is false).
 */
async function raw(
  endpoint: string,
  bytes: string | Buffer,
  enough = Infinity,
): Promise<{ lines: any[]; closed: boolean }> {
  const s = connect(endpoint);
  let buf = '';
  let closed = false;
  const parse = () =>
    buf
      .slice(0, buf.lastIndexOf('\n') + 1)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  s.on('data', (d) => (buf += d));
  s.on('error', () => {});
  s.on('close', () => (closed = true));
  s.write(bytes);
  try {
    await until(
      () => closed || parse().length >= enough,
      PI_REPLY_MS,
      () =>
        `pi to ${enough === Infinity ? 'hang up' : `answer ${enough} line(s)`} (got ${JSON.stringify(buf.slice(0, 500))})`,
    );
    return { lines: parse(), closed };
  } finally {
    s.destroy();
  }
}

describe('bridge security', () => {
  let lb: Loopback;
  let pe: PiEnv;
  let pi: PiRpc;
  let file: string;
  let info: LiveBridgeInfo;
  const ids: Record<string, string> = {};

  before(async () => {
    lb = await startLoopback(() => completionSse('ok'));
    pe = makePiEnv(lb);
    const b = sessionBuilder(pe.workDir);
    ids.u1 = b.user('hello');
    ids.a1 = assistantOf(b, 'hi');
    file = writeSession(b, join(pe.workDir, 'sec.jsonl'));
    pi = PiRpc.start(file, pe);
    info = await waitForBridge(file, pe.env, pi);
  });

  after(async () => {
    await pi?.stop();
    await lb?.close();
  });

  it('the directory is 0700, the record and the socket 0600, all in pi-tree-bridges under PI_CODING_AGENT_DIR', () => {
    assert.equal(info.dir, join(pe.agentDir, 'pi-tree-bridges'));
    assert.equal(statSync(info.dir).mode & 0o777, 0o700);
    assert.equal(statSync(info.recordFile).mode & 0o777, 0o600);
    assert.equal(dirname(info.record.endpoint), info.dir);
    assert.ok(statSync(info.record.endpoint).isSocket());
    assert.equal(statSync(info.record.endpoint).mode & 0o777, 0o600);
    assert.match(info.record.token, /^[0-9a-f]{64}$/);
    assert.equal(info.record.pid, pi.pid);
    assert.equal(info.record.sessionFile, file);
    assert.equal(info.record.piVersion, '1.6.0');
  });

  it('no token, a wrong token, or a token of the wrong length: refused and hung up', async () => {
    const good = info.record.token;
    for (const token of [
      undefined,
      good.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
      good.slice(0, 10),
      `${good}00`,
      '',
    ]) {
      const r = await raw(info.record.endpoint, `${JSON.stringify({ id: 'a', token, op: 'state' })}\n`);
      assert.equal(r.closed, true);
      assert.deepEqual(
        r.lines.map((l) => [l.ok, l.code]),
        [[false, 'unauthorized']],
      );
    }
    // A wrong token on a client: its request fails with a clean error.
    const bad = await BridgeClient.connect({ ...info.record, token: '0'.repeat(64) });
    await assert.rejects(bad.state(), (e: unknown) => e instanceof BridgeError && e.code === 'unauthorized');
  });

  it('malformed and oversized lines are refused; unknown ops and bad arguments are answered without acting', async () => {
    const notJson = await raw(info.record.endpoint, 'hello there\n');
    assert.deepEqual([notJson.closed, notJson.lines[0]?.code], [true, 'malformed']);
    const array = await raw(info.record.endpoint, '[1,2]\n');
    assert.deepEqual([array.closed, array.lines[0]?.code], [true, 'malformed']);
    // 1 MiB + 1 byte without a newline: refused before it is ever parsed.
    const huge = await raw(info.record.endpoint, Buffer.alloc(1024 * 1024 + 1, 0x61));
    assert.deepEqual([huge.closed, huge.lines[0]?.code], [true, 'too-large']);

    const lines = fileEntries(file).length;
    const c = await BridgeClient.connect(info.record);
    try {
      const token = info.record.token;
      const send = (o: object) => raw(info.record.endpoint, `${JSON.stringify({ id: 'x', token, ...o })}\n`, 1);
      assert.equal((await send({ op: 'rm -rf' })).lines[0].code, 'unknown-op');
      for (const bad of [
        { op: 'goto', targetId: '../../etc/passwd' },
        { op: 'goto', targetId: '/tmp/evil' },
        { op: 'fork', entryId: ids.u1, position: 'sideways' },
        { op: 'label', entryId: 42 },
        { op: 'goto', targetId: ids.a1, waitMs: -5 },
        { op: 'goto', targetId: ids.a1, summary: { text: '' } },
        { op: 'name' },
      ]) {
        assert.equal((await send(bad)).lines[0]?.code, 'bad-args', JSON.stringify(bad));
      }
      // An entry id is looked up in pi's session, never opened as a file.
      await assert.rejects(
        c.request('goto', { targetId: 'deadbeef' }),
        (e: unknown) => e instanceof BridgeError && e.code === 'not-found',
      );
      assert.equal(fileEntries(file).length, lines, 'nothing was written');
      assert.equal((await c.state()).leafId, ids.a1);
    } finally {
      c.close();
    }
  });

  // Another user is uid/gid 65534 (nobody; the kernel needs no account for it), which only root can act
  // as: .ci/run runs as root and sets PI_TREE_CI, and there this case fails rather than skip.
  const asRoot = process.getuid?.() === 0;
  it(
    'another user can neither reach the socket nor list the directory: the 0700 directory keeps them out',
    { skip: !asRoot && !process.env.PI_TREE_CI ? 'acting as another user needs root (.ci/run runs as root)' : false },
    () => {
      assert.ok(asRoot, 'PI_TREE_CI is set: the other-user case must run, and needs root');
      // Open every directory above ours (temp dirs are 0700 themselves): only pi-tree-bridges keeps them out.
      // The same for the node binary the other user runs (a checkout in a 0700 temp dir holds it).
      const open = (from: string) => {
        for (let d = from; d !== dirname(d); d = dirname(d))
          if ((statSync(d).mode & 0o005) !== 0o005) chmodSync(d, statSync(d).mode | 0o005);
      };
      open(dirname(info.dir));
      open(dirname(realpathSync(process.execPath)));
      const endpoint = info.record.endpoint;
      const script = `const s=require('net').connect(${JSON.stringify(endpoint)});s.on('connect',()=>{console.log('CONNECTED');process.exit(0)});s.on('error',e=>{console.log(e.code);process.exit(0)})`;
      const asOther = { uid: 65534, gid: 65534, encoding: 'utf8' } as const;
      const probe = () => {
        const r = spawnSync(realpathSync(process.execPath), ['-e', script], asOther);
        return `${r.stdout.trim()}${r.stderr}${r.error ?? ''}`;
      };
      const list = () => spawnSync('ls', [info.dir], asOther).status;
      assert.match(probe(), /^(EACCES|EPERM)$/, 'the socket as the bridge made it');
      assert.notEqual(list(), 0, 'the record directory cannot even be listed');
      try {
        // The socket open to everyone: the directory alone still keeps the other user out...
        chmodSync(endpoint, 0o666);
        assert.match(probe(), /^(EACCES|EPERM)$/, 'a socket open to all, in the 0700 directory');
        // ...and it is the directory: opened too, the same probe connects and lists.
        chmodSync(info.dir, 0o755);
        assert.equal(probe(), 'CONNECTED', 'the probe itself works');
        assert.equal(list(), 0);
      } finally {
        chmodSync(info.dir, 0o700);
        chmodSync(endpoint, 0o600);
      }
    },
  );

  it('leaves nothing behind when pi exits normally, and tells subscribers', async () => {
    const dir = info.dir;
    const c = await BridgeClient.connect(info.record);
    const events: string[] = [];
    await c.subscribe((e) => events.push(e.event));
    const closed = new Promise<BridgeError | undefined>((r) => c.onClose(r));
    await pi.stop();
    assert.deepEqual(events, ['sessionClosed']);
    assert.equal((await closed)?.code, 'closing');
    assert.equal(existsSync(info.recordFile), false);
    assert.equal(existsSync(info.record.endpoint), false);
    assert.deepEqual(readdirSync(dir), []);
  });
});
