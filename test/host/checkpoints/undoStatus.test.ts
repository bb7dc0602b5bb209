// "Undo restore" in the status bar (vscode mock): shown once a restore is done, with the command and the
// session it undoes; gone after the undo, back after a redo, and gone when a new turn of that session
// appends messages. The restore itself is the real one (SimPi's session and checkpoints, the journal).
import '../../support/vscode/install.js';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { Session } from '../../../src/core/session/session.js';
import { CodeDocuments } from '../../../src/host/checkpoints/codeDocuments.js';
import { CodeRestore } from '../../../src/host/checkpoints/codeRestore.js';
import { UndoStatus } from '../../../src/host/checkpoints/undoStatus.js';
import { until } from '../../../scripts/lib/until.js';
import { SimPi } from '../../support/simPi.js';
import { tempDir } from '../../support/tmp.js';
import { answerInOrder, mock, Uri } from '../../support/vscode/api.js';

/** The restore's choice: a notification beside the preview. */
const CHOICE = /^Restore the code at /;

describe('the status bar Undo of the last restore (vscode mock)', () => {
  beforeEach(() => {
    mock.reset();
    mock.builtins.set('vscode.changes', (label) => void mock.tabs.push({ label: label as string }));
    mock.builtins.set('vscode.executeLinkProvider', () => []);
  });

  it('shows after a restore, goes after undo, comes back with redo, goes when a new turn comes', async () => {
    const root = tempDir('pi-tree-undo-status-');
    const cwd = join(root, 'proj');
    const agentDir = join(root, 'agent');
    for (const d of [cwd, agentDir, join(root, 'sessions')]) mkdirSync(d, { recursive: true });
    const sim = new SimPi(cwd, agentDir, { sessionDir: join(root, 'sessions') });
    const put = (p: string, t: string) => writeFileSync(join(cwd, p), t);
    const read = (p: string) => (existsSync(join(cwd, p)) ? readFileSync(join(cwd, p), 'utf8') : undefined);
    const t1 = await sim.turn('one', [{ name: 'write', args: { path: 'a.txt', content: 'a1\n' } }], () =>
      put('a.txt', 'a1\n'),
    );
    await sim.turn('two', [{ name: 'write', args: { path: 'a.txt', content: 'a2\n' } }], () => put('a.txt', 'a2\n'));
    const session = await Session.open(sim.file);
    const undoStatus = new UndoStatus();
    const code = new CodeRestore({
      agentDir: () => agentDir,
      docs: new CodeDocuments(),
      log: () => undefined,
      describe: async (_s, id) => `the node ${id}`,
      undoStatus,
    });
    const shown = () => mock.statusItems.filter((i) => i.shown);

    assert.equal(shown().length, 0, 'nothing to undo yet');
    answerInOrder(CHOICE, 'Restore');
    assert.equal(await code.restoreCode(session, sim.file, t1.answer), true);
    assert.equal(read('a.txt'), 'a1\n');
    const [item] = shown();
    assert.ok(item, 'Undo restore is in the status bar');
    assert.equal(item.text, '$(discard) Undo restore');
    assert.equal(item.command?.command, 'piTree.undoRestore');
    assert.equal((item.command?.arguments?.[0] as Uri).fsPath, sim.file, 'it undoes that session');
    assert.match(item.accessibilityInformation!.label, /^Undo the last code restore of /);

    await code.undo(session, sim.file);
    assert.equal(read('a.txt'), 'a2\n');
    assert.equal(shown().length, 0, 'undone: nothing left to undo');
    await code.undo(session, sim.file, true);
    assert.equal(read('a.txt'), 'a1\n');
    assert.equal(shown().length, 1, 'redone: undoable again');

    // a new turn: the code moved on, the one-click undo goes
    await sim.turn('three', [{ name: 'write', args: { path: 'c.txt', content: 'c\n' } }], () => put('c.txt', 'c\n'));
    await session.refresh();
    await until(() => (shown().length === 0 ? true : undefined), 10_000, 'the item to go after a new turn');
    undoStatus.dispose();
    assert.ok(mock.statusItems.every((i) => i.disposed));
  });
});
