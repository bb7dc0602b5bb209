// The bridge's socket inside the real pi cannot be made to hold unbounded memory: at most 64
// connections, a connection that does not authenticate within 10 s is closed, and a client that
// pipelines requests without reading the replies makes pi stop reading it (backpressure) instead of
// buffering every reply.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
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
import { waitForBridge } from './helpers.js';

/** pi's resident memory (VmRSS), bytes. */
function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

const MB = 1024 * 1024;

interface Probe {
  socket: Socket;
  /** Resolves 'answered' on an ok reply, 'closed' when pi hangs up first. */
  outcome: Promise<'answered' | 'closed'>;
}

/** A connection, watched from the start (pi may close it before it is used). */
function open(endpoint: string): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const socket = connect(endpoint);
    const outcome = new Promise<'answered' | 'closed'>((done) => {
      let buf = '';
      socket.on('data', (d) => {
        buf += d;
        if (buf.includes('"ok":true')) done('answered');
      });
      socket.on('close', () => done('closed'));
    });
    socket.once('connect', () => resolve({ socket, outcome }));
    socket.on('error', reject);
  });
}

function ask(p: Probe, token: string): Promise<'answered' | 'closed'> {
  if (!p.socket.destroyed) p.socket.write(`${JSON.stringify({ id: 'p', token, op: 'state' })}\n`);
  return p.outcome;
}

describe('bridge limits (real pi)', { skip: process.platform !== 'linux' ? 'reads /proc' : false }, () => {
  let lb: Loopback;
  let pe: PiEnv;
  let pi: PiRpc;
  let info: LiveBridgeInfo;

  before(async () => {
    lb = await startLoopback(() => completionSse('ok'));
    pe = makePiEnv(lb);
    const b = sessionBuilder(pe.workDir);
    b.user('hello');
    assistantOf(b, 'hi');
    const file = writeSession(b, join(pe.workDir, 'limits.jsonl'));
    pi = PiRpc.start(file, pe);
    info = await waitForBridge(file, pe.env, pi);
  });

  after(async () => {
    await pi?.stop();
    await lb?.close();
  });

  it('takes at most 64 connections at once: the others are closed without an answer', async (t) => {
    const probes: Probe[] = [];
    for (let i = 0; i < 100; i++) probes.push(await open(info.record.endpoint));
    const outcomes = await Promise.all(probes.map((p) => ask(p, info.record.token)));
    const answered = outcomes.filter((o) => o === 'answered').length;
    t.diagnostic(`100 connections: ${answered} answered, ${100 - answered} closed by pi`);
    for (const p of probes) p.socket.destroy();
    // (a probe of the test's own that pi has not yet seen closed may still count: 60..64)
    assert.ok(answered <= 64 && answered >= 60, `${answered} of 100 connections were answered`);
    // A new client is served once pi has seen the others go (until then it is over the cap and closed).
    const served = await until(
      async () => {
        const c = await BridgeClient.connect(info.record);
        try {
          return (await c.state()).pid;
        } catch (e) {
          if (e instanceof BridgeError && e.code === 'peer-gone') return undefined;
          throw e;
        } finally {
          c.close();
        }
      },
      PI_REPLY_MS,
      'a new client served once the others are gone',
    );
    assert.equal(served, pi.pid);
  });

  it('closes a connection that has not authenticated within 10 s; an authenticated one stays', async (t) => {
    const idle = await open(info.record.endpoint);
    let closedAt: number | undefined;
    void idle.outcome.then(() => (closedAt = Date.now()));
    const t0 = Date.now();
    const authed = await BridgeClient.connect(info.record);
    await authed.state();
    const at = await until(() => closedAt, 10_000 + PI_REPLY_MS, 'the unauthenticated connection to be closed');
    t.diagnostic(`unauthenticated connection closed after ${at - t0} ms`);
    assert.equal(authed.closed, false);
    assert.equal((await authed.state()).pid, pi.pid, 'the authenticated connection is still served');
    authed.close();
  });

  it('pipelined requests whose replies are not read: pi stops reading that client, its memory stays bounded, and it reads on once the client does', async (t) => {
    const N = 300_000;
    const before = rss(pi.pid);
    // (no 'data' listener: this client never reads what pi sends)
    const s = await new Promise<Socket>((resolve, reject) => {
      const c = connect(info.record.endpoint, () => resolve(c));
      c.once('error', reject);
    });
    s.on('error', () => {});
    const line = (i: number) => `${JSON.stringify({ id: `r${i}`, token: info.record.token, op: 'state' })}\n`;
    const chunks: string[] = [];
    for (let i = 0; i < N; i += 50) {
      let chunk = '';
      for (let j = i; j < Math.min(N, i + 50); j++) chunk += line(j);
      chunks.push(chunk);
    }
    const total = chunks.reduce((n, c) => n + c.length, 0);
    // One small write at a time, each counted once the kernel took it: what pi reads shows at once.
    let taken = 0;
    const pump = (async () => {
      for (const c of chunks) {
        if (s.destroyed) return;
        await new Promise((r) => s.write(c, r));
        taken += c.length;
      }
    })();
    // pi gets a turn of its event loop per round trip on another connection: once three of them pass
    // without the kernel taking another byte of this client's (pi read nothing more), pi has read
    // all it is going to read (everything, when it does not stop).
    const other = await BridgeClient.connect(info.record);
    let peak = before;
    let last = -1;
    for (let still = 0; still < 3;) {
      await other.state();
      peak = Math.max(peak, rss(pi.pid));
      still = taken === last ? still + 1 : 0;
      last = taken;
    }
    other.close();
    t.diagnostic(
      `${N} pipelined requests (${(total / MB).toFixed(1)} MB): pi took ${(taken / MB).toFixed(1)} MB before it stopped reading; pi's RSS ${(before / MB).toFixed(0)} → peak ${(peak / MB).toFixed(0)} MB (+${((peak - before) / MB).toFixed(0)} MB)`,
    );
    assert.ok(taken < total, 'pi stopped reading the client that does not read its replies');
    // Once the client reads, pi reads on: every request gets its reply.
    let replies = 0;
    await new Promise<void>((resolve) => {
      s.on('data', (d: Buffer) => {
        for (let i = d.indexOf(0x0a); i >= 0; i = d.indexOf(0x0a, i + 1)) replies++;
        if (replies === N) resolve();
      });
    });
    await pump;
    s.destroy();
    assert.equal(replies, N);
    assert.ok(peak - before < 64 * MB, `pi's memory grew by ${((peak - before) / MB).toFixed(0)} MB`);
  });
});
