// Host → webview sync (webview/app/hostSync.ts) in Node: snapshots in parts, stale deltas by rev, and
// the one typed call each message becomes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { packNodes } from '../../src/packedNodes';
import type { HostMessage, NodeView, SessionMeta } from '../../src/protocol';
import { HostSync, type SyncTarget } from '../../webview/app/hostSync';
import { smallSession } from './fixtures';

const meta = (over: Partial<SessionMeta> = {}): SessionMeta => ({
  fileName: 's.jsonl',
  sessionId: 's1',
  cwd: '/p',
  live: false,
  diagnostics: [],
  clickAction: 'select',
  summariesAvailable: false,
  restoreToken: 't',
  ...over,
});

function recorder(): { target: SyncTarget; calls: [string, ...unknown[]][] } {
  const calls: [string, ...unknown[]][] = [];
  const rec =
    (name: string) =>
    (...args: unknown[]) =>
      void calls.push([name, ...args]);
  const target: SyncTarget = {
    onSnapshot: (m) => void calls.push(['snapshot', m.rev, m.nodes.map((n) => n.id), m.total]),
    onAppended: (nodes: NodeView[], leafId?: string | null) =>
      void calls.push(
        leafId === undefined ? ['appended', nodes.map((n) => n.id)] : ['appended', nodes.map((n) => n.id), leafId],
      ),
    onLeafMoved: rec('leafMoved'),
    onLabelChanged: rec('labelChanged'),
    onRenamed: rec('renamed'),
    onMeta: (m) => void calls.push(['meta', m.name]),
    onFamily: (links) => void calls.push(['family', links.map((l) => l.token)]),
    onInvoke: rec('invoke'),
    onLoading: rec('loading'),
  };
  return { target, calls };
}

test('a snapshot sent in parts is applied once, whole and in order; parts of another rev are ignored', () => {
  const { target, calls } = recorder();
  const sync = new HostSync(target);
  const { nodes, leafId } = smallSession();
  const ids = nodes.map((n) => n.id);
  sync.receive({ type: 'snapshot', rev: 3, meta: meta(), leafId, nodes: nodes.slice(0, 5), total: nodes.length });
  sync.receive({ type: 'snapshotPart', rev: 2, nodes: nodes.slice(5, 9) });
  sync.receive({ type: 'snapshotPart', rev: 3, nodes: nodes.slice(5, 9) });
  // Nothing is applied from an incomplete snapshot; its progress is reported (the loading bar).
  assert.deepEqual(calls, [
    ['loading', 5, nodes.length],
    ['loading', 9, nodes.length],
  ]);
  sync.receive({ type: 'snapshotPart', rev: 3, nodes: nodes.slice(9) });
  assert.deepEqual(calls.slice(2), [['snapshot', 3, ids, undefined]]);
  sync.receive({ type: 'snapshotPart', rev: 3, nodes: nodes.slice(9) });
  assert.equal(calls.length, 3, 'a stray part after the snapshot is ignored');
  // A snapshot that fits in one message is applied at once.
  sync.receive({ type: 'snapshot', rev: 4, meta: meta(), leafId, nodes, total: nodes.length });
  assert.deepEqual(calls[3], ['snapshot', 4, ids, nodes.length]);
});

test('packed parts (bytes from the projection worker) are unpacked into the same snapshot, mixed with plain ones', () => {
  const { target, calls } = recorder();
  const sync = new HostSync(target);
  const { nodes, leafId } = smallSession();
  sync.receive({
    type: 'snapshot',
    rev: 7,
    meta: meta(),
    leafId,
    packed: packNodes(nodes.slice(0, 4)),
    total: nodes.length,
  });
  sync.receive({ type: 'snapshotPart', rev: 7, packed: packNodes(nodes.slice(4, 8)) });
  assert.deepEqual(calls, [
    ['loading', 4, nodes.length],
    ['loading', 8, nodes.length],
  ]);
  sync.receive({ type: 'snapshotPart', rev: 7, nodes: nodes.slice(8) });
  assert.deepEqual(calls.slice(2), [['snapshot', 7, nodes.map((n) => n.id), undefined]]);
  // A whole snapshot in one packed message.
  sync.receive({ type: 'snapshot', rev: 8, meta: meta(), leafId, packed: packNodes(nodes) });
  assert.deepEqual(calls[3], ['snapshot', 8, nodes.map((n) => n.id), undefined]);
});

test("the packed parts of one snapshot share their nodes' lists (src/packedNodes.ts SharedValues), and the nodes are the ones sent", () => {
  let got: NodeView[] = [];
  const sync = new HostSync({ ...recorder().target, onSnapshot: (m) => void (got = m.nodes) });
  const node = (k: number): NodeView => ({
    id: `n${k}`,
    parentId: k ? `n${k - 1}` : null,
    type: 'message',
    kind: 'toolResult',
    role: 'toolResult',
    text: '[read: a.ts]',
    time: 1000 + k,
    tools: ['read'],
    files: k % 2 ? ['a.ts'] : ['a.ts', 'b.ts'],
  });
  const nodes = Array.from({ length: 9 }, (_, k) => node(k));
  sync.receive({
    type: 'snapshot',
    rev: 1,
    meta: meta(),
    leafId: 'n8',
    packed: packNodes(nodes.slice(0, 3)),
    total: nodes.length,
  });
  sync.receive({ type: 'snapshotPart', rev: 1, packed: packNodes(nodes.slice(3, 6)) });
  sync.receive({ type: 'snapshotPart', rev: 1, packed: packNodes(nodes.slice(6)) });
  assert.deepStrictEqual(got, nodes);
  assert.equal(new Set(got.map((n) => n.tools)).size, 1, 'one tools list for all parts');
  assert.equal(new Set(got.map((n) => n.files)).size, 2, 'one list per distinct files list');
});

test('deltas older than the snapshot held are dropped; invoke and replies do not carry a rev', () => {
  const { target, calls } = recorder();
  const sync = new HostSync(target);
  const { nodes, leafId } = smallSession();
  sync.receive({ type: 'snapshot', rev: 5, meta: meta(), leafId, nodes });
  calls.length = 0;
  const msgs: HostMessage[] = [
    { type: 'leafMoved', rev: 4, leafId: 'u1000000' },
    { type: 'labelChanged', rev: 6, targetId: 'u1000000', label: 'x' },
    { type: 'renamed', rev: 5, name: 'stale: below 6 now' },
    { type: 'appended', rev: 7, nodes: [{ ...nodes[0], id: 'n1000000' }] },
    { type: 'appended', rev: 7, nodes: [{ ...nodes[0], id: 'n2000000' }], leafId: 'n2000000' },
    { type: 'reply', seq: 1, ok: true, data: null },
    { type: 'invoke', action: 'find' },
    { type: 'meta', rev: 7, meta: meta({ name: 'same rev applies' }) },
    { type: 'leafMoved', rev: 8, leafId: null },
  ];
  for (const m of msgs) sync.receive(m);
  sync.receive({ type: 'later-kind' } as unknown as HostMessage);
  assert.deepEqual(calls, [
    ['labelChanged', 'u1000000', 'x'],
    ['appended', ['n1000000']],
    ['appended', ['n2000000'], 'n2000000'],
    ['invoke', 'find', undefined, undefined],
    ['meta', 'same rev applies'],
    ['leafMoved', null],
  ]);
});

test('a first screen goes to onFirstScreen with the loading bar at 0; one older than the snapshot held is dropped', () => {
  const { target, calls } = recorder();
  calls.length = 0;
  const sync = new HostSync({
    ...target,
    onFirstScreen: (m) => void calls.push(['preview', m.rev, m.nodes.length, m.total]),
  });
  const { nodes, leafId } = smallSession();
  sync.receive({ type: 'firstScreen', rev: 2, meta: meta(), leafId, nodes: nodes.slice(0, 3), total: nodes.length });
  assert.deepEqual(calls, [
    ['preview', 2, 3, nodes.length],
    ['loading', 0, nodes.length],
  ]);
  sync.receive({ type: 'snapshot', rev: 3, meta: meta(), leafId, nodes });
  sync.receive({ type: 'firstScreen', rev: 3, meta: meta(), leafId, nodes: nodes.slice(0, 3), total: nodes.length });
  assert.equal(calls.length, 3, 'a preview not newer than the snapshot held is ignored');
  // A first screen read from the file's end comes before the count is known: the bar waits for it.
  calls.length = 0;
  sync.receive({ type: 'firstScreen', rev: 4, meta: meta(), leafId, nodes: nodes.slice(0, 3) });
  assert.deepEqual(calls, [
    ['preview', 4, 3, undefined],
    ['loading', 0, undefined],
  ]);
});
