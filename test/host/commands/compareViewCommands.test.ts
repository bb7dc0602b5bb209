// "Compare With…" on a sidebar row, against the vscode mock: the quick pick offers the session's family
// (the one it came from, its sibling forks, its own forks), each named as the sidebar names it (a fork
// without a message of its own reads as its source, with its place), and the pick opens the compare of
// the two current branches. A session without family says so and opens nothing.
import '../../support/vscode/install.js';
import assert from 'node:assert/strict';
import { describe, it, beforeEach } from 'node:test';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { Session } from '../../../src/core/session/session.js';
import type { Host } from '../../../src/host/commands/host.js';
import { registerCompareCommands } from '../../../src/host/commands/compareViewCommands.js';
import { SessionNames } from '../../../src/host/sessions/sessionNames.js';
import { SessionBuilder } from '../../support/sessionBuilder.js';
import { tempDir } from '../../support/tmp.js';
import { extensionContext, mock } from '../../support/vscode/api.js';

beforeEach(() => mock.reset());

async function family() {
  const root = tempDir('pi-tree-compare-cmd-');
  const repo = new SessionRepository({ env: { PI_CODING_AGENT_DIR: root } });
  const b = new SessionBuilder({ cwd: '/work/proj' });
  const u1 = b.user('plan the parser');
  b.assistant({ text: 'planned' });
  const u2 = b.user('write it');
  b.assistant({ text: 'written' });
  const dir = repo.dirFor('/work/proj');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dir, { recursive: true });
  const source = await Session.open(b.write(dir));
  const forkA = (await repo.fork(source, u2)).file;
  const forkB = (await repo.fork(source, u1)).file;
  const sessions = await repo.list('/work/proj');
  const names = new SessionNames();
  await names.update(sessions);
  const compared: unknown[][] = [];
  const host = {
    context: extensionContext(),
    panels: { active: () => undefined },
    treeView: { selection: [], visible: false },
    actedIn: () => 'sidebar',
    repo: () => repo,
    store: { acquire: async (f: string) => ({ session: await Session.open(f), release() {} }) },
    view: { sessions, names },
    compareServices: { compare: (...a: unknown[]) => void compared.push(a) },
  } as unknown as Host;
  registerCompareCommands(host);
  const row = (file: string) => ({ kind: 'session', node: { info: sessions.find((i) => i.path === file) } });
  return { source: source.path!, forkA, forkB, compared, row };
}

const run = (id: string, ...args: unknown[]) => mock.commands.get(id)!(...args) as Promise<unknown>;

describe('Compare With… on a sidebar row', () => {
  it('offers the family by the sidebar names and compares the current branches of the pick', async () => {
    const f = await family();
    let offered: { label: string; description?: string; path: string }[] = [];
    mock.quickPick = (items) => {
      offered = items as typeof offered;
      return offered.find((i) => i.path === f.source);
    };
    await run('piTree.compareSessions', f.row(f.forkA));
    assert.deepEqual(
      offered.map((i) => [i.label.replace(/\d\d:\d\d/, 'HH:MM'), i.description]),
      [
        ['plan the parser', 'came from · 4 msgs'],
        ['plan the parser (fork 2 · HH:MM)', 'sibling fork · 0 msgs'],
      ],
    );
    assert.deepEqual(f.compared, [
      [
        { file: f.forkA, id: null },
        { file: f.source, id: null },
      ],
    ]);
  });

  it('from the source: its forks; a session without family says so and compares nothing', async () => {
    const f = await family();
    let offered: { description?: string }[] = [];
    mock.quickPick = (items) => void (offered = items as typeof offered);
    await run('piTree.compareSessions', f.row(f.source));
    assert.deepEqual(
      offered.map((i) => i.description?.split(' · ')[0]),
      ['fork', 'fork'],
    );
    assert.equal(f.compared.length, 0, 'nothing picked, nothing compared');
    const lone = new SessionBuilder({ cwd: '/work/other' });
    lone.user('alone');
    const file = lone.write(tempDir('pi-tree-compare-lone-'));
    await run('piTree.compareSessions', { kind: 'session', node: { info: { path: file } } });
    assert.match(mock.shown.at(-1)?.message ?? '', /no family/);
  });
});
