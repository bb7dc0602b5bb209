// pi-tree driving a running pi 1.6.0 (RPC mode, the bridge loaded, a loopback model), timed: a move
// through the bridge's client and through the host's SessionActions until pi's own get_entries shows the
// leaf (a prototype of the bridge moved pi in ~100 ms: docs/decisions/0003-driving-pi-from-inside.md),
// and a pi killed with SIGKILL until its client is told, its record is found stale and removed, and an
// open tree is back in file
// mode. The bridge suites (test/bridge, test/host/runningPi) check what these do; the times are here.
import { join } from 'node:path';
import { BridgeClient } from '../src/core/piClient/client.js';
import { findBridge } from '../src/core/piClient/discovery.js';
import { SessionRepository } from '../src/core/session/repository.js';
import { Session } from '../src/core/session/session.js';
import { BridgeRegistry } from '../src/host/runningPi/bridgeRegistry.js';
import { LiveSession } from '../src/host/runningPi/liveSession.js';
import { PiGateway } from '../src/host/runningPi/piGateway.js';
import { SessionActions } from '../src/host/panels/sessionActions.js';
import { waitForBridge } from '../test/piExtension/helpers.js';
import { completionSse, startLoopback } from '../test/support/loopbackOpenAI.js';
import { assistantOf, makePiEnv, PiRpc, sessionBuilder, writeSession, type PiEnv } from '../test/support/piRpc.js';
import { until } from '../scripts/lib/until.js';
import { fmt, log, median, mmm, rows, RUNS } from './report';

const MOVES = 20;
const MOVE_TARGET_MS = 500;
const STALE_TARGET_MS = 1000;
const FILE_MODE_TARGET_MS = 1500;

export async function bridgeBench(): Promise<void> {
  const lb = await startLoopback((_req, n) => completionSse(`answer ${n}`));
  const pe = makePiEnv(lb);
  const b = sessionBuilder(pe.workDir);
  const ids = { u1: b.user('first question'), a1: '', a2: '', a3: '' };
  ids.a1 = assistantOf(b, 'first answer');
  b.user('second question');
  ids.a2 = assistantOf(b, 'second answer');
  b.at(ids.a1);
  b.user('other question');
  ids.a3 = assistantOf(b, 'other answer');
  const file = writeSession(b, join(pe.workDir, '2026-03-01T10-00-00-000Z_019b8f3a-0000-7000-8000-0000000000b1.jsonl'));
  try {
    await moves(pe, file, [ids.a2, ids.a3]);
    await kills(pe, file);
  } finally {
    await lb.close();
  }
}

/** `MOVES` moves between two assistant entries, each until pi's get_entries shows the leaf. */
async function moves(pe: PiEnv, file: string, targets: string[]): Promise<void> {
  const pi = PiRpc.start(file, pe);
  try {
    const info = await waitForBridge(file, pe.env, pi);
    const client = await BridgeClient.connect(info.record);
    const viaClient: number[] = [];
    for (let i = 0; i < MOVES; i++) {
      const target = targets[i % 2];
      const t0 = performance.now();
      await client.request('goto', { targetId: target });
      if ((await pi.leaf()) !== target) throw new Error(`pi's leaf is not ${target} after goto`);
      viaClient.push(performance.now() - t0);
    }
    client.close();

    const gateway = new PiGateway({
      find: (f) => findBridge(f, { env: pe.env }),
      ui: { askWait: async () => false, waiting: (_m, work) => work },
      log: () => {},
    });
    const session = await Session.open(file);
    const actions = new SessionActions(session, file, {
      repo: () => new SessionRepository({ agentDir: pe.agentDir, env: pe.env }),
      openTree: async () => {},
      confirmLiveWrite: () => Promise.reject(new Error('the live warning was asked while pi runs the session')),
      gateway,
    });
    const viaHost: number[] = [];
    for (let i = 0; i < MOVES; i++) {
      const target = targets[i % 2];
      const t0 = performance.now();
      await actions.moveTo(target);
      if ((await pi.leaf()) !== target) throw new Error(`pi's leaf is not ${target} after moveTo`);
      viaHost.push(performance.now() - t0);
    }
    rows.push({
      what: 'a move through the bridge (pi running the session)',
      how: `pi 1.6.0 in RPC mode with the bridge, a small session; from the request to pi's own get_entries showing the new leaf (the bridge's leaf record written), ${MOVES} moves each: pi-tree's bridge client (the CLI's path), and the host's SessionActions.moveTo through PiGateway (the tree's path: discovery, connect, goto)`,
      target: `< ${fmt(MOVE_TARGET_MS)} ms`,
      result: `client ${mmm(viaClient)}; host ${mmm(viaHost)}`,
      pass: median(viaClient) < MOVE_TARGET_MS && median(viaHost) < MOVE_TARGET_MS,
    });
    log(`bridge moves: ${rows[rows.length - 1].result}`);
  } finally {
    await pi.stop();
  }
}

/** A pi killed with SIGKILL, `RUNS` times for each of: a connected client and findBridge; an open tree (LiveSession). */
async function kills(pe: PiEnv, file: string): Promise<void> {
  const told: number[] = [];
  const stale: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const pi = PiRpc.start(file, pe);
    const info = await waitForBridge(file, pe.env, pi);
    const client = await BridgeClient.connect(info.record);
    const closed = new Promise<number>((r) => client.onClose(() => r(performance.now())));
    const t0 = performance.now();
    pi.child.kill('SIGKILL');
    // findBridge on a dead pi's record says "no pi" and removes the record (and its socket).
    // (a pi being killed may take a probe's connection and not answer it: unresponsive, looked at again)
    const gone = async () =>
      (await findBridge(file, { env: pe.env }).catch((e: unknown) =>
        (e as { code?: string }).code === 'unresponsive' ? 'unresponsive' : Promise.reject(e),
      )) === undefined;
    await until(gone, 10_000, 'the killed pi found stale', 5);
    stale.push(performance.now() - t0);
    told.push((await closed) - t0);
    await pi.exited;
  }

  const fileMode: number[] = [];
  // As the extension makes it (a 1 s look besides the directory watch); an open tree's LiveSession.
  const registry = new BridgeRegistry({ env: pe.env, dirs: [] });
  try {
    for (let i = 0; i < RUNS; i++) {
      const live = new LiveSession(file, registry);
      const pi = PiRpc.start(file, pe);
      await until(() => live.state?.pid === pi.pid, 60_000, 'the tree connected to pi');
      const t0 = performance.now();
      pi.child.kill('SIGKILL');
      await until(
        () => live.state === undefined && registry.get(file) === undefined,
        10_000,
        'the tree in file mode and the registry without the killed pi',
        5,
      );
      fileMode.push(performance.now() - t0);
      live.dispose();
      await pi.exited;
    }
  } finally {
    registry.dispose();
  }
  rows.push({
    what: 'a pi killed with SIGKILL (pi running the session)',
    how: `pi 1.6.0 with the bridge, SIGKILL, ${RUNS} runs each (a fresh pi per run): until a connected client is told (peer gone); until findBridge finds the record stale and removes it; until an open tree's LiveSession is back in file mode and the host's BridgeRegistry (as the extension makes it) has forgotten the pi`,
    target: `record found stale and removed < ${fmt(STALE_TARGET_MS)} ms; the tree in file mode < ${fmt(FILE_MODE_TARGET_MS)} ms`,
    result: `client told ${mmm(told)}; record found stale and removed ${mmm(stale)}; the tree in file mode ${mmm(fileMode)}`,
    pass: median(stale) < STALE_TARGET_MS && median(fileMode) < FILE_MODE_TARGET_MS,
  });
  log(`bridge kills: ${rows[rows.length - 1].result}`);
}
