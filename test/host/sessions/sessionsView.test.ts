// The Sessions view (sessions/sessionsView.ts) against the vscode mock, on real files in pi's layout
// under a temp agent folder: a workspace folder's sessions are listed (titled by their first message),
// another folder's only under "all folders", a session pi writes into the folder appears without a
// refresh asked for, and an empty folder says where pi keeps its sessions. (Before these, only the e2e
// scenarios in code-server reached this module.)
import '../../support/vscode/install.js';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { SessionsView, type ViewNode } from '../../../src/host/sessions/sessionsView.js';
import { until } from '../../../scripts/lib/until.js';
import { assistant, tempDir, user } from '../../support/tmp.js';
import { Memento, mock, MockTreeView, Uri } from '../../support/vscode/api.js';

describe('SessionsView', () => {
  let cwd: string;
  let repo: SessionRepository;
  let view: SessionsView;
  const changed: string[] = [];

  /** A session of `folder` as pi writes one: its header, then a question and an answer. */
  async function session(folder: string, question: string): Promise<string> {
    const file = await repo.create(folder);
    const u = `u${Math.random().toString(16).slice(2, 8)}`;
    appendFileSync(
      file,
      [user(u, null, question), assistant(`a${u.slice(1)}`, u, 'an answer')]
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(''),
    );
    return file;
  }

  /** The rows' titles as the view shows them (one folder: its sessions at the top level). */
  const titles = (nodes: ViewNode[] = view.getChildren()) =>
    nodes.map((n) => {
      const label = view.getTreeItem(n).label;
      return typeof label === 'string' ? label : label?.label;
    });

  beforeEach(() => {
    mock.reset();
    changed.length = 0;
    const root = tempDir('pi-tree-sessions-view-');
    cwd = join(root, 'project');
    mkdirSync(cwd, { recursive: true });
    repo = new SessionRepository({ agentDir: join(root, 'agent') });
    mock.workspaceFolders = [{ uri: Uri.file(cwd), name: 'project', index: 0 }];
    view = new SessionsView(
      {
        repo: () => repo,
        onFileChanged: (p) => changed.push(p),
        liveness: { observe: () => false },
        connectedPi: () => undefined,
        namesStore: new Memento(),
      },
      { scope: 'folder', sort: 'recent', filter: '', liveWindowSeconds: 10 },
    );
  });

  afterEach(() => view.dispose());

  it("lists the sessions of the workspace folder from pi's folder for it, titled by their first message", async () => {
    const a = await session(cwd, 'how do I start');
    await session(join(cwd, '..', 'elsewhere'), 'another project');
    await view.refresh();
    assert.deepEqual(titles(), ['how do I start']);
    assert.equal(view.info(a)?.path, a);
    assert.equal(view.titleOf(a), 'how do I start');
    assert.equal(mock.contexts.get('piTree.empty'), false);
  });

  it('all folders: a group per folder the sessions were started in', async () => {
    await session(cwd, 'here');
    await session(join(cwd, '..', 'elsewhere'), 'there');
    view.setState({ scope: 'all' });
    await view.refresh();
    const groups = view.getChildren();
    assert.deepEqual(groups.map((g) => (g.kind === 'group' ? g.label : '')).sort(), ['elsewhere', 'project']);
    assert.deepEqual(groups.flatMap((g) => titles(view.getChildren(g))).sort(), ['here', 'there']);
  });

  it('a new session file in the folder is listed without a refresh asked for, and the file change is reported', async () => {
    await session(cwd, 'first');
    await view.refresh();
    let fired = 0;
    view.onDidChangeTreeData(() => fired++);
    const b = await session(cwd, 'second');
    await until(
      () => titles().length === 2,
      10_000,
      () => `the new session listed (rows: ${titles().join(', ')})`,
    );
    assert.deepEqual(titles().sort(), ['first', 'second']);
    assert.ok(fired > 0, 'VS Code was told the tree changed');
    await until(() => changed.includes(b), 10_000, 'the change reported');
  });

  it("a folder with no sessions: the view's message says where pi keeps them", async () => {
    const tree = new MockTreeView('piTree.sessions', view);
    view.attach(tree as never);
    await view.refresh();
    assert.deepEqual(view.getChildren(), []);
    assert.equal(mock.contexts.get('piTree.empty'), true);
    assert.match(
      tree.message ?? '',
      new RegExp(
        `No pi sessions yet\\. pi keeps this folder's sessions in ${repo.dirFor(cwd).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      ),
    );
  });
});
