// The extension's activation against the vscode mock: what package.json promises is what activation
// registers, the sidebar lists a folder's sessions from pi's layout, and the sidebar's choices persist
// per workspace. (Until now only the e2e run in code-server reached activate.ts.)
import '../support/vscode/install.js';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { activateHost } from '../../src/host/activate.js';
import { encodeCwd } from '../../src/core/session/repository.js';
import { extensionContext, mock, Uri } from '../support/vscode/api.js';
import { tempDir } from '../support/tmp.js';
import { until } from '../../scripts/lib/until.js';

const repoRoot = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
const FIXTURE = join(repoRoot, 'test', 'fixtures', 'real', 'pi-mono-before-compaction.jsonl');

describe('activation (vscode mock)', () => {
  let ctx: ReturnType<typeof extensionContext>;
  let project: string;
  const agentBefore = process.env.PI_CODING_AGENT_DIR;

  beforeEach(() => {
    mock.reset();
    const root = tempDir('pi-tree-activate-');
    project = join(root, 'project');
    mkdirSync(project);
    const agent = join(root, 'agent');
    const folder = join(agent, 'sessions', encodeCwd(project));
    mkdirSync(folder, { recursive: true });
    copyFileSync(FIXTURE, join(folder, '2026-01-02T03-04-05-006Z_0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl'));
    process.env.PI_CODING_AGENT_DIR = agent;
    mock.workspaceFolders = [{ uri: Uri.file(project), name: 'project', index: 0 }];
    ctx = extensionContext();
  });
  afterEach(() => {
    ctx.dispose();
    if (agentBefore === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = agentBefore;
  });

  it('registers the sidebar\'s data provider first (no "There is no data provider registered" while the rest starts)', () => {
    let before: number | undefined;
    const seen = (id: string) => id === 'piTree.sessions' && (before = ctx.subscriptions.length);
    mock.events.on('treeView', seen);
    try {
      activateHost(ctx as never);
    } finally {
      mock.events.off('treeView', seen);
    }
    assert.equal(before, 1, 'only the log came before it: not the bridge set-up, the watchers or the commands');
    assert.ok(ctx.subscriptions.length > 10);
  });

  it('registers exactly the commands package.json contributes', () => {
    activateHost(ctx as never);
    const contributed = new Set<string>(pkg.contributes.commands.map((c: { command: string }) => c.command));
    const registered = new Set(mock.commands.keys());
    assert.deepEqual(
      [...contributed].filter((c) => !registered.has(c)),
      [],
      'contributed without a handler',
    );
    // Internal: a sidebar row's click (a palette entry would have no row to act on).
    assert.deepEqual(
      [...registered].filter((c) => !contributed.has(c)),
      ['piTree.openTreeFromRow'],
      'registered without a contribution',
    );
    // Menus and keybindings name only contributed commands.
    const named = [
      ...Object.values(pkg.contributes.menus as Record<string, { command?: string }[]>).flatMap((items) =>
        items.map((i) => i.command),
      ),
      ...(pkg.contributes.keybindings as { command: string }[]).map((k) => k.command),
    ].filter((c): c is string => !!c);
    assert.deepEqual(
      [...new Set(named)].filter((c) => !contributed.has(c)),
      [],
    );
  });

  it("lists the workspace folder's sessions from pi's layout", async () => {
    activateHost(ctx as never);
    const tree = mock.treeViews.get('piTree.sessions');
    assert.ok(tree, 'the sessions view is created');
    const rows = await until(
      () => {
        const top = tree.provider.getChildren() as unknown[];
        const sessions = top.flatMap((n) =>
          (n as { kind: string }).kind === 'group' ? (tree.provider.getChildren(n) as unknown[]) : [n],
        );
        return sessions.length ? sessions : undefined;
      },
      10_000,
      'the sessions to be listed',
    );
    assert.equal(rows.length, 1);
    const item = tree.provider.getTreeItem(rows[0]) as {
      label: string;
      description: string;
      command: { command: string };
    };
    assert.match(item.description, /\d+ msgs/);
    assert.equal(item.command.command, 'piTree.openTreeFromRow');
    assert.ok(mock.commands.has(item.command.command), "the row's command is registered");
    assert.ok(item.label.length > 0);
  });

  it('remembers scope, sort and filter per workspace for the next activation', async () => {
    activateHost(ctx as never);
    await mock.commands.get('piTree.showAll')!();
    mock.quickPick = (items) => (items as { value: string }[]).find((i) => i.value === 'recent');
    await mock.commands.get('piTree.sort')!();
    mock.inputBox = () => '  refactor ';
    await mock.commands.get('piTree.filter')!();
    assert.equal(mock.contexts.get('piTree.scope'), 'all');
    const state = ctx.workspaceState;
    ctx.subscriptions.splice(0).forEach((s) => s.dispose());
    mock.reset();
    mock.workspaceFolders = [{ uri: Uri.file(project), name: 'project', index: 0 }];
    const host = activateHost({ ...ctx, workspaceState: state } as never);
    assert.deepEqual(
      { scope: host.view.state.scope, sort: host.view.state.sort, filter: host.view.state.filter },
      { scope: 'all', sort: 'recent', filter: 'refactor' },
    );
  });

  it('an untrusted workspace is read-only', () => {
    mock.trusted = false;
    activateHost(ctx as never);
    assert.equal(mock.contexts.get('piTree.readOnly'), true);
  });
});
