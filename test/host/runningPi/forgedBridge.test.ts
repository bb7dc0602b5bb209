// The extension does not trust a planted discovery record either: an action on a session whose record
// names a process that is not pi (or a symlinked socket) is refused with one clear message before
// anything is sent to it, and nothing is written into the file.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { findBridge } from '../../../src/core/piClient/discovery.js';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { Session } from '../../../src/core/session/session.js';
import { PiGateway } from '../../../src/host/runningPi/piGateway.js';
import { SessionActions } from '../../../src/host/panels/sessionActions.js';
import { forgedScene } from '../../support/fakeBridge.js';
import { assistantOf, sessionBuilder, writeSession } from '../../support/piRpc.js';

describe(
  'the extension does not trust a forged bridge',
  { skip: process.platform !== 'linux' ? 'the pid checks read /proc' : false },
  () => {
    const scene = forgedScene('pi-tree-forged-host-');
    const { agentDir, elsewhere, env } = scene;
    let file: string;
    const ids: Record<string, string> = {};

    before(() => {
      const b = sessionBuilder(scene.root);
      ids.u1 = b.user('first question');
      ids.a1 = assistantOf(b, 'first answer');
      file = writeSession(b, join(scene.root, 'forged.jsonl'));
    });

    for (const [what, opts, why] of [
      ['a process that is not pi', {}, /is not a pi/],
      ['a symlink to a socket elsewhere', { title: 'pi', listenIn: elsewhere }, /not a socket of ours/],
    ] as const) {
      it(`${what}: refused before anything is sent, nothing written`, async () => {
        const fake = await scene.plant(file, opts);
        try {
          const session = await Session.open(file);
          const gateway = new PiGateway({
            find: (f) => findBridge(f, { env }),
            ui: { askWait: async () => false, waiting: (_m, w) => w },
            env,
          });
          const actions = new SessionActions(session, file, {
            repo: () => new SessionRepository({ agentDir, env }),
            openTree: async () => {},
            confirmLiveWrite: () => Promise.reject(new Error('the action went to the file')),
            gateway,
          });
          const before = readFileSync(file);
          await assert.rejects(
            actions.moveTo(ids.a1),
            (e: Error) => why.test(e.message) && /nothing was sent to it/.test(e.message),
          );
          await assert.rejects(actions.setLabel(ids.u1, 'x'), why);
          assert.deepEqual(readFileSync(file), before);
          assert.deepEqual(
            fake.requests.filter((op) => op !== 'state'),
            [],
          );
        } finally {
          await fake.stop();
        }
      });
    }
  },
);
