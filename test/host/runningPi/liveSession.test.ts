// An open tree's connection to the real pi 1.6.0: the registry sees a pi appear in the discovery
// directory, the LiveSession connects and follows busy/idle, and when pi exits (or is killed) both
// fall back to file mode by themselves, without an error.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BridgeRegistry } from '../../../src/host/runningPi/bridgeRegistry.js';
import { LiveSession, type LiveState } from '../../../src/host/runningPi/liveSession.js';
import { completionSse, gate, startLoopback, type Loopback } from '../../support/loopbackOpenAI.js';
import {
  assistantOf,
  makePiEnv,
  PI_REPLY_MS,
  PI_START_MS,
  PiRpc,
  sessionBuilder,
  writeSession,
  type PiEnv,
} from '../../support/piRpc.js';
import { until } from '../../../scripts/lib/until.js';

describe('live session (connected state)', () => {
  let lb: Loopback;
  let pe: PiEnv;
  let file: string;
  let registry: BridgeRegistry;
  const running: PiRpc[] = [];
  /** A "SLOW" answer stops after its first piece until this is opened: pi is busy until the test saw it so. */
  const hold = gate();

  before(async () => {
    lb = await startLoopback((req, n) =>
      JSON.stringify(req.body?.messages).includes('SLOW')
        ? completionSse(`slow ${n} `.repeat(10), { pieces: 20, heldUntil: hold.opened })
        : completionSse(`answer ${n}`),
    );
    pe = makePiEnv(lb);
    const b = sessionBuilder(pe.workDir);
    b.user('hello');
    assistantOf(b, 'hi');
    file = writeSession(b, join(pe.workDir, 'live.jsonl'));
    registry = new BridgeRegistry({ env: pe.env, dirs: [], pollMs: 200 });
  });

  after(async () => {
    hold.open();
    registry?.dispose();
    for (const pi of running) await pi.stop();
    await lb?.close();
  });

  // (how fast after a SIGKILL: `npm run bench`, "a pi killed with SIGKILL")
  it('connects when pi appears, follows busy, and falls back quietly when pi exits or is killed', async () => {
    const live = new LiveSession(file, registry);
    const states: (LiveState | undefined)[] = [];
    live.onDidChange((s) => states.push(s));
    assert.equal(live.state, undefined, 'file mode while no pi runs');

    const pi = PiRpc.start(file, pe);
    running.push(pi);
    const st = await until(() => live.state, PI_START_MS, 'connected');
    assert.equal(st.pid, pi.pid);
    assert.equal(st.busy, false);
    assert.equal(registry.get(file)?.record.pid, pi.pid);

    const from = pi.records.length;
    await pi.send({ type: 'prompt', message: 'SLOW please' });
    await until(() => live.state?.busy === true, PI_REPLY_MS, 'busy');
    hold.open();
    await pi.settled(from);
    await until(() => live.state?.busy === false, PI_REPLY_MS, 'idle again');

    await pi.stop();
    await until(() => live.state === undefined, PI_REPLY_MS, 'file mode after pi exited');
    await until(() => registry.get(file) === undefined, PI_REPLY_MS, 'registry forgets the pi');

    // A crash leaves the record behind: detected by the pid check and the socket's close.
    const again = PiRpc.start(file, pe);
    running.push(again);
    await until(() => live.state?.pid === again.pid, PI_START_MS, 'connected to the new pi');
    again.child.kill('SIGKILL');
    await until(() => live.state === undefined, PI_REPLY_MS, 'file mode after pi was killed');
    await until(() => registry.get(file) === undefined, PI_REPLY_MS, 'registry forgets the killed pi');
    assert.deepEqual(
      states.map((s) => (s ? `${s.pid}:${s.busy}` : 'file')),
      [`${pi.pid}:false`, `${pi.pid}:true`, `${pi.pid}:false`, 'file', `${again.pid}:false`, 'file'],
    );
    live.dispose();
  });
});
