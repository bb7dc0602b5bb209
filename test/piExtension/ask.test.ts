// Ask from here through the pi that runs the session (the bridge's `ask` op): pi moves its own leaf to
// the node, takes the prompt as a user message and runs the turn; pi-tree gets the answer from the file
// once pi says the turn ended. A busy pi refuses (unless the caller waits), cancel aborts pi's turn and
// leaves pi running, a wrong model or a pi command is refused in words with nothing written.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { BridgeClient, BridgeError } from '../../src/core/piClient/client.js';
import type { BridgeEvent } from '../../src/core/piClient/protocol.js';
import { askFrom } from '../../src/core/runs/askFrom.js';
import { TurnError } from '../../src/core/runs/runTurn.js';
import type { TurnEvent } from '../../src/core/runs/turnEvents.js';
import { Session } from '../../src/core/session/session.js';
import { BROKEN_ERROR, startAskLoop, type AskLoop } from '../support/askPi.js';
import { PI_REPLY_MS, PiRpc } from '../support/piRpc.js';
import { assertPromptMatches, fileEntries, waitForBridge, writeTwoTurns, type TwoTurnIds } from './helpers.js';
import { until } from '../../scripts/lib/until.js';

/** Every line is whole JSON, every id unique, every parent before its child. */
function assertWhole(file: string): void {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.endsWith('\n'));
  const seen = new Set<string>();
  for (const l of text.split('\n').filter(Boolean).slice(1)) {
    const e = JSON.parse(l);
    assert.ok(!seen.has(e.id), `duplicate id ${e.id}`);
    if (e.parentId !== null)
      assert.ok(seen.has(e.parentId), `${e.id} hangs under ${e.parentId}, which is not before it`);
    seen.add(e.id);
  }
}

describe('ask through a running pi', () => {
  let loop: AskLoop;
  let pi: PiRpc;
  let file: string;
  let ids: TwoTurnIds;
  const ask = (o: Partial<Parameters<typeof askFrom>[0]>) =>
    askFrom({ sessionFile: file, entryId: ids.a1, prompt: 'q', env: loop.pe.env, ...o });

  before(async () => {
    loop = await startAskLoop();
    ({ file, ids } = writeTwoTurns(loop.pe.workDir, 'ask.jsonl'));
    pi = PiRpc.start(file, loop.pe);
    await waitForBridge(file, loop.pe.env, pi);
  });
  after(async () => {
    loop.newHold().open();
    await pi?.stop();
    await loop.lb.close();
  });

  it("moves pi's leaf to the node, appends pi's turn there and returns the answer", async () => {
    const events: TurnEvent[] = [];
    const r = await ask({ prompt: 'asked through pi', onEvent: (e) => events.push(e) });
    assert.equal(r.via, 'running');
    assert.equal(r.pid, pi.pid);
    assert.equal(r.answer, 'answer: asked through pi');
    assert.equal(r.fromLeafId, ids.a1);
    assert.equal(await pi.leaf(), r.answerId, "pi's own leaf is the answer");
    assert.equal(r.leafId, r.answerId);
    const session = await Session.open(file);
    assert.equal(session.leafId, r.answerId, 'pi-tree reads the same leaf from the file');
    const path = session.index.branch(r.answerId).map((e) => e.id);
    assert.ok(path.includes(ids.a1) && !path.includes(ids.u2), 'the turn hangs under the node');
    await assertPromptMatches(file, loop.lb.requests, 'asked through pi', ids.a1);
    assert.deepEqual(
      events.filter((e) => e.kind !== 'text').map((e) => e.kind),
      ['started', 'ended'],
    );
    assert.equal(
      events
        .filter((e) => e.kind === 'text')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
      'answer: asked through pi',
    );
    assertWhole(file);
  });

  it('a busy pi refuses and nothing is written; asked to wait, the ask runs once pi is idle', async () => {
    const hold = loop.newHold();
    const from = pi.records.length;
    await pi.send({ type: 'prompt', message: 'a slow user turn' });
    await pi.until(() => pi.records.slice(from).find((r) => r.type === 'message_update'), 'pi streaming its own turn');
    const bytes = readFileSync(file, 'utf8');
    await assert.rejects(
      ask({ prompt: 'while busy' }),
      (e: unknown) => e instanceof BridgeError && e.code === 'busy' && /busy with a turn/.test(e.message),
    );
    assert.equal(readFileSync(file, 'utf8'), bytes, 'nothing was written');
    // The bridge op itself: an ask that may wait is read while pi is busy (a later `state` on the same
    // connection is answered after the bridge read it), then runs once pi's turn has ended.
    const client = await BridgeClient.connect((await waitForBridge(file, loop.pe.env, pi)).record);
    try {
      const ended: BridgeEvent[] = [];
      await client.subscribe((ev) => ev.event === 'askEnded' && ended.push(ev));
      const waiting = client.request('ask', {
        targetId: ids.a2,
        prompt: 'after the busy turn',
        waitMs: PI_REPLY_MS,
        key: 'wait-1',
      });
      assert.equal((await client.state()).busy, true, 'still busy with its own turn after reading the ask');
      hold.open();
      const started = await waiting;
      assert.equal(started.fromLeafId, ids.a2);
      const end = await until(
        () => ended.find((e) => e.event === 'askEnded' && e.askId === started.askId),
        PI_REPLY_MS,
        'askEnded',
      );
      assert.equal(end.event === 'askEnded' && end.aborted, false);
      const es = fileEntries(file);
      const answer = es.find((e) => end.event === 'askEnded' && e.id === end.answerId)!;
      assert.deepEqual(answer.message.content, [{ type: 'text', text: 'answer: after the busy turn' }]);
      const slowEnd = es.findIndex(
        (e) => e.message?.role === 'assistant' && /slow answer/.test(JSON.stringify(e.message.content)),
      );
      assert.ok(slowEnd >= 0 && slowEnd < es.indexOf(answer), "pi's own turn ended before the asked one began");
      // the same key again: that reply, no second prompt
      assert.deepEqual(
        await client.request('ask', { targetId: ids.a2, prompt: 'after the busy turn', key: 'wait-1' }),
        started,
      );
      assert.equal(
        fileEntries(file).filter(
          (e) => e.message?.role === 'user' && JSON.stringify(e.message.content).includes('after the busy turn'),
        ).length,
        1,
      );
    } finally {
      client.close();
    }
    await assertPromptMatches(file, loop.lb.requests, 'after the busy turn', ids.a2);
  });

  it('cancel mid-answer: pi aborts its turn, stays running and idle, the file holds whole lines', async () => {
    const hold = loop.newHold();
    const ac = new AbortController();
    await assert.rejects(
      ask({ prompt: 'a slow ask', signal: ac.signal, onEvent: (e) => e.kind === 'text' && ac.abort() }),
      (e: unknown) => e instanceof TurnError && e.code === 'cancelled' && e.result?.stopReason === 'aborted',
    );
    hold.open();
    const st = await pi.send({ type: 'get_state' });
    assert.equal(st.isStreaming, false, 'pi is idle');
    assert.equal(pi.child.exitCode, null, 'pi still runs');
    const last = fileEntries(file).at(-1)!;
    assert.equal(last.message?.stopReason, 'aborted');
    assert.equal(await pi.leaf(), last.id);
    assertWhole(file);
  });

  it("a model pi does not have, or a prompt that is a pi command: refused in words, nothing written, pi's leaf where it was", async () => {
    const bytes = readFileSync(file, 'utf8');
    const leaf = await pi.leaf();
    await assert.rejects(
      ask({ prompt: 'q', model: { provider: 'loop', id: 'nope' } }),
      (e: unknown) => e instanceof BridgeError && e.code === 'bad-args' && e.message === 'Model not found: loop/nope',
    );
    await assert.rejects(
      ask({ prompt: '/tree-bridge status' }),
      (e: unknown) => e instanceof BridgeError && e.code === 'bad-args' && /is a pi command/.test(e.message),
    );
    assert.equal(readFileSync(file, 'utf8'), bytes);
    assert.equal(await pi.leaf(), leaf);
  });

  it("a model call that fails comes back in pi's words (pi keeps the model it was asked to use, as /model does)", async () => {
    await assert.rejects(ask({ prompt: 'break it', model: { provider: 'loop', id: 'broken-model' } }), (e: unknown) => {
      assert.ok(e instanceof TurnError && e.code === 'failed', String(e));
      assert.match(e.message, new RegExp(`400.*${BROKEN_ERROR}`));
      return true;
    });
    assert.equal((await pi.send({ type: 'get_state' })).model.id, 'broken-model');
    assertWhole(file);
  });
});
