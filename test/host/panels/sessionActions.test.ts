import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, it } from 'node:test';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { Session } from '../../../src/core/session/session.js';
import { SessionActions } from '../../../src/host/panels/sessionActions.js';
import { SessionBuilder } from '../../support/sessionBuilder.js';
import { tempDir } from '../../support/tmp.js';

describe('session actions', () => {
  it('"Fork instead" at the root of a live session creates the new session beside it, not under the header\'s cwd', async () => {
    const elsewhere = tempDir('pi-tree-other-project-');
    const b = new SessionBuilder({ cwd: elsewhere });
    const first = b.user('first message');
    b.assistant({ text: 'answer' });
    const file = b.write(tempDir('pi-tree-sessions-'));
    const agentDir = tempDir('pi-tree-agent-');
    const repo = new SessionRepository({ agentDir, env: {} });
    const opened: string[] = [];
    const actions = new SessionActions(await Session.open(file), file, {
      repo: () => repo,
      openTree: async (f) => void opened.push(f),
      confirmLiveWrite: async () => 'fork',
    });
    const before = readFileSync(file);
    const r = await actions.moveTo(first);
    assert.equal(r.moved, false);
    assert.equal(opened.length, 1);
    assert.equal(dirname(opened[0]), dirname(file), 'beside the session');
    const header = JSON.parse(readFileSync(opened[0], 'utf8').split('\n')[0]);
    assert.equal(header.parentSession, file);
    assert.deepEqual(readFileSync(file), before, 'the live session is not written');
    assert.deepEqual(readdirSync(agentDir), [], "nothing lands in pi's folder for the header's cwd");
    assert.ok(!readdirSync(elsewhere).length);
  });

  it('labels and names offer no "Fork instead": anything but an explicit yes cancels', async () => {
    const b = new SessionBuilder();
    const u = b.user('hello');
    const file = b.write(tempDir());
    const asked: boolean[] = [];
    const actions = new SessionActions(await Session.open(file), file, {
      repo: () => new SessionRepository({ agentDir: tempDir(), env: {} }),
      openTree: async () => {},
      confirmLiveWrite: async (_f, _a, canFork) => (asked.push(canFork), 'fork'),
    });
    const before = readFileSync(file);
    assert.deepEqual(await actions.setLabel(u, 'x'), { cancelled: true });
    assert.deepEqual(await actions.rename('new name'), { cancelled: true });
    assert.deepEqual(asked, [false, false]);
    assert.deepEqual(readFileSync(file), before);
  });
});
