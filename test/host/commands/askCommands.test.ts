// "Ask from Here…" outside the webview, against the vscode mock: the palette's command asks for the
// prompt in an input box for the selected node of the tree in front and hands it to that tree (whose
// box runs and shows the turn); it refuses without a tree or a selection, in Restricted Mode and on a
// read-only session before asking anything. The node menu's command focuses the tree's box. And what
// package.json contributes: the node menu's item (not on a read-only session), the palette's command
// only where a tree is in front, the menu's command kept out of the palette.
import '../../support/vscode/install.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { Session } from '../../../src/core/session/session.js';
import type { Host } from '../../../src/host/commands/host.js';
import { registerNodeCommands } from '../../../src/host/commands/nodeCommands.js';
import type { InvokeAction } from '../../../src/protocol.js';
import { SessionBuilder } from '../../support/sessionBuilder.js';
import { tempDir } from '../../support/tmp.js';
import { extensionContext, mock } from '../../support/vscode/api.js';

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));

async function tree(selected: string | null = 'sel') {
  const b = new SessionBuilder();
  b.user('first');
  const a = b.assistant({ text: 'the answer' });
  const file = b.write(tempDir('pi-tree-ask-cmd-'));
  const session = await Session.open(file);
  const invoked: [InvokeAction, string | undefined, string | undefined][] = [];
  const controller = {
    file,
    openSession: session,
    selectedId: selected === 'sel' ? a : selected,
    sessionActions: {},
    invoke: (action: InvokeAction, id?: string, text?: string) => void invoked.push([action, id, text]),
  };
  return { a, session, controller, invoked };
}

function register(active: unknown) {
  const ctx = extensionContext();
  registerNodeCommands({ context: ctx, panels: { active: () => active, byToken: () => undefined } } as unknown as Host);
  return ctx;
}

const run = (id: string, ...args: unknown[]) => mock.commands.get(id)!(...args) as Promise<unknown>;

beforeEach(() => mock.reset());

describe('Ask from Here… (palette and node menu)', () => {
  it("the palette asks for the prompt for the tree's selected node and hands it to that tree", async () => {
    const t = await tree();
    register(t.controller);
    mock.inputBox = () => 'why does it fail?';
    await run('piTree.tree.askFromHere');
    const box = mock.inputBoxes[0] as {
      title: string;
      validateInput(v: string): string | undefined;
      ignoreFocusOut: boolean;
    };
    assert.match(box.title, /^Ask pi from the answer “.+”$/, 'the node named by its text');
    assert.equal(box.validateInput('  '), 'Write a prompt for pi.');
    assert.equal(box.validateInput('x'), undefined);
    assert.equal(box.ignoreFocusOut, true);
    assert.deepEqual(t.invoked, [['ask', t.a, 'why does it fail?']]);
    // Dismissed: nothing asked.
    mock.inputBox = () => undefined;
    await run('piTree.tree.askFromHere');
    assert.equal(t.invoked.length, 1);
  });

  it('refuses before the input box: no tree, no selection, Restricted Mode, a read-only session', async () => {
    register(undefined);
    await run('piTree.tree.askFromHere');
    assert.match(mock.shown[0].message, /Open a session tree, select a node/);
    mock.reset();
    const none = await tree(null);
    register(none.controller);
    await run('piTree.tree.askFromHere');
    assert.match(mock.shown[0].message, /Select a node in the tree to ask from/);
    mock.reset();
    const t = await tree();
    register(t.controller);
    mock.trusted = false;
    await run('piTree.tree.askFromHere');
    assert.match(mock.shown[0].message, /not available in Restricted Mode/);
    mock.trusted = true;
    t.session.writeBlocked = 'the file is read-only';
    await run('piTree.tree.askFromHere');
    assert.equal(mock.shown[1].level, 'error');
    assert.match(mock.shown[1].message, /This session is read-only: the file is read-only/);
    assert.equal(mock.inputBoxes.length, 0);
    assert.deepEqual(t.invoked, []);
  });

  it("the node menu's command focuses the box of the entry the menu was opened on", async () => {
    const t = await tree();
    register(t.controller);
    await run('piTree.node.askFromHere', { webviewSection: 'node', entryId: 'e0000001' });
    assert.deepEqual(t.invoked, [['ask', 'e0000001', undefined]]);
  });

  it('package.json: the node menu item (not read-only), the palette command where a tree is in front, the menu command out of the palette', () => {
    const titles = Object.fromEntries(
      pkg.contributes.commands.map((c: { command: string; title: string }) => [c.command, c.title]),
    );
    assert.equal(titles['piTree.tree.askFromHere'], 'Ask from Here…');
    assert.equal(titles['piTree.node.askFromHere'], 'Ask from Here…');
    const menu = pkg.contributes.menus['webview/context'].find(
      (m: { command: string }) => m.command === 'piTree.node.askFromHere',
    );
    assert.match(menu.when, /webviewSection == node/);
    assert.match(menu.when, /!piTree\.readOnly/);
    const palette = Object.fromEntries(
      pkg.contributes.menus.commandPalette.map((m: { command: string; when: string }) => [m.command, m.when]),
    );
    assert.equal(palette['piTree.node.askFromHere'], 'false');
    assert.match(
      palette['piTree.tree.askFromHere'],
      /activeWebviewPanelId == piTree\.tree \|\| activeCustomEditorId == piTree\.sessionEditor/,
    );
  });
});
