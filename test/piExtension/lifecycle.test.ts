// pi restarting, exiting and crashing around the bridge: a move survives a restart (pi and pi-tree
// agree where the session resumes), a crashed pi's record is found stale and removed (how fast: `npm run bench`),
// the client gets a clean error, and a request repeated with its key is not done twice (also on the
// bridge of the session pi switched to: keys are per pi process).
import assert from 'node:assert/strict';
import { copyFileSync, existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BridgeClient, BridgeError, PEER_GONE_MESSAGE } from '../../src/core/piClient/client.js';
import { findBridge, scanBridges, readRecords } from '../../src/core/piClient/discovery.js';
import { Session } from '../../src/core/session/session.js';
import { completionSse, startLoopback, type Loopback } from '../support/loopbackOpenAI.js';
import {
  assistantOf,
  BRIDGE,
  makePiEnv,
  PI_REPLY_MS,
  PiRpc,
  sessionBuilder,
  writeSession,
  type PiEnv,
} from '../support/piRpc.js';
import { until } from '../../scripts/lib/until.js';
import { assertPromptMatches, fileEntries, waitForBridge, whileStopped } from './helpers.js';

describe('bridge lifecycle', () => {
  let lb: Loopback;
  let pe: PiEnv;
  let file: string;
  const ids: Record<string, string> = {};
  const running: PiRpc[] = [];
  let hang = false;

  const start = async () => {
    const pi = PiRpc.start(file, pe);
    running.push(pi);
    const info = await waitForBridge(file, pe.env, pi);
    return { pi, info };
  };

  before(async () => {
    lb = await startLoopback((req, n) =>
      hang && JSON.stringify(req.body?.messages).includes('<conversation>')
        ? { kind: 'hang' }
        : completionSse(`answer ${n}`),
    );
    pe = makePiEnv(lb);
    const b = sessionBuilder(pe.workDir);
    ids.u1 = b.user('first question');
    ids.a1 = assistantOf(b, 'first answer');
    ids.u2 = b.user('second question');
    ids.a2 = assistantOf(b, 'second answer');
    file = writeSession(b, join(pe.workDir, 'life.jsonl'));
  });

  after(async () => {
    for (const pi of running) await pi.stop();
    await lb?.close();
  });

  it('a move survives a restart: pi resumes at the target and pi-tree reads the same leaf', async () => {
    const { pi, info } = await start();
    const c = await BridgeClient.connect(info.record);
    const r = await c.request('goto', { targetId: ids.a1 });
    c.close();
    await pi.stop();
    assert.equal((await Session.open(file)).leafId, ids.a1);

    const again = await start();
    // pi 1.6.0 resumes at the last line, the leaf record, whose parent is the target: same context.
    const { entries, leafId } = await again.pi.entries();
    assert.equal(leafId, r.leafRecordId);
    assert.equal(entries.find((e: { id?: string }) => e.id === leafId)?.parentId, ids.a1);
    await again.pi.prompt('after restart');
    await assertPromptMatches(file, lb.requests, 'after restart', ids.a1);
    await again.pi.stop();
  });

  it('a request repeated with its key after a lost connection is done once', async () => {
    const { pi, info } = await start();
    const summaries = () => fileEntries(file).filter((e) => e.type === 'branch_summary').length;
    const before = summaries();
    // A move with a summary (repeating it would summarize again), sent on a connection dropped at once.
    const request = { op: 'goto', targetId: ids.u2, summarize: true, key: 'action-1' };
    await new Promise<void>((resolve) => {
      const s = connect(info.record.endpoint, () => {
        s.write(`${JSON.stringify({ id: 'lost', token: info.record.token, ...request })}\n`, () => {
          s.destroy();
          resolve();
        });
      });
    });
    const c = await BridgeClient.connect(info.record);
    const again = await c.request('goto', { targetId: ids.u2, summarize: true, key: 'action-1' });
    assert.ok(again.summaryId, "the retry got the first request's reply");
    assert.deepEqual(await c.request('goto', { targetId: ids.u2, summarize: true, key: 'action-1' }), again);
    assert.equal(summaries(), before + 1, 'one summary, however often the action was sent');
    // The same action without its key would have summarized again: pi's leaf is now the summary.
    assert.equal((await c.state()).leafId, again.summaryId);
    await assert.rejects(
      c.request('name', { name: 'x', key: 'action-1' }),
      (e: unknown) => e instanceof BridgeError && e.code === 'bad-args',
    );
    // A move repeated by a restarted client, with the leaf it saw as precondition, is refused, not redone.
    const leaf = (await c.state()).leafId;
    await c.request('goto', { targetId: ids.a1, summarize: true, ifLeaf: leaf });
    const n = summaries();
    await assert.rejects(
      c.request('goto', { targetId: ids.a1, summarize: true, ifLeaf: leaf }),
      (e: unknown) => e instanceof BridgeError && e.code === 'stale',
    );
    assert.equal(summaries(), n);
    c.close();
    await pi.stop();
  });

  // (how fast: `npm run bench`, "a pi killed with SIGKILL")
  it('SIGKILL: the client gets a clean error, the record is found stale and removed', async () => {
    const { pi, info } = await start();
    const c = await BridgeClient.connect(info.record);
    const closed = new Promise<BridgeError | undefined>((r) => c.onClose(r));
    hang = true;
    const pending = c.request('summaryPreview', { targetId: ids.u1 });
    await pi.until(
      () => lb.requests.some((q) => JSON.stringify(q.body?.messages).includes('<conversation>')),
      'the summary request reached the model',
    );
    pi.child.kill('SIGKILL');
    await assert.rejects(
      pending,
      (e: unknown) => e instanceof BridgeError && e.code === 'peer-gone' && e.message === PEER_GONE_MESSAGE,
    );
    assert.equal((await closed)?.code, 'peer-gone');
    await pi.exited;
    assert.equal(readRecords({ env: pe.env }).length, 1, 'the dead pi left its record');
    assert.equal(await findBridge(file, { env: pe.env }), undefined);
    assert.equal(existsSync(info.recordFile), false, 'the stale record was removed');
    assert.equal(existsSync(info.record.endpoint), false, 'its socket too');
    assert.deepEqual((await scanBridges({ env: pe.env })).live, []);
    await assert.rejects(
      BridgeClient.connect(info.record),
      (e: unknown) => e instanceof BridgeError && e.code === 'connect-failed',
    );
    hang = false;
  });

  it('loaded twice (settings and -e): one bridge, and its dispatched commands still run', async () => {
    const second = join(pe.workDir, 'second-copy-of-bridge.js');
    copyFileSync(BRIDGE, second);
    const pi = PiRpc.start(file, pe, { args: ['-e', second] });
    running.push(pi);
    const info = await waitForBridge(file, pe.env, pi);
    assert.equal(readRecords({ env: pe.env }).length, 1);
    const c = await BridgeClient.connect(info.record);
    const r = await c.request('goto', { targetId: ids.a1 });
    assert.equal(r.leafId, ids.a1);
    assert.equal(await pi.leaf(), ids.a1);
    assert.equal(
      fileEntries(file).filter((e) => e.type === 'leaf' && e.id === r.leafRecordId).length,
      r.leafRecordId ? 1 : 0,
    );
    assert.equal(lb.requests.filter((q) => JSON.stringify(q.body).includes('tree-bridge')).length, 0);
    c.close();
    await pi.stop();
  });

  it('a frozen pi (SIGSTOP) is not mistaken for a dead one', async () => {
    const { pi, info } = await start();
    await whileStopped(pi.pid, async () => {
      assert.deepEqual((await scanBridges({ env: pe.env, probeTimeoutMs: 300 })).live, []);
      assert.equal(existsSync(info.recordFile), true, 'an unresponsive pi keeps its record');
    });
    // (a pi just let go answers once it has run again: waited for, as a loaded machine may take a while)
    await until(
      async () => (await scanBridges({ env: pe.env })).live.length === 1,
      PI_REPLY_MS,
      'the pi let go to be listed again',
    );
    await pi.stop();
    assert.equal(existsSync(info.recordFile), false);
  });

  it('keys are kept per pi process: a clone repeated with its key on the bridge of the session pi switched to is not done again', async () => {
    const { pi, info } = await start();
    const c = await BridgeClient.connect(info.record);
    const first = await c.request('clone', { entryId: ids.a1, key: 'clone-1' });
    c.close();
    assert.ok(first.sessionFile && first.sessionFile !== file, 'pi cloned into a new session');
    // The clone's session has a bridge of its own (a new instance in the same pi process).
    const next = await waitForBridge(first.sessionFile, pe.env, pi);
    assert.notEqual(next.stem, info.stem);
    const c2 = await BridgeClient.connect(next.record);
    const again = await c2.request('clone', { entryId: ids.a1, key: 'clone-1' });
    c2.close();
    assert.deepEqual(again, first, "the repeat gets the first clone's reply");
    assert.equal(
      (await pi.send({ type: 'get_state' })).sessionFile,
      first.sessionFile,
      'pi still runs the first clone: nothing was cloned again',
    );
    await pi.stop();
  });
});
