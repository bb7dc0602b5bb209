// One tree panel (panels/treeController.ts) against the vscode mock, with a real Session on a temp file
// and a stand-in webview panel that records what the host posts: the snapshot once the webview is
// ready, a move's delta before the reply to the request that made it, a change appended to the file
// while the panel is hidden sent as a new snapshot once it shows again, and a request the gate refuses
// answered with a refusal, not dispatched. (Before these, only the e2e scenarios in code-server
// reached this module.)
import '../../support/vscode/install.js';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { SessionRepository } from '../../../src/core/session/repository.js';
import type { HostMessage } from '../../../src/protocol.js';
import { TreeController, type TreeDeps } from '../../../src/host/panels/treeController.js';
import { SessionStore } from '../../../src/host/sessions/sessionStore.js';
import { until } from '../../../scripts/lib/until.js';
import { assistant, sessionText, tempDir, user } from '../../support/tmp.js';
import { EventEmitter, mock, Uri } from '../../support/vscode/api.js';

const repoRoot = join(__dirname, '..', '..', '..');

/** A webview panel as VS Code hands one to the host: what it posts is kept, what the webview says is sent in. */
class FakePanel {
  title = '';
  iconPath: unknown;
  visible = true;
  active = true;
  readonly posted: HostMessage[] = [];
  private readonly received = new EventEmitter<unknown>();
  private readonly viewState = new EventEmitter<void>();
  private readonly disposed = new EventEmitter<void>();
  readonly webview = {
    options: {},
    html: '',
    cspSource: 'vscode-webview:',
    asWebviewUri: (u: Uri) => u,
    postMessage: async (m: HostMessage) => (this.posted.push(m), true),
    onDidReceiveMessage: this.received.event,
  };
  readonly onDidChangeViewState = this.viewState.event;
  readonly onDidDispose = this.disposed.event;
  /** A message from the webview. */
  send(m: unknown): void {
    this.received.fire(m);
  }
  /** The panel goes to the back (another tab in front) or comes to the front. */
  show(visible: boolean): void {
    this.visible = this.active = visible;
    this.viewState.fire();
  }
  dispose(): void {
    this.disposed.fire();
  }
  /** The kinds of what was posted from message `from` on. */
  kinds(from = 0): string[] {
    return this.posted.slice(from).map((m) => m.type);
  }
}

const noSub = () => ({ dispose() {} });

/** The panel's deps with no pi running, no summary model and no family: the host's parts a tree cannot do without. */
function deps(agentDir: string): TreeDeps {
  return {
    extensionUri: Uri.file(repoRoot) as unknown as TreeDeps['extensionUri'],
    store: new SessionStore(),
    repo: () => new SessionRepository({ agentDir }),
    openTree: async () => {},
    confirmLiveWrite: async () => true,
    continueInPi: async () => {},
    summaries: { available: () => false } as unknown as TreeDeps['summaries'],
    isLive: () => false,
    bridges: { onDidChange: noSub, get: () => undefined, rescan: async () => {} } as unknown as TreeDeps['bridges'],
    compareServices: {
      family: { onDidChange: noSub, linksFor: async () => [] },
      hidden: { get: () => [] },
      openTree: async () => {},
    } as unknown as TreeDeps['compareServices'],
    code: {} as TreeDeps['code'],
    agentDir: () => agentDir,
    ask: {} as TreeDeps['ask'],
    tryVariants: async () => false,
  };
}

describe('TreeController', () => {
  let file: string;
  let agentDir: string;
  let panel: FakePanel;
  let tree: TreeController;

  beforeEach(() => {
    mock.reset();
    // Move here without the code question: the conversation alone (the checkpoint flow has its own tests).
    mock.settings.set('piTree.checkpoints.onMove', 'conversationOnly');
    const root = tempDir('pi-tree-tree-');
    agentDir = join(root, 'agent');
    mkdirSync(agentDir, { recursive: true });
    file = join(root, 'session.jsonl');
    appendFileSync(
      file,
      sessionText([
        user('u1', null, 'first'),
        assistant('a1', 'u1', 'one'),
        user('u2', 'a1', 'second'),
        assistant('a2', 'u2', 'two'),
      ]),
    );
    panel = new FakePanel();
    tree = new TreeController(panel as never, file, deps(agentDir));
  });

  afterEach(() => panel.dispose());

  /** The webview says it is ready; resolves with the snapshot it gets. */
  async function ready(): Promise<Extract<HostMessage, { type: 'snapshot' }>> {
    panel.send({ type: 'ready' });
    return until(
      () => panel.posted.find((m): m is Extract<HostMessage, { type: 'snapshot' }> => m.type === 'snapshot'),
      10_000,
      'the snapshot',
    );
  }

  it('opens the session: the document is set, then a snapshot of every entry with the leaf once the webview is ready', async () => {
    assert.match(panel.webview.html, /<html/);
    const snap = await ready();
    assert.equal(snap.leafId, 'a2');
    assert.deepEqual(
      snap.nodes?.map((n) => n.id),
      ['u1', 'a1', 'u2', 'a2'],
    );
    assert.equal(snap.meta.restoreToken, tree.restoreToken);
    assert.equal(panel.title, 'first');
  });

  it('a move: the session moves, the leafMoved delta is posted, then the reply', async () => {
    await ready();
    const from = panel.posted.length;
    panel.send({ type: 'request', seq: 1, body: { kind: 'moveTo', id: 'a1' } });
    const reply = await until(() => panel.posted.find((m) => m.type === 'reply' && m.seq === 1), 10_000, 'the reply');
    // (as the webview gets it: the message is cloned, undefined fields dropped)
    assert.deepEqual(JSON.parse(JSON.stringify(reply)), {
      type: 'reply',
      seq: 1,
      ok: true,
      data: { leafId: 'a1', moved: true },
    });
    assert.equal(tree.openSession?.leafId, 'a1');
    const after = panel.posted.slice(from);
    const delta = after.findIndex((m) => m.type === 'leafMoved' || m.type === 'appended');
    assert.ok(
      delta >= 0 && delta < after.indexOf(reply),
      `the delta before the reply: ${panel.kinds(from).join(', ')}`,
    );
    assert.equal((after[delta] as { leafId?: string }).leafId, 'a1');
  });

  it('a hidden panel gets no deltas; shown again, it gets a new snapshot with what was appended', async () => {
    await ready();
    panel.show(false);
    const from = panel.posted.length;
    const session = tree.openSession!;
    await session.setLabel('u1', 'start');
    assert.deepEqual(panel.kinds(from), [], 'nothing posted to a hidden panel');
    panel.show(true);
    const snap = await until(
      () => panel.posted.slice(from).find((m) => m.type === 'snapshot'),
      10_000,
      'a new snapshot',
    );
    assert.ok(snap && snap.type === 'snapshot');
    assert.ok(
      snap.nodes?.some((n) => n.label === 'start'),
      'the snapshot carries the label set while hidden',
    );
  });

  it('a request the gate refuses is answered with a refusal and changes nothing', async () => {
    await ready();
    panel.send({ type: 'request', seq: 2, body: { kind: 'moveTo', id: '../../etc/passwd' } });
    const reply = await until(() => panel.posted.find((m) => m.type === 'reply' && m.seq === 2), 10_000, 'the refusal');
    assert.equal(reply.type === 'reply' && reply.ok, false);
    assert.equal(tree.openSession?.leafId, 'a2');
  });
});
