// While pi streams a turn, an action waits for the turn to end (up to the request's waitMs) or answers
// `busy`; it never lands inside the turn, and nothing is written twice.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BridgeClient, BridgeError } from '../../src/core/piClient/client.js';
import type { BridgeEvent } from '../../src/core/piClient/protocol.js';
import { completionSse, gate, startLoopback, type Loopback, type RecordedRequest } from '../support/loopbackOpenAI.js';
import {
  assistantOf,
  makePiEnv,
  PI_REPLY_MS,
  PiRpc,
  sessionBuilder,
  writeSession,
  type PiEnv,
} from '../support/piRpc.js';
import { assertPromptMatches, fileEntries, waitForBridge } from './helpers.js';

/** Every entry id is unique and every parent exists before its child: no torn, interleaved or doubled line. */
function assertWellFormed(file: string): void {
  const seen = new Set<string>();
  for (const e of fileEntries(file)) {
    assert.ok(!seen.has(e.id), `duplicate id ${e.id}`);
    if (e.parentId !== null)
      assert.ok(seen.has(e.parentId), `${e.id} hangs under ${e.parentId}, which is not before it`);
    seen.add(e.id);
  }
}

/** The turn started by `prompt`: its user message, and the assistant reply directly under it. */
function turnOf(file: string, prompt: string) {
  const es = fileEntries(file);
  const u = es.findIndex(
    (e) => e.type === 'message' && e.message.role === 'user' && e.message.content?.[0]?.text === prompt,
  );
  assert.ok(u >= 0, `turn "${prompt}" is in the file`);
  const reply = es[u + 1];
  assert.equal(reply?.message?.role, 'assistant', 'the reply is the next line');
  assert.equal(reply.parentId, es[u].id, 'the reply hangs directly under its prompt');
  return { user: es[u], reply, index: u };
}

describe('bridge while pi is busy', () => {
  let lb: Loopback;
  let pe: PiEnv;
  let pi: PiRpc;
  let file: string;
  let client: BridgeClient;
  const events: BridgeEvent[] = [];
  const ids: Record<string, string> = {};

  /** The current slow turn's hold: its answer stops after the first piece until the test opens it, so pi is busy for as long as a case needs. */
  let hold = gate();
  const lastUser = (req: RecordedRequest) =>
    JSON.stringify(((req.body?.messages ?? []) as { role: string }[]).filter((m) => m.role === 'user').at(-1) ?? '');

  before(async () => {
    // A prompt containing "slow" is answered in 30 pieces, held after the first.
    lb = await startLoopback((req, n) =>
      lastUser(req).includes('slow')
        ? completionSse(`slow answer ${n} `.repeat(10), { pieces: 30, heldUntil: hold.opened })
        : completionSse(`answer ${n}`),
    );
    pe = makePiEnv(lb);
    const b = sessionBuilder(pe.workDir);
    ids.u1 = b.user('first question');
    ids.a1 = assistantOf(b, 'first answer');
    ids.u2 = b.user('second question');
    ids.a2 = assistantOf(b, 'second answer');
    file = writeSession(b, join(pe.workDir, 'busy.jsonl'));
    pi = PiRpc.start(file, pe);
    client = await BridgeClient.connect((await waitForBridge(file, pe.env, pi)).record);
    await client.subscribe((ev) => events.push(ev));
  });

  after(async () => {
    hold.open();
    client?.close();
    await pi?.stop();
    await lb?.close();
  });

  /** Starts a slow turn and resolves once pi is streaming it; it goes on once `hold` is opened. */
  async function startSlowTurn(prompt: string): Promise<number> {
    hold = gate();
    const from = pi.records.length;
    await pi.send({ type: 'prompt', message: prompt });
    await pi.until(() => pi.records.slice(from).find((r) => r.type === 'message_update'), 'streaming');
    return from;
  }

  it('a move with waitMs 0 during a turn answers busy and writes nothing', async () => {
    const from = await startSlowTurn('slow one');
    const lines = fileEntries(file).length;
    await assert.rejects(
      client.request('goto', { targetId: ids.a1 }),
      (e: unknown) => e instanceof BridgeError && e.code === 'busy' && /busy with a turn/.test(e.message),
    );
    await assert.rejects(
      client.request('label', { entryId: ids.a1, label: 'x' }),
      (e: unknown) => e instanceof BridgeError && e.code === 'busy',
    );
    assert.equal(fileEntries(file).length, lines);
    hold.open();
    await pi.settled(from);
    assert.ok(events.some((e) => e.event === 'busy'));
    await pi.until(() => events.some((e) => e.event === 'idle'), 'idle event');
    const turn = turnOf(file, 'slow one');
    assert.equal(fileEntries(file).filter((e) => e.type === 'leaf' || e.type === 'label').length, 0);
    assert.notEqual(await pi.leaf(), ids.a1, 'the refused move did not happen later either');
    assert.equal(await pi.leaf(), turn.reply.id);
    await pi.until(
      () => events.some((e) => e.event === 'leafChanged' && e.leafId === turn.reply.id),
      'leafChanged to the reply',
    );
    const appended = events.flatMap((e) => (e.event === 'entriesAppended' ? e.ids : []));
    assert.ok(
      appended.includes(turn.user.id) && appended.includes(turn.reply.id),
      "subscribers heard of the turn's entries",
    );
    assertWellFormed(file);
  });

  it('a move with waitMs during a turn lands after the turn, once', async () => {
    const from = await startSlowTurn('slow two');
    const goto = client.request('goto', { targetId: ids.a1, waitMs: PI_REPLY_MS });
    const label = client.request('label', { entryId: ids.u1, label: 'start', waitMs: PI_REPLY_MS });
    let answered = false;
    void Promise.allSettled([goto, label]).then(() => (answered = true));
    // A request sent after both on the same connection is answered busy at once: the bridge has read
    // the two, and they are waiting for the turn.
    await assert.rejects(
      client.request('label', { entryId: ids.a2, label: 'probe' }),
      (e: unknown) => e instanceof BridgeError && e.code === 'busy',
    );
    assert.equal(answered, false, 'both wait while the turn runs');
    hold.open();
    const [g, l] = await Promise.all([goto, label]);
    // (pi tells its RPC client agent_settled after its extensions heard it: the replies may come first.)
    await pi.settled(from);
    const turn = turnOf(file, 'slow two');
    const es = fileEntries(file);
    const labelIdx = es.findIndex((e) => e.id === l.entryId);
    const leafIdx = es.findIndex((e) => e.id === g.leafRecordId);
    assert.ok(labelIdx > turn.index + 1 && leafIdx > turn.index + 1, 'both lines come after the whole turn');
    assert.equal(es.filter((e) => e.type === 'label').length, 1);
    assert.equal(es.filter((e) => e.type === 'leaf' && e.targetId === ids.a1).length, g.leafRecordId ? 1 : 0);
    assert.equal(await pi.leaf(), ids.a1);
    assertWellFormed(file);
    await pi.prompt('after the wait');
    await assertPromptMatches(file, lb.requests, 'after the wait', ids.a1);
  });

  it('a request that waits too long answers busy with the time it waited', async () => {
    const from = await startSlowTurn('slow three');
    const t0 = Date.now();
    await assert.rejects(
      client.request('goto', { targetId: ids.a2, waitMs: 300 }),
      (e: unknown) => e instanceof BridgeError && e.code === 'busy' && /waited \d+ ms/.test(e.message),
    );
    assert.ok(Date.now() - t0 >= 300);
    hold.open();
    await pi.settled(from);
    assert.notEqual(await pi.leaf(), ids.a2);
    assertWellFormed(file);
  });
});
