// The host's routing against the real pi 1.6.0 (RPC mode, bridge loaded, loopback model): the same
// SessionActions the tree, the sidebar and the CodeLens call change the running pi (its leaf, labels,
// name, its session for fork and clone) instead of its file; pi-tree's view of the file follows; busy,
// stale and a pi killed mid-action give one clear answer and never a doubled line.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PEER_GONE_MESSAGE } from '../../../src/core/piClient/client.js';
import { findBridge } from '../../../src/core/piClient/discovery.js';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { Session } from '../../../src/core/session/session.js';
import { PiGateway, type GatewayUi } from '../../../src/host/runningPi/piGateway.js';
import { SessionActions } from '../../../src/host/panels/sessionActions.js';
import { completionSse, gate, startLoopback, type Loopback } from '../../support/loopbackOpenAI.js';
import { assistantOf, makePiEnv, PiRpc, sessionBuilder, writeSession, type PiEnv } from '../../support/piRpc.js';
import { assertPromptMatches, fileEntries, waitForBridge } from '../../piExtension/helpers.js';

/** No id twice, every parent before its child: nothing torn, interleaved or doubled. */
function assertWellFormed(file: string): void {
  const seen = new Set<string>();
  for (const e of fileEntries(file)) {
    assert.ok(!seen.has(e.id), `duplicate id ${e.id}`);
    if (e.parentId !== null)
      assert.ok(seen.has(e.parentId), `${e.id} hangs under ${e.parentId}, which is not before it`);
    seen.add(e.id);
  }
}

describe('host routing through a running pi', () => {
  let lb: Loopback;
  let pe: PiEnv;
  let pi: PiRpc;
  let file: string;
  const ids: Record<string, string> = {};
  const opened: string[] = [];
  const asked: string[] = [];
  const logs: string[] = [];
  let answerBusy: (msg: string) => Promise<boolean> = async () => false;
  const ui: GatewayUi = {
    askWait: (m) => (asked.push(m), answerBusy(m)),
    waiting: (_m, work) => work,
  };
  const gateway = (opts: { firstWaitMs?: number } = {}) =>
    new PiGateway({ find: (f) => findBridge(f, { env: pe.env }), ui, log: (m) => logs.push(m), ...opts });
  /** SessionActions as the host builds them; the live-session warning must never be asked while pi runs. */
  const actionsOn = async (
    f: string,
    gw = gateway(),
    guard: () => Promise<boolean | 'fork'> = () => Promise.reject(new Error('the live warning was shown')),
  ) => {
    const session = await Session.open(f);
    return {
      session,
      actions: new SessionActions(session, f, {
        repo: () => new SessionRepository({ agentDir: pe.agentDir, env: pe.env }),
        openTree: async (x) => void opened.push(x),
        confirmLiveWrite: guard,
        gateway: gw,
      }),
    };
  };

  /** The current "SLOW" turn's hold: its answer stops after the first piece until the test opens it (pi busy meanwhile). */
  let hold = gate();

  before(async () => {
    // "SLOW" prompts are held after the first piece (`hold`); "HANG" prompts stream one piece and never finish.
    lb = await startLoopback((req, n) => {
      const users = ((req.body?.messages ?? []) as { role: string; content: unknown }[]).filter(
        (m) => m.role === 'user',
      );
      const body = JSON.stringify(users.at(-1)?.content ?? '');
      if (body.includes('HANG')) return completionSse('hanging answer', { pieces: 4, stopAfterPieces: 1, hang: true });
      if (body.includes('SLOW'))
        return completionSse(`slow answer ${n} `.repeat(10), { pieces: 30, heldUntil: hold.opened });
      return completionSse(`answer ${n}`);
    });
    pe = makePiEnv(lb);
    const b = sessionBuilder(pe.workDir);
    ids.u1 = b.user('first question');
    ids.a1 = assistantOf(b, 'first answer');
    ids.u2 = b.user('second question');
    ids.a2 = assistantOf(b, 'second answer');
    b.at(ids.a1);
    ids.u3 = b.user('other question');
    ids.a3 = assistantOf(b, 'other answer');
    file = writeSession(b, join(pe.workDir, '2026-03-01T10-00-00-000Z_019b8f3a-0000-7000-8000-0000000000a1.jsonl'));
    pi = PiRpc.start(file, pe);
    await waitForBridge(file, pe.env, pi);
  });

  after(async () => {
    hold.open();
    await pi?.stop();
    await lb?.close();
  });

  // (how fast: `npm run bench`, "a move through the bridge")
  it('move: pi jumps, pi-tree reads the same leaf, and the next prompt continues from there', async () => {
    const { session, actions } = await actionsOn(file);
    const lines = fileEntries(file).length;
    const r = await actions.moveTo(ids.a2);
    assert.equal(await pi.leaf(), ids.a2);
    assert.deepEqual({ leafId: r.leafId, moved: r.moved }, { leafId: ids.a2, moved: true });
    assert.equal(session.leafId, ids.a2, "the shared session reads pi's leaf record at once");
    assert.equal(fileEntries(file).length, lines + 1, 'one leaf record, written by the bridge');
    // a user message as target: pi's rule, pi has the text in its editor (no clipboard dialog)
    const u = await actions.moveTo(ids.u3);
    assert.equal(u.leafId, ids.a1);
    assert.equal(u.editorText, undefined);
    assert.equal(await pi.leaf(), ids.a1);
    await actions.moveTo(ids.a3);
    await pi.prompt('third question');
    await assertPromptMatches(file, lb.requests, 'third question', ids.a3);
  });

  it('label and rename go through pi, once', async () => {
    const { session, actions } = await actionsOn(file);
    assert.deepEqual(await actions.setLabel(ids.a1, 'checkpoint'), { label: 'checkpoint' });
    const tree = await pi.send({ type: 'get_tree' });
    const labelOf = (nodes: any[]): string | undefined => {
      for (const n of nodes) {
        if (n.entry.id === ids.a1) return n.label;
        const x = labelOf(n.children);
        if (x) return x;
      }
      return undefined;
    };
    assert.equal(labelOf(tree.tree), 'checkpoint');
    assert.equal(session.index.labels.get(ids.a1)?.label, 'checkpoint');
    assert.deepEqual(await actions.rename('Routed session'), { name: 'Routed session' });
    assert.equal((await pi.send({ type: 'get_state' })).sessionName, 'Routed session');
    assert.equal(session.name, 'Routed session');
    assert.equal(fileEntries(file).filter((e) => e.type === 'label').length, 1);
    assertWellFormed(file);
  });

  it('a tree that is behind pi (stale leaf) is refused with a clear message and nothing is written', async () => {
    const { actions } = await actionsOn(file);
    await pi.prompt('pi moved on');
    const lines = fileEntries(file).length;
    const leaf = await pi.leaf();
    await assert.rejects(actions.moveTo(ids.a2), /moved on since the tree was drawn/);
    assert.equal(await pi.leaf(), leaf);
    assert.equal(fileEntries(file).length, lines);
  });

  it('busy: the user is asked; cancel writes nothing, "Wait for pi" lands once after the turn', async () => {
    const { actions } = await actionsOn(file, gateway({ firstWaitMs: 100 }));
    const slow = async (prompt: string) => {
      hold = gate();
      const from = pi.records.length;
      await pi.send({ type: 'prompt', message: prompt });
      await pi.until(() => pi.records.slice(from).find((r) => r.type === 'message_update'), 'streaming');
      return from;
    };
    let from = await slow('SLOW one');
    const lines = fileEntries(file).length;
    answerBusy = async () => false;
    assert.deepEqual(await actions.moveTo(ids.a2), {
      leafId: actions['session'].leafId,
      moved: false,
      cancelled: true,
    });
    assert.match(asked.at(-1)!, /pi \(pid \d+\) is busy with a turn or a compaction, so nothing was done yet/);
    hold.open();
    await pi.settled(from);
    assert.notEqual(await pi.leaf(), ids.a2, 'the cancelled move never happens');
    assert.equal(
      fileEntries(file).filter((e) => e.type === 'leaf').length,
      fileEntries(file)
        .slice(0, lines)
        .filter((e) => e.type === 'leaf').length,
    );

    const fresh = await actionsOn(file, gateway({ firstWaitMs: 100 }));
    from = await slow('SLOW two');
    answerBusy = async () => true;
    const n = asked.length;
    const k = logs.length;
    const moving = fresh.actions.moveTo(ids.a2);
    // The turn goes on once the request that waits for it is on its way (the one after the user's answer).
    await pi.until(
      () => logs.slice(k).filter((l) => l.startsWith('goto sent to pi')).length === 2,
      'the request that waits for the turn',
    );
    hold.open();
    const r = await moving;
    assert.equal(asked.length, n + 1, 'asked once');
    assert.equal(r.leafId, ids.a2);
    await pi.settled(from);
    assert.equal(await pi.leaf(), ids.a2);
    const es = fileEntries(file);
    const turn = es.findIndex((e) => e.type === 'message' && e.message.content?.[0]?.text === 'SLOW two');
    const moves = es.filter((e) => e.type === 'leaf' && e.targetId === ids.a2 && es.indexOf(e) > turn);
    assert.equal(moves.length, 1, 'one leaf record, after the whole turn');
    assertWellFormed(file);
  });

  it('clone and fork: pi switches to the new session, which opens in a tree', async () => {
    const { actions } = await actionsOn(file);
    const c = await actions.clone(ids.a2);
    assert.ok(!('cancelled' in c) && c.viaPi === pi.pid);
    const clone = (c as { file: string }).file;
    assert.notEqual(clone, file);
    assert.equal((await pi.send({ type: 'get_state' })).sessionFile, clone);
    assert.equal(opened.at(-1), clone);
    await waitForBridge(clone, pe.env, pi);
    const inClone = await actionsOn(clone);
    const f = await inClone.actions.fork(ids.u2);
    assert.ok(!('cancelled' in f));
    const forked = (f as { file: string; text?: string }).file;
    assert.equal((f as { text?: string }).text, 'second question');
    assert.equal((await pi.send({ type: 'get_state' })).sessionFile, forked);
    const s = await Session.open(forked);
    assert.ok(!s.index.branch(s.leafId).some((e) => e.id === ids.u2), 'the fork ends before the message');
  });

  it('pi killed mid-action: one clear message, nothing written twice; then the file is used again', async () => {
    const current = (await pi.send({ type: 'get_state' })).sessionFile as string;
    await waitForBridge(current, pe.env, pi);
    const { actions } = await actionsOn(current, gateway({ firstWaitMs: 60_000 }));
    const session = await Session.open(current);
    const target = session.index.branch(session.leafId).find((e) => e.type === 'message' && e.role === 'assistant')!.id;
    const from = pi.records.length;
    await pi.send({ type: 'prompt', message: 'HANG here' });
    await pi.until(() => pi.records.slice(from).find((r) => r.type === 'message_update'), 'streaming');
    const before = fileEntries(current).length;
    const n = logs.length;
    const moving = actions.moveTo(target);
    await pi.until(() => logs.slice(n).some((l) => l.startsWith('goto sent to pi')), 'the request on its way');
    pi.child.kill('SIGKILL');
    await assert.rejects(moving, (e: Error) => e.message === PEER_GONE_MESSAGE);
    await pi.exited;
    assert.ok(fileEntries(current).length <= before + 1, 'at most the prompt pi wrote before it died');
    assert.equal(
      fileEntries(current).filter((e) => e.type === 'leaf' && e.targetId === target).length,
      0,
      'the move was not written',
    );
    assertWellFormed(current);

    // No pi any more: the same action goes to the file (asking first, as for any live-looking session).
    let warned = 0;
    const after = await actionsOn(current, gateway(), async () => (warned++, true));
    const r = await after.actions.moveTo(target);
    assert.equal(r.moved, true);
    assert.equal(warned, 1);
    assert.equal(fileEntries(current).filter((e) => e.type === 'leaf' && e.targetId === target).length, 1);
  });
});
