// The extension with a pi stopped by Ctrl+Z (SIGSTOP), against the real pi 1.6.0: the registry keeps it
// known (the session stays pi-run), an action asks the same Wait / Cancel as for a busy pi and never
// writes the file behind it, "Wait for pi" goes through pi once it answers, and a branch summary is not
// written behind it either.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { findBridge } from '../../../src/core/piClient/discovery.js';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { Session } from '../../../src/core/session/session.js';
import { BridgeRegistry } from '../../../src/host/runningPi/bridgeRegistry.js';
import { LiveSession } from '../../../src/host/runningPi/liveSession.js';
import { PiGateway, type GatewayUi } from '../../../src/host/runningPi/piGateway.js';
import { SessionActions } from '../../../src/host/panels/sessionActions.js';
import type { Loopback } from '../../support/loopbackOpenAI.js';
import { PI_REPLY_MS, type PiEnv, type PiRpc } from '../../support/piRpc.js';
import { procState, whileStopped, startTwoTurnPi } from '../../piExtension/helpers.js';
import { until } from '../../../scripts/lib/until.js';

describe(
  'the extension with a stopped pi',
  { skip: process.platform !== 'linux' ? 'stops pi and reads /proc' : false },
  () => {
    let lb: Loopback;
    let pe: PiEnv;
    let pi: PiRpc;
    let file: string;
    let registry: BridgeRegistry;
    const ids: Record<string, string> = {};
    const asked: string[] = [];
    const waited: string[] = [];
    let answer = false;
    /** What "Waiting for pi…" does in the test: lets pi go on (the user typed fg). */
    let onWaiting: () => void = () => {};
    const ui: GatewayUi = {
      askWait: async (m) => (asked.push(m), answer),
      waiting: (m, work) => (waited.push(m), onWaiting(), work),
    };

    const actionsOn = async () => {
      const session = await Session.open(file);
      const gateway = new PiGateway({ find: (f) => findBridge(f, { env: pe.env }), ui });
      return {
        session,
        actions: new SessionActions(session, file, {
          repo: () => new SessionRepository({ agentDir: pe.agentDir, env: pe.env }),
          openTree: async () => {},
          confirmLiveWrite: () => Promise.reject(new Error('the live warning was shown: the action went to the file')),
          gateway,
        }),
      };
    };

    before(async () => {
      const started = await startTwoTurnPi('host-stopped.jsonl');
      ({ lb, pe, pi, file } = started);
      Object.assign(ids, started.ids);
      registry = new BridgeRegistry({ env: pe.env, dirs: [], pollMs: 200 });
    });

    after(async () => {
      registry?.dispose();
      if (pi && pi.child.exitCode === null) process.kill(pi.pid, 'SIGCONT');
      await pi?.stop();
      await lb?.close();
    });

    it('the registry keeps a stopped pi known, so the session stays pi-run (and an open tree says pi is not free)', async () => {
      await until(() => registry.get(file), PI_REPLY_MS, 'the registry sees pi');
      const live = new LiveSession(file, registry);
      try {
        await until(() => live.state, PI_REPLY_MS, 'the tree connected');
        await whileStopped(pi.pid, async () => {
          await registry.rescan();
          assert.equal(registry.get(file)?.record.pid, pi.pid, 'still known while stopped');
          await until(() => live.state?.busy, PI_REPLY_MS, 'the tree shows pi as not free');
        });
        await registry.rescan();
        assert.equal(registry.get(file)?.record.pid, pi.pid);
        await until(() => live.state && !live.state.busy, PI_REPLY_MS, 'free again after SIGCONT');
      } finally {
        live.dispose();
      }
    });

    it('an action asks Wait / Cancel as for a busy pi: Cancel writes nothing; Wait goes through pi once it answers', async () => {
      const size = readFileSync(file).length;
      const { actions } = await actionsOn();
      await whileStopped(pi.pid, async () => {
        answer = false;
        const r = await actions.moveTo(ids.a1);
        assert.equal(r.cancelled, true);
        assert.match(asked.at(-1) ?? '', new RegExp(`pi \\(pid ${pi.pid}\\) .*does not answer`));
        const l = await actions.setLabel(ids.u1, 'x');
        assert.deepEqual(l, { cancelled: true });
        assert.equal(readFileSync(file).length, size, 'nothing was written behind the stopped pi');

        answer = true;
        onWaiting = () => process.kill(pi.pid, 'SIGCONT');
        const m = await actions.moveTo(ids.a1);
        assert.equal(m.leafId, ids.a1);
        assert.match(waited.at(-1) ?? '', /Waiting for pi/);
      });
      onWaiting = () => {};
      assert.notEqual(procState(pi.pid), 'T');
      assert.equal(await pi.leaf(), ids.a1, 'pi itself made the move');
    });

    it('a reviewed branch summary is not written into the file behind a stopped pi', async () => {
      const size = readFileSync(file).length;
      const { actions } = await actionsOn();
      await whileStopped(pi.pid, async () => {
        answer = false;
        const r = await actions.moveWithSummaryViaPi(ids.a2, 'what happened there', {
          readFiles: [],
          modifiedFiles: [],
        });
        assert.equal(r?.cancelled, true, `cancelled (got ${JSON.stringify(r)})`);
        assert.match(asked.at(-1) ?? '', new RegExp(`pi \\(pid ${pi.pid}\\) .*does not answer`));
        assert.equal(readFileSync(file).length, size, 'nothing was written');
      });
    });
  },
);
