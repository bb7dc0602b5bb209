// The AskService over the run core (runs/piAskService.ts) with a fake core: what it hands the core (the
// user's pi, never one in the session's folder; the bridge places; the wait; a signal the token aborts),
// and how it words the core's failures: a busy pi is PiBusyError, a cancelled turn AskCancelledError,
// pi's refusals and failures pi's words with what happened to the session, no pi at all says how to set
// one. The model list is pi's, kept a while per folder, asked again after a failure.
import '../../support/vscode/install.js';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BridgeError } from '../../../src/core/piClient/client.js';
import { Session } from '../../../src/core/session/session.js';
import { AskCancelledError, PiBusyError } from '../../../src/host/runs/askService.js';
import { createAskService, type AskCore } from '../../../src/host/runs/piAskService.js';
import { SessionBuilder } from '../../support/sessionBuilder.js';
import { tempDir } from '../../support/tmp.js';
import { CancellationTokenSource } from '../../support/vscode/api.js';

type AskOptions = Parameters<AskCore['askFrom']>[0];

/** An executable `pi` in a folder of its own (findPi finds it by absolute path). */
function fakePi(): string {
  const p = join(tempDir('pi-tree-ask-bin-'), 'pi');
  writeFileSync(p, '#!/bin/sh\nexit 0\n');
  chmodSync(p, 0o755);
  return p;
}

async function session() {
  const b = new SessionBuilder({ cwd: tempDir('pi-tree-ask-cwd-') });
  b.user('q');
  const a = b.assistant({ text: 'a' });
  const file = b.write(tempDir('pi-tree-ask-sessions-'));
  return { file, a, session: await Session.open(file) };
}

/** A TurnError as core/runs/runTurn.ts throws it (told by name and code). */
function turnError(code: string, message: string): Error {
  return Object.assign(new Error(message), { name: 'TurnError', code });
}

function service(core: Partial<AskCore>, piCommand = fakePi()) {
  const dirs = [tempDir('pi-tree-ask-bridges-')];
  const env = { ...process.env, HOME: tempDir('pi-tree-ask-home-'), XDG_RUNTIME_DIR: tempDir('pi-tree-ask-run-') };
  return {
    svc: createAskService({ core: core as AskCore, piCommand: () => piCommand, discoveryDirs: dirs, env }),
    dirs,
    env,
  };
}

const question = (s: Awaited<ReturnType<typeof session>>, waitMs = 1500) => ({
  session: s.session,
  file: s.file,
  entryId: s.a,
  prompt: 'go on',
  waitMs,
});

describe('the AskService over the run core', () => {
  it("hands askFrom the question, the user's pi, the bridge places and the wait, and returns what the tree needs", async () => {
    const s = await session();
    const pi = fakePi();
    const seen: AskOptions[] = [];
    const { svc, dirs, env } = service(
      {
        askFrom: async (o) => {
          seen.push(o);
          o.onEvent?.({ kind: 'started', via: 'headless', pid: 5 });
          return { via: 'headless', pid: 5, answerId: 'b1', answer: 'yes', leafId: 'b1', entries: [], ms: 3 } as never;
        },
      },
      pi,
    );
    const events: unknown[] = [];
    const r = await svc.ask(
      { ...question(s), model: { provider: 'p', id: 'm' } },
      new CancellationTokenSource().token,
      (e) => events.push(e),
    );
    assert.deepEqual(r, { answerId: 'b1', answer: 'yes', leafId: 'b1', via: 'headless', pid: 5 });
    const o = seen[0];
    assert.deepEqual(
      {
        sessionFile: o.sessionFile,
        entryId: o.entryId,
        prompt: o.prompt,
        model: o.model,
        waitMs: o.waitMs,
        pi: o.pi,
        dirs: o.discovery?.dirs,
        env: o.env === env,
      },
      {
        sessionFile: s.file,
        entryId: s.a,
        prompt: 'go on',
        model: { provider: 'p', id: 'm' },
        waitMs: 1500,
        pi: { program: pi, args: [] },
        dirs,
        env: true,
      },
    );
    assert.equal(o.signal?.aborted, false);
    assert.deepEqual(events, [{ kind: 'started', via: 'headless', pid: 5 }]);
  });

  it('the token aborts the signal; a turn that ends cancelled is AskCancelledError with pi’s words', async () => {
    const s = await session();
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const { svc } = service({
      askFrom: (o) =>
        new Promise((_r, reject) => {
          o.signal!.addEventListener('abort', () =>
            reject(turnError('cancelled', 'cancelled: pi aborted the turn (what it wrote of it stays)')),
          );
          started();
        }),
    });
    const cts = new CancellationTokenSource();
    const p = svc.ask(question(s), cts.token);
    await running;
    cts.cancel();
    await assert.rejects(
      p,
      (e: Error) =>
        e instanceof AskCancelledError &&
        e.message === 'Cancelled: cancelled: pi aborted the turn (what it wrote of it stays)',
    );
    // Cancelled before the core was called: it is not called.
    let called = false;
    const early = service({ askFrom: async () => ((called = true), Promise.reject(new Error('no'))) });
    const c2 = new CancellationTokenSource();
    const p2 = early.svc.ask(question(s), c2.token);
    c2.cancel();
    await assert.rejects(p2, (e: Error) => e instanceof AskCancelledError && /nothing was asked/.test(e.message));
    assert.equal(called, false);
  });

  it('a busy pi is PiBusyError; the core’s other failures are worded for the user', async () => {
    const s = await session();
    const fail = (e: Error) =>
      service({ askFrom: async () => Promise.reject(e) }).svc.ask(question(s), new CancellationTokenSource().token);
    await assert.rejects(
      fail(new BridgeError('busy', 'pi is busy')),
      (e: Error) =>
        e instanceof PiBusyError && /is busy with a turn or a compaction, so nothing was asked yet/.test(e.message),
    );
    await assert.rejects(fail(turnError('refused', 'No API key found for anthropic')), {
      message: 'pi refused the prompt: No API key found for anthropic. Nothing was asked.',
    });
    await assert.rejects(fail(turnError('failed', '429 rate limited')), {
      message: 'The model call failed: 429 rate limited. What pi wrote of the turn stays in the session.',
    });
    await assert.rejects(fail(turnError('start', 'pi exited with code 1: bad flag')), {
      message: 'pi did not start: pi exited with code 1: bad flag',
    });
    await assert.rejects(fail(turnError('exited', 'pi 9 went away during the turn')), {
      message: 'pi stopped during the turn: pi 9 went away during the turn',
    });
    await assert.rejects(fail(new BridgeError('stale', 'the leaf moved')), { message: 'pi refused: the leaf moved' });
  });

  it('no pi runs the session and none is found: says so, and which setting names pi', async () => {
    const s = await session();
    const seen: AskOptions[] = [];
    const { svc } = service(
      {
        askFrom: async (o) => {
          seen.push(o);
          throw Object.assign(
            new Error('no pi with the pi-tree bridge runs this session, and no pi program was given to start one'),
            { name: 'AskInputError' },
          );
        },
      },
      '/nowhere/pi',
    );
    await assert.rejects(
      svc.ask(question(s), new CancellationTokenSource().token),
      /^Error: No pi with the pi-tree bridge runs this session, and pi-tree cannot start one: .*Set piTree\.piCommand\.$/,
    );
    assert.equal(seen[0].pi, undefined, 'a running pi may still do it: the core is asked without one');
  });

  it("lists pi's models in the session's folder, kept a while; a failure is not kept", async () => {
    const s = await session();
    let calls = 0;
    const cwds: (string | undefined)[] = [];
    const { svc } = service({
      listModels: async (o) => {
        cwds.push(o.cwd);
        if (++calls === 1) throw new Error('pi did not list its models: timeout');
        return {
          models: [{ provider: 'a', id: 'm1', name: 'M1', contextWindow: 1 } as never],
          defaultModel: { provider: 'a', id: 'm1' },
        };
      },
    });
    const token = new CancellationTokenSource().token;
    await assert.rejects(svc.models(s.session, token), /timeout/);
    const want = { models: [{ provider: 'a', id: 'm1', name: 'M1' }], defaultModel: { provider: 'a', id: 'm1' } };
    assert.deepEqual(await svc.models(s.session, token), want);
    assert.deepEqual(await svc.models(s.session, token), want);
    assert.equal(calls, 2, 'the second list is kept');
    assert.deepEqual(cwds, [s.session.header.cwd, s.session.header.cwd]);
  });
});
