// Ask from here without a running pi: pi-tree moves the leaf (its leaf record), then the real pi 1.6.0,
// headless in RPC mode, runs the turn under the node. What pi sends its model is exactly pi-tree's
// context of the node plus the prompt; the answer comes back; pi is stopped; nothing is written on
// bad input, and a failed or cancelled turn says why in pi's words.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pidAlive } from '../../../src/core/piClient/discovery.js';
import { askFrom, AskInputError } from '../../../src/core/runs/askFrom.js';
import { listModels } from '../../../src/core/runs/listModels.js';
import { runTurn, TurnError } from '../../../src/core/runs/runTurn.js';
import type { TurnEvent } from '../../../src/core/runs/turnEvents.js';
import { EntryNotFoundError, Session } from '../../../src/core/session/session.js';
import { until } from '../../../scripts/lib/until.js';
import {
  assertPromptMatches,
  fileEntries,
  requestTurns,
  writeTwoTurns,
  type TwoTurnIds,
} from '../../piExtension/helpers.js';
import { BROKEN_ERROR, PI_PROGRAM, startAskLoop, type AskLoop } from '../../support/askPi.js';
import { BRIDGE, makePiEnv, PI_REPLY_MS } from '../../support/piRpc.js';
import { tempDir } from '../../support/tmp.js';

/** Every line of the file is a whole JSON object (no torn line), every id unique, every parent before its child. */
function assertWhole(file: string): void {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.endsWith('\n'), 'the file ends with a whole line');
  const seen = new Set<string>();
  for (const line of text.split('\n').filter(Boolean).slice(1)) {
    const e = JSON.parse(line);
    assert.ok(!seen.has(e.id), `duplicate id ${e.id}`);
    if (e.parentId !== null)
      assert.ok(seen.has(e.parentId), `${e.id} hangs under ${e.parentId}, which is not before it`);
    seen.add(e.id);
  }
}

describe('ask from here, headless', () => {
  let loop: AskLoop;
  let n = 0;
  const fresh = (): { file: string; ids: TwoTurnIds } => writeTwoTurns(loop.pe.workDir, `ask-${++n}.jsonl`);
  const base = () => ({
    pi: PI_PROGRAM,
    env: loop.pe.env,
    discovery: { onlyDirs: [join(loop.pe.agentDir, 'no-bridges')] },
  });

  before(async () => {
    loop = await startAskLoop();
  });
  after(async () => {
    loop.newHold().open();
    await loop.lb.close();
  });

  it('asks from an older node: the turn hangs under it, pi sees its path and the prompt, the answer comes back, pi is gone', async () => {
    const { file, ids } = fresh();
    const events: TurnEvent[] = [];
    const r = await askFrom({
      ...base(),
      sessionFile: file,
      entryId: ids.a1,
      prompt: 'third question',
      onEvent: (e) => events.push(e),
    });
    assert.equal(r.via, 'headless');
    assert.equal(r.answer, 'answer: third question');
    assert.equal(r.insteadOfUserMessage, false);
    assert.equal(r.fromLeafId, ids.a1);
    const session = await Session.open(file);
    assert.equal(session.leafId, r.answerId, "the answer is the session's leaf");
    assert.equal(r.leafId, r.answerId);
    const path = session.index.branch(r.answerId).map((e) => e.id);
    assert.ok(
      path.includes(ids.a1) && !path.includes(ids.u2),
      `the turn hangs under ${ids.a1}, not on the newer branch (path ${path.join(' ')})`,
    );
    assert.equal(session.index.get(r.promptId!)?.role, 'user');
    // pi's request was pi-tree's context at the prompt: the node's path, then the prompt.
    await assertPromptMatches(file, loop.lb.requests, 'third question', ids.a1);
    const req = loop.lb.requests.find((q) => requestTurns(q).some(([, t]) => t === 'third question'))!;
    assert.deepEqual(
      requestTurns(req).map(([role, text]) => `${role}: ${text}`),
      ['user: first question', 'assistant: first answer', 'user: third question'],
    );
    assert.deepEqual(
      events.filter((e) => e.kind !== 'text').map((e) => e.kind),
      ['started', 'ended'],
    );
    assert.equal(
      events
        .filter((e) => e.kind === 'text')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
      'answer: third question',
    );
    assert.ok(r.usage && r.usage.input > 0 && typeof r.cost === 'number', 'the usage pi recorded is summed');
    assert.equal(pidAlive(r.pid), false, 'pi is stopped');
    assertWhole(file);
  });

  it('asking from a user message asks instead of it: the prompt goes beside it, under its parent', async () => {
    const { file, ids } = fresh();
    const r = await askFrom({ ...base(), sessionFile: file, entryId: ids.u2, prompt: 'second question, reworded' });
    assert.equal(r.insteadOfUserMessage, true);
    assert.equal(r.fromLeafId, ids.a1);
    const session = await Session.open(file);
    const prompt = session.index.get(r.promptId!)!;
    const path = session.index.branch(prompt.id).map((e) => e.id);
    assert.ok(path.includes(ids.a1) && !path.includes(ids.u2), 'a sibling of the user message, not its child');
    await assertPromptMatches(file, loop.lb.requests, 'second question, reworded', ids.a1);
  });

  it('with a model: pi switches to it for the turn (and records it as it records a model change)', async () => {
    const { file, ids } = fresh();
    const r = await askFrom({
      ...base(),
      sessionFile: file,
      entryId: ids.a2,
      prompt: 'which model',
      model: { provider: 'loop', id: 'other-model' },
    });
    assert.equal(r.answer, 'other: which model');
    assert.ok(
      r.entries.some((e) => e.type === 'model_change' && (e as { modelId?: string }).modelId === 'other-model'),
      'pi recorded the model change',
    );
  });

  it('bad input writes nothing: an unknown entry, an empty prompt, a model pi does not have', async () => {
    const { file, ids } = fresh();
    const bytes = readFileSync(file, 'utf8');
    await assert.rejects(
      askFrom({ ...base(), sessionFile: file, entryId: 'deadbeef', prompt: 'q' }),
      EntryNotFoundError,
    );
    await assert.rejects(askFrom({ ...base(), sessionFile: file, entryId: ids.a1, prompt: '  \n' }), AskInputError);
    await assert.rejects(
      askFrom({ ...base(), sessionFile: file, entryId: ids.a1, prompt: 'q', model: { provider: 'loop', id: 'nope' } }),
      (e: unknown) => e instanceof TurnError && e.code === 'refused' && e.message === 'Model not found: loop/nope',
    );
    assert.equal(readFileSync(file, 'utf8'), bytes);
  });

  it("a model call that fails comes back in pi's words, with the turn pi wrote", async () => {
    const { file, ids } = fresh();
    await assert.rejects(
      askFrom({
        ...base(),
        sessionFile: file,
        entryId: ids.a1,
        prompt: 'break',
        model: { provider: 'loop', id: 'broken-model' },
      }),
      (e: unknown) => {
        assert.ok(e instanceof TurnError && e.code === 'failed', String(e));
        assert.match(e.message, new RegExp(`400.*${BROKEN_ERROR}`));
        assert.equal(e.result?.stopReason, 'error');
        assert.ok(e.result?.entries.some((x) => x.id === e.result?.promptId));
        return true;
      },
    );
    assertWhole(file);
  });

  it('cancel mid-answer: pi aborts the turn, is stopped, and the file holds whole lines only', async () => {
    const { file, ids } = fresh();
    const hold = loop.newHold();
    const ac = new AbortController();
    let pid = 0;
    const run = askFrom({
      ...base(),
      sessionFile: file,
      entryId: ids.a1,
      prompt: 'a slow one',
      signal: ac.signal,
      onEvent: (e) => {
        if (e.kind === 'started') pid = e.pid;
        // (the answer is held after its first piece: pi is mid-answer now)
        if (e.kind === 'text') ac.abort();
      },
    });
    await assert.rejects(run, (e: unknown) => {
      assert.ok(e instanceof TurnError && e.code === 'cancelled', String(e));
      assert.equal(e.result?.aborted, true);
      assert.equal(e.result?.stopReason, 'aborted');
      return true;
    });
    hold.open();
    assert.ok(pid > 0);
    await until(() => !pidAlive(pid), PI_REPLY_MS, `pi ${pid} to be gone`);
    assertWhole(file);
    const last = fileEntries(file).at(-1)!;
    assert.equal(last.message?.stopReason, 'aborted', 'the aborted answer is the last line, whole');
  });

  it('pi that dies during the turn: a clear error, what pi wrote stays whole', async () => {
    const { file, ids } = fresh();
    const hold = loop.newHold();
    let pid = 0;
    // (killed mid-answer: pi has written the prompt, the answer is held after its first piece)
    const onEvent = (e: TurnEvent) =>
      e.kind === 'started' ? (pid = e.pid) : e.kind === 'text' && process.kill(pid, 'SIGKILL');
    await assert.rejects(
      askFrom({ ...base(), sessionFile: file, entryId: ids.a1, prompt: 'a slow one to die in', onEvent }),
      (e: unknown) => {
        assert.ok(e instanceof TurnError && e.code === 'exited', String(e));
        assert.match(e.message, /^pi exited during the turn: pi exited \(SIGKILL\)/);
        assert.ok(e.result?.promptId, 'the prompt pi wrote is in the result');
        return true;
      },
    );
    hold.open();
    assertWhole(file);
  });

  it('pi that does not start, or dies at once, is a clear error (and the leaf goes back)', async () => {
    const { file, ids } = fresh();
    const before = (await Session.open(file)).leafId;
    await assert.rejects(
      askFrom({
        ...base(),
        pi: { program: join(loop.pe.workDir, 'no-such-pi'), args: [] },
        sessionFile: file,
        entryId: ids.a1,
        prompt: 'q',
      }),
      (e: unknown) =>
        e instanceof TurnError && e.code === 'start' && /pi did not start: pi could not be started/.test(e.message),
    );
    await assert.rejects(
      askFrom({
        ...base(),
        pi: { program: process.execPath, args: ['-e', 'console.error("no config here"); process.exit(3)', '--'] },
        sessionFile: file,
        entryId: ids.a1,
        prompt: 'q',
      }),
      (e: unknown) =>
        e instanceof TurnError && e.code === 'start' && /pi exited \(code 3\): no config here/.test(e.message),
    );
    assert.equal((await Session.open(file)).leafId, before, 'the leaf is back where it was');
  });

  it("no API key: pi's words, nothing asked, the leaf back where it was", async () => {
    // the same models without a key
    const pe = makePiEnv(loop.lb, { retry: { enabled: false } });
    const mf = join(pe.agentDir, 'models.json');
    const models = JSON.parse(readFileSync(mf, 'utf8'));
    delete models.providers.loop.apiKey;
    writeFileSync(mf, JSON.stringify(models));
    const { file, ids } = writeTwoTurns(pe.workDir, 'no-key.jsonl');
    const bytes = readFileSync(file, 'utf8');
    const requests = loop.lb.requests.length;
    await assert.rejects(
      askFrom({ pi: PI_PROGRAM, env: pe.env, sessionFile: file, entryId: ids.a1, prompt: 'q' }),
      (e: unknown) =>
        e instanceof TurnError && e.code === 'refused' && /^No API key found for the selected model\./.test(e.message),
    );
    assert.equal(loop.lb.requests.length, requests, 'no model call');
    assert.equal((await Session.open(file)).leafId, ids.a2, 'the leaf is back');
    const added = readFileSync(file, 'utf8')
      .slice(bytes.length)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      added.map((e) => [e.type, e.targetId]),
      [
        ['leaf', ids.a1],
        ['leaf', ids.a2],
      ],
      'only the move and the move back were written',
    );
  });

  it('runTurn on a session pi has not written yet: pi creates it, every entry is the turn', async () => {
    const file = join(loop.pe.workDir, 'new-session.jsonl');
    let state: { sessionFile?: string } | undefined;
    const r = await runTurn({
      pi: PI_PROGRAM,
      sessionFile: file,
      cwd: loop.pe.workDir,
      prompt: 'first words',
      env: loop.pe.env,
      // (more of pi's RPC before the prompt: what variants may need, a thinking level, say)
      beforePrompt: async (p) => {
        state = (await p.send({ type: 'get_state' })) as typeof state;
      },
    });
    assert.equal(state?.sessionFile, file);
    assert.equal(r.answer, 'answer: first words');
    assert.deepEqual(
      r.entries.map((e) => e.id),
      fileEntries(file).map((e) => e.id),
    );
    assert.equal(r.leafId, r.answerId);
  });

  it("a prompt that names one of pi's extension commands is refused before it is sent (pi would run the command)", async () => {
    const { file } = fresh();
    const bytes = readFileSync(file, 'utf8');
    await assert.rejects(
      runTurn({
        pi: PI_PROGRAM,
        sessionFile: file,
        cwd: loop.pe.workDir,
        prompt: '/tree-bridge status',
        piArgs: ['-e', BRIDGE],
        env: { ...loop.pe.env, PI_TREE_BRIDGE_DIR: tempDir('pi-tree-bridges-') },
      }),
      (e: unknown) =>
        e instanceof TurnError && e.code === 'refused' && /"\/tree-bridge" is a pi command/.test(e.message),
    );
    assert.equal(readFileSync(file, 'utf8'), bytes);
  });

  it("lists pi's models", async () => {
    const { models, defaultModel } = await listModels({ pi: PI_PROGRAM, env: loop.pe.env, cwd: loop.pe.workDir });
    assert.deepEqual(
      models.map((m) => `${m.provider}/${m.id}`),
      ['loop/loop-model', 'loop/other-model', 'loop/broken-model'],
    );
    assert.deepEqual(defaultModel, { provider: 'loop', id: 'loop-model' });
    assert.equal(models[0].contextWindow, 128000);
  });
});
