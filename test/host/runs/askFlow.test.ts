// Ask from here on the host (runs/askFlow.ts, through requestHandlers as the tree's requests reach it),
// against the vscode mock with a fake AskService on a real session file: the progress notification and
// what it reports, its Cancel and the tree's cancelAsk both cancelling the service's token, a busy pi
// waited for when the user says so (or the ask cancelled), pi's failures shown in words and returned,
// the refusals before anything runs (Restricted Mode, read-only, a turn already running, a live session
// the user does not want a second pi on), and pi's appends reaching the tree while the turn runs.
import '../../support/vscode/install.js';
import assert from 'node:assert/strict';
import { appendFileSync, statSync } from 'node:fs';
import { beforeEach, describe, it } from 'node:test';
import type * as vscode from 'vscode';
import { Session } from '../../../src/core/session/session.js';
import { SessionRepository } from '../../../src/core/session/repository.js';
import type { PiGateway } from '../../../src/host/runningPi/piGateway.js';
import { requestHandlers, type HandlerContext } from '../../../src/host/panels/requestHandlers.js';
import { SessionActions } from '../../../src/host/panels/sessionActions.js';
import { AskSlot, FIRST_WAIT_MS, LONG_WAIT_MS } from '../../../src/host/runs/askFlow.js';
import {
  AskCancelledError,
  PiBusyError,
  type AskAnswer,
  type AskEvent,
  type AskQuestion,
  type AskService,
} from '../../../src/host/runs/askService.js';
import type { ModelList, Replies } from '../../../src/protocol.js';
import { until } from '../../../scripts/lib/until.js';
import { SessionBuilder } from '../../support/sessionBuilder.js';
import { tempDir } from '../../support/tmp.js';
import { CancellationTokenSource, mock, type ProgressShown } from '../../support/vscode/api.js';

type Script = (
  q: AskQuestion,
  token: vscode.CancellationToken,
  onEvent: (e: AskEvent) => void,
  call: number,
) => Promise<AskAnswer>;

/** An AskService whose turns a test scripts; it records what it was asked and the tokens it got. */
class FakeAsk implements AskService {
  readonly questions: AskQuestion[] = [];
  readonly tokens: vscode.CancellationToken[] = [];
  modelCalls = 0;
  constructor(
    public script: Script,
    public list: ModelList = { models: [] },
  ) {}
  ask(q: AskQuestion, token: vscode.CancellationToken, onEvent?: (e: AskEvent) => void): Promise<AskAnswer> {
    this.questions.push(q);
    this.tokens.push(token);
    return this.script(q, token, onEvent ?? (() => undefined), this.questions.length);
  }
  async models(): Promise<ModelList> {
    this.modelCalls++;
    return this.list;
  }
}

/** A session of two turns; `pi` appends entries to its file as a pi would (whole lines). */
function sessionFile() {
  const b = new SessionBuilder({ cwd: tempDir('pi-tree-ask-cwd-') });
  const u1 = b.user('first question');
  const a1 = b.assistant({ text: 'first answer' });
  b.user('second question');
  const a2 = b.assistant({ text: 'second answer' });
  const file = b.write(tempDir('pi-tree-ask-'));
  let written = b.entries.length;
  const pi = {
    /** pi's turn from `from`: its prompt and its answer, appended now. */
    turn(from: string, prompt: string, answer: string): { promptId: string; answerId: string } {
      b.at(from);
      const promptId = b.user(prompt);
      const answerId = b.assistant({ text: answer });
      pi.flush();
      return { promptId, answerId };
    },
    flush() {
      appendFileSync(
        file,
        b.entries
          .slice(written)
          .map((e) => `${JSON.stringify(e)}\n`)
          .join(''),
      );
      written = b.entries.length;
    },
  };
  return { file, u1, a1, a2, pi, b };
}

interface Setup {
  ask: FakeAsk;
  /** A pi with the bridge runs the session (SessionActions asks the gateway). */
  piRuns?: boolean;
  /** The live guard's answer (a session some pi writes without the bridge). */
  live?: boolean | 'fork';
}

async function context(s: ReturnType<typeof sessionFile>, o: Setup) {
  const session = await Session.open(s.file);
  const guards: string[] = [];
  const actions = new SessionActions(session, s.file, {
    repo: () => new SessionRepository({ agentDir: tempDir(), env: {} }),
    openTree: async () => {},
    confirmLiveWrite: async (_f, action) => (guards.push(action), o.live ?? true),
    ...(o.piRuns ? { gateway: { live: async () => ({ record: { pid: 4242 } }) } as unknown as PiGateway } : {}),
  });
  const cx = {
    session,
    file: s.file,
    actions,
    ask: o.ask,
    asking: new AskSlot(),
    cancellation: () => new CancellationTokenSource(),
  } as unknown as HandlerContext;
  return { cx, session, guards };
}

const askFrom = (
  cx: HandlerContext,
  b: { id: string; prompt: string; model?: { provider: string; id: string } },
  seq = 1,
) => requestHandlers.askFrom({ kind: 'askFrom', ...b }, seq, cx);
const nextProgress = () => new Promise<ProgressShown>((r) => mock.events.once('progress', r));
const errors = () => mock.shown.filter((m) => m.level === 'error').map((m) => m.message);

/** Resolves when `token` is cancelled, then rejects as the service does (pi aborted the turn). */
const untilCancelled = (token: vscode.CancellationToken) =>
  new Promise<never>((_r, reject) => {
    if (token.isCancellationRequested) return reject(new AskCancelledError());
    token.onCancellationRequested(() => reject(new AskCancelledError()));
  });

beforeEach(() => mock.reset());

describe('Ask from here on the host', () => {
  it("runs one turn under a cancellable progress notification, says what pi does, and the tree gets pi's entries before the reply", async () => {
    const s = sessionFile();
    let seenLive = false;
    const ask = new FakeAsk(async (q, _t, onEvent) => {
      onEvent({ kind: 'started', via: 'headless', pid: 777 });
      const { answerId } = s.pi.turn(q.entryId, q.prompt, 'the new answer');
      onEvent({ kind: 'tool', phase: 'start', name: 'bash', id: 't1' });
      onEvent({ kind: 'text', delta: 'the new' });
      onEvent({ kind: 'text', delta: ' answer' });
      // pi's entries reach the tree while the turn still runs (the session is read as pi reports).
      await until(
        () => cx.session.index.get(answerId) !== undefined,
        20_000,
        'the answer in the open session during the turn',
      );
      seenLive = true;
      onEvent({ kind: 'ended', aborted: false });
      return { answerId, answer: 'the new answer', leafId: answerId, via: 'headless', pid: 777 };
    });
    const { cx, guards } = await context(s, { ask });
    const r = await askFrom(cx, { id: s.a1, prompt: 'and now?', model: { provider: 'anthropic', id: 'claude-x' } });
    assert.ok(seenLive);
    assert.ok(!('cancelled' in r));
    const done = r as Exclude<Replies['askFrom'], { cancelled: true }>;
    assert.equal(done.via, 'headless');
    assert.equal(done.pid, 777);
    assert.equal(
      cx.session.index.get(done.answerId!)?.role,
      'assistant',
      'the answer is in the session the tree shows',
    );
    assert.equal(cx.session.leafId, done.leafId);
    const q = ask.questions[0];
    assert.deepEqual(
      { file: q.file, entryId: q.entryId, prompt: q.prompt, model: q.model, waitMs: q.waitMs },
      {
        file: s.file,
        entryId: s.a1,
        prompt: 'and now?',
        model: { provider: 'anthropic', id: 'claude-x' },
        waitMs: FIRST_WAIT_MS,
      },
    );
    assert.equal(mock.progress.length, 1);
    const p = mock.progress[0];
    assert.deepEqual(p.options, { location: 15, title: 'pi: Ask from here', cancellable: true });
    assert.deepEqual(
      p.reports.map((x) => x.message),
      ['pi is answering (pid 777, started by pi-tree)…', 'running bash…', 'writing the answer…', 'done'],
      'each change said once (the text streams as one line)',
    );
    assert.ok(p.done);
    assert.deepEqual(guards, ['start another pi on it'], 'no pi with the bridge: the live guard is asked');
    assert.deepEqual(errors(), []);
    assert.equal((cx.asking as AskSlot).running, false);
    // pi-tree's own pi wrote the file and has exited: the file at its size is not "live" for the next ask.
    assert.equal(cx.session.ownWriteSize, statSync(s.file).size);
  });

  it("the notification's Cancel and the tree's cancelAsk cancel the service's token; the reply says cancelled, nothing shown as an error", async () => {
    const s = sessionFile();
    const ask = new FakeAsk(async (_q, token) => untilCancelled(token));
    const { cx } = await context(s, { ask });
    // The notification's Cancel.
    const shown = nextProgress();
    const first = askFrom(cx, { id: s.a2, prompt: 'long task' });
    (await shown).cancel();
    assert.deepEqual(await first, { cancelled: true });
    assert.equal(ask.tokens[0].isCancellationRequested, true);
    // The tree's Cancel (cancelAsk): the turn this tree runs.
    assert.deepEqual(
      await requestHandlers.cancelAsk({ kind: 'cancelAsk' }, 3, cx),
      { cancelling: false },
      'nothing runs',
    );
    const second = askFrom(cx, { id: s.a2, prompt: 'long task' }, 2);
    await until(() => ask.tokens.length === 2, 20_000, 'the second turn started');
    assert.deepEqual(await requestHandlers.cancelAsk({ kind: 'cancelAsk' }, 3, cx), { cancelling: true });
    assert.deepEqual(await second, { cancelled: true });
    assert.equal(ask.tokens[1].isCancellationRequested, true);
    assert.deepEqual(errors(), []);
    // A service that ends a cancelled turn its own way (pi's words) is a cancel all the same.
    const third = new FakeAsk(async (_q, token) => {
      await untilCancelled(token).catch(() => undefined);
      throw new Error('pi aborted the turn');
    });
    const c3 = await context(s, { ask: third });
    const p3 = nextProgress();
    const r3 = askFrom(c3.cx, { id: s.a2, prompt: 'x' });
    (await p3).cancel();
    assert.deepEqual(await r3, { cancelled: true });
    assert.deepEqual(errors(), []);
  });

  it('a busy pi with the bridge: asked to wait, "Wait for pi" asks again with the long wait; declined, nothing more is asked', async () => {
    const s = sessionFile();
    const ask = new FakeAsk(async (q, _t, _e, call) => {
      if (call === 1) throw new PiBusyError(4242);
      const { answerId } = s.pi.turn(q.entryId, q.prompt, 'after the wait');
      return { answerId, answer: 'after the wait', leafId: answerId, via: 'running', pid: 4242 };
    });
    const { cx, guards } = await context(s, { ask, piRuns: true });
    mock.answer = (m) => (m.level === 'warning' ? 'Wait for pi' : undefined);
    const r = await askFrom(cx, { id: s.a1, prompt: 'when you can' });
    assert.equal((r as { via: string }).via, 'running');
    assert.deepEqual(
      ask.questions.map((q) => q.waitMs),
      [FIRST_WAIT_MS, LONG_WAIT_MS],
    );
    const asked = mock.shown.filter((m) => m.level === 'warning');
    assert.equal(asked.length, 1);
    assert.equal(asked[0].modal, true);
    assert.match(
      asked[0].message,
      /^pi \(pid 4242\) is busy with a turn or a compaction, so nothing was asked yet\. Wait until it is idle, or cancel\?$/,
    );
    assert.deepEqual(asked[0].items, ['Wait for pi']);
    assert.ok(mock.progress[0].reports.some((x) => x.message === 'waiting for pi (pid 4242) to finish its turn…'));
    assert.deepEqual(guards, [], 'a pi with the bridge runs it: no live-write question');

    // Declined: cancelled, asked once.
    mock.reset();
    const busy = new FakeAsk(async () => {
      throw new PiBusyError(4242);
    });
    const c2 = await context(s, { ask: busy, piRuns: true });
    assert.deepEqual(await askFrom(c2.cx, { id: s.a1, prompt: 'x' }), { cancelled: true });
    assert.equal(busy.questions.length, 1);
    assert.deepEqual(errors(), []);

    // Still busy after the long wait: an error in words, not a second question.
    mock.reset();
    mock.answer = (m) => (m.level === 'warning' ? 'Wait for pi' : undefined);
    const c3 = await context(s, { ask: busy, piRuns: true });
    await assert.rejects(askFrom(c3.cx, { id: s.a1, prompt: 'x' }), /busy with a turn/);
    assert.equal(mock.shown.filter((m) => m.level === 'warning').length, 1);
    assert.match(errors()[0], /^pi-tree: Ask from here failed: pi \(pid 4242\) is busy/);
  });

  it("pi's failure is shown in words and returned to the tree; what pi wrote of the turn is read", async () => {
    const s = sessionFile();
    let promptId = '';
    const ask = new FakeAsk(async (q) => {
      s.b.at(q.entryId);
      promptId = s.b.user(q.prompt);
      s.pi.flush();
      throw new Error('The model call failed: 401 invalid x-api-key. What pi wrote of the turn stays in the session.');
    });
    const { cx } = await context(s, { ask });
    await assert.rejects(askFrom(cx, { id: s.a2, prompt: 'go' }), /401 invalid x-api-key/);
    await until(() => errors().length > 0, 20_000, 'the error shown');
    assert.equal(
      errors()[0],
      'pi-tree: Ask from here failed: The model call failed: 401 invalid x-api-key. What pi wrote of the turn stays in the session.',
    );
    assert.ok(cx.session.index.get(promptId), "the prompt pi wrote is in the tree's session");
    assert.equal((cx.asking as AskSlot).running, false, 'the next ask may run');
  });

  it('refuses before anything runs: Restricted Mode, a read-only session, an unknown entry, a second turn, a declined live warning', async () => {
    const s = sessionFile();
    const ask = new FakeAsk(async (_q, token) => untilCancelled(token));
    // Restricted Mode.
    mock.trusted = false;
    let c = await context(s, { ask });
    await assert.rejects(askFrom(c.cx, { id: s.a1, prompt: 'x' }), /not available in Restricted Mode/);
    await assert.rejects(requestHandlers.listModels({ kind: 'listModels' }, 1, c.cx), /Restricted Mode/);
    mock.trusted = true;
    // Read-only.
    c = await context(s, { ask });
    c.session.writeBlocked = 'the file is read-only';
    await assert.rejects(askFrom(c.cx, { id: s.a1, prompt: 'x' }), /This session is read-only: the file is read-only/);
    // An entry the session does not have.
    c = await context(s, { ask });
    await assert.rejects(askFrom(c.cx, { id: 'deadbeef', prompt: 'x' }), /Entry deadbeef is not in this session/);
    assert.equal(ask.questions.length, 0);
    assert.equal(mock.progress.length, 0);
    // One turn at a time per tree.
    const running = askFrom(c.cx, { id: s.a1, prompt: 'first' });
    await until(() => ask.questions.length === 1, 20_000, 'the first turn');
    await assert.rejects(
      askFrom(c.cx, { id: s.a1, prompt: 'second' }, 2),
      /already answering a question asked from this tree/,
    );
    (c.cx.asking as AskSlot).cancel();
    assert.deepEqual(await running, { cancelled: true });
    // A session some pi writes without the bridge: declined, nothing asked.
    const declined = await context(s, { ask, live: false });
    assert.deepEqual(await askFrom(declined.cx, { id: s.a1, prompt: 'x' }), { cancelled: true });
    assert.deepEqual(declined.guards, ['start another pi on it']);
    assert.equal(ask.questions.length, 1);
    assert.equal(mock.progress.length, 1, 'only the first turn showed progress');
  });

  it("lists pi's models through the service (with the request's token)", async () => {
    const s = sessionFile();
    const list = {
      models: [{ provider: 'anthropic', id: 'claude-x', name: 'Claude X' }],
      defaultModel: { provider: 'anthropic', id: 'claude-x' },
    };
    const ask = new FakeAsk(async () => {
      throw new Error('unused');
    }, list);
    const { cx } = await context(s, { ask });
    assert.deepEqual(await requestHandlers.listModels({ kind: 'listModels' }, 5, cx), list);
    assert.equal(ask.modelCalls, 1);
  });
});
